import { stat } from "node:fs/promises";
import type { CustomCommand } from "./custom-command.js";
import type { CustomCommands } from "./load-custom-commands.js";

/** A prompt written as a command: `/name` and what follows it. */
export type SlashInput = {
  /** The name, without its slash (`review`, `frontend:component`). */
  name: string;
  /** Everything after the name, trimmed (`src/a.ts`). */
  args: string;
};

/**
 * Reads `/name arguments` off a prompt. Not a command: a prompt that does not start with `/`, and one whose first
 * word is a path (`/usr/bin/env is missing`, `/src/a.ts:3 fails`: a second `/` in it).
 */
export function parseSlashInput(text: string): SlashInput | undefined {
  const match = /^\/([^\s/]+)(?=\s|$)([\s\S]*)$/.exec(text);
  if (!match) return undefined;
  return { name: match[1] as string, args: (match[2] as string).trim() };
}

/** What a prompt is: a custom command to run, a name no command has, or a prompt to send as it is. */
export type SlashPrompt =
  | { kind: "command"; command: CustomCommand; args: string }
  | { kind: "unknown"; name: string }
  | { kind: "prompt" };

/**
 * Tells a custom command from a prompt, as `minagent code -p` must: `/name` that a command has is that command; a
 * `/name` no command has is unknown (`-p` refuses it, as Claude Code's print mode does) — unless it names something
 * on disk (`/tmp is full`), which makes it a prompt, as is anything {@link parseSlashInput} does not read as a command.
 */
export async function classifySlashPrompt(text: string, commands: CustomCommands): Promise<SlashPrompt> {
  const input = parseSlashInput(text);
  if (!input) return { kind: "prompt" };
  const command = commands.find(input.name);
  if (command) return { kind: "command", command, args: input.args };
  if (await stat(`/${input.name}`).catch(() => undefined)) return { kind: "prompt" };
  return { kind: "unknown", name: input.name };
}

/** The commands there are, for a message about one that is not: `/review, /frontend:component`, or that there are none. */
export function describeCommandNames(commands: CustomCommands): string {
  if (commands.list.length === 0)
    return "there are no custom commands (Markdown files in .claude/commands/, .minagent/commands/ or the user's ~/.claude/commands/)";
  return `the custom commands are ${commands.list.map((command) => `/${command.name}`).join(", ")}`;
}
