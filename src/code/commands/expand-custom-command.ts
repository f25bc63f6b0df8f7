import { substituteArguments, usesArguments } from "./command-arguments.js";
import { findFileReferences, splitCommandParts } from "./command-parts.js";
import type { CustomCommand } from "./custom-command.js";

/** A file an `@path` names, as it goes into the prompt; or why it does not. */
export type CommandFile = { text: string; path: string } | { note: string };

/**
 * What expanding a command does beyond its text: read the files it names and run its shell lines. The agent's
 * ({@link createCommandTools}) do both under the session's permissions; tests and hosts may give their own.
 */
export type CommandExpansionTools = {
  /**
   * The text to include for `@path` (the Read tool's output), or why it is not included; undefined when the `@` names
   * nothing that could be a file (`@types/node` in prose), which leaves it as text with no note.
   */
  readFile(path: string, options: { signal?: AbortSignal | undefined }): Promise<CommandFile | undefined>;
  /** The output of a shell line, or why it did not run (`{ note }`). */
  runShell(
    shellCommand: string,
    options: { signal?: AbortSignal | undefined; command: CustomCommand },
  ): Promise<{ output: string } | { note: string }>;
};

/** A command made into the prompt a run sends. */
export type ExpandedCommand = {
  command: CustomCommand;
  /** The arguments as typed after the command's name. */
  args: string;
  /** What the model is sent. */
  prompt: string;
  /** The files included (`@path`), as the prompt names them. */
  files: readonly string[];
  /** The shell lines that ran, arguments put in. */
  shellCommands: readonly string[];
  /** What did not go in as written, one line each (a file that is not there, a shell line that was refused). */
  notes: readonly string[];
};

/**
 * Makes a command's prompt, in Claude Code's order:
 *
 * 1. the body is split into text, fenced code and shell lines (`` !`git status` ``, ```` ```! ```` blocks) first,
 *    so that no argument can add a shell line;
 * 2. the arguments are put in everywhere ({@link substituteArguments}; shell lines get them too, and are judged
 *    with them); a body that names no argument gets `ARGUMENTS: <arguments>` at its end, so that none is lost;
 * 3. each shell line runs, in order, and its output takes its place (not read again for `@` or `!`); one that may
 *    not run leaves a note saying why;
 * 4. each `@path` of the text (not of fenced code) is read once, and its contents follow the body in a
 *    `<file path="…">` block; a file that is not there, or may not be read, is a note.
 */
export async function expandCustomCommand(
  command: CustomCommand,
  args: string,
  tools: CommandExpansionTools,
  options: { signal?: AbortSignal | undefined } = {},
): Promise<ExpandedCommand> {
  const names = command.argumentNames;
  const notes: string[] = [];
  const shellCommands: string[] = [];
  const text: string[] = [];
  let prompt = "";
  for (const part of splitCommandParts(command.body)) {
    if (part.kind === "shell") {
      const shellCommand = substituteArguments(part.command, args, names);
      const outcome = await tools.runShell(shellCommand, { signal: options.signal, command });
      if ("note" in outcome) {
        notes.push(outcome.note);
        prompt += `[${outcome.note}]`;
      } else {
        shellCommands.push(shellCommand);
        prompt += outcome.output;
      }
      continue;
    }
    const substituted = substituteArguments(part.text, args, names);
    if (part.kind === "text") text.push(substituted);
    prompt += substituted;
  }
  const given = args.trim();
  if (given !== "" && !usesArguments(command.body, names)) prompt = `${prompt.trimEnd()}\n\nARGUMENTS: ${given}`;
  const files: string[] = [];
  const included: string[] = [];
  const fileNotes: string[] = [];
  for (const reference of findFileReferences(text.join("\n"))) {
    const file = await tools.readFile(reference, { signal: options.signal });
    if (file === undefined) continue;
    if ("note" in file) fileNotes.push(file.note);
    else {
      files.push(file.path);
      included.push(`<file path="${file.path}">\n${file.text.trimEnd()}\n</file>`);
    }
  }
  return {
    command,
    args,
    prompt: [prompt.trim(), ...included, ...fileNotes.map((note) => `[${note}]`)].filter((piece) => piece !== "").join("\n\n"),
    files,
    shellCommands,
    notes: [...notes, ...fileNotes],
  };
}
