import { stat } from "node:fs/promises";
import type { Tool } from "../../engine.js";
import { ToolError } from "../../errors.js";
import { fileError, type Workspace } from "../workspace.js";
import { explainMiss } from "./edit-miss.js";
import {
  countLines,
  decodeText,
  detectLineEnding,
  formatLine,
  formatSize,
  joinByteOrderMark,
  plural,
  sniffLength,
  splitByteOrderMark,
  withLineEnding,
} from "./file-text.js";
import { describeMissingFile } from "./missing-file.js";

/** The arguments of an Edit call. */
export type EditArguments = { file_path: string; old_string: string; new_string: string; replace_all?: boolean | undefined };

/** Lines of context shown around a change. */
const contextLines = 3;
/** Most lines of a snippet, and most characters of each. */
const maxSnippetLines = 30;
const maxSnippetLineLength = 300;
/** Line numbers listed for many matches. */
const listedMatches = 10;

/**
 * Claude Code's `Edit { file_path, old_string, new_string, replace_all? }`: replaces the exact text `old_string`
 * with `new_string`. old_string must occur exactly once unless `replace_all`; a miss or an ambiguous match is an
 * observation saying which, with the number of matches (their lines, or a hint when the text matches once
 * whitespace, quotes or Read's line-number prefixes are set aside). The file must have been read in this session
 * and not changed on disk since; the write is atomic, and the file keeps its line endings (LF sent to a CRLF file
 * is written as CRLF) and byte-order mark. The observation counts the replacements and shows the changed lines.
 * With an editor ({@link Workspace.editor}) the text edited is the editor's (unsaved changes included), it must be
 * the text the Read showed, and the whole new text is written through the editor.
 *
 * An empty old_string creates the file when it does not exist (as Claude Code allows), or fills an existing empty
 * file; on a file with content it is refused (use Write to replace a whole file). Editing a file with more than one
 * hard link needs approval ({@link Workspace.isLocationUncertain}).
 * @example registry.add(createEditTool(workspace))
 */
export function createEditTool(workspace: Workspace): Tool {
  return {
    name: "Edit",
    description: [
      "Replace exact text in a file: old_string must match the file character for character, indentation included,",
      "and occur exactly once (add surrounding lines to make it unique), unless replace_all is true, which replaces every occurrence.",
      "Read the file first. Copy text from Read's output without the line number and tab in front of each line.",
      "An empty old_string creates a new file with new_string as its content.",
    ].join(" "),
    compileOnFirstCall: true,
    parameters: {
      type: "object",
      properties: {
        file_path: { type: "string", description: "Path of the file: absolute, or relative to the workspace root." },
        old_string: { type: "string", description: "The exact text to replace." },
        new_string: { type: "string", description: "The text to put in its place (must differ from old_string)." },
        replace_all: { type: "boolean", description: "Replace every occurrence of old_string (default false)." },
      },
      required: ["file_path", "old_string", "new_string"],
    },
    needsApproval: (args) => workspace.isLocationUncertain((args as EditArguments).file_path),
    execute: async (args) => {
      const edit = args as EditArguments;
      const absolute = await workspace.resolve(edit.file_path);
      return workspace.exclusive(absolute, () => editFile(workspace, absolute, edit));
    },
  };
}

async function editFile(workspace: Workspace, absolute: string, edit: EditArguments): Promise<string> {
  const shown = workspace.display(absolute);
  // Arguments that change nothing are refused before the file is looked at.
  if (edit.old_string === edit.new_string) throw new ToolError(identicalStrings(shown));
  const exists = await stat(absolute).then(
    () => true,
    (error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT" || error.code === "ENOTDIR") return false;
      throw fileError(error, `read ${shown}`);
    },
  );
  if (!exists) {
    const plan = planEdit(undefined, edit, shown);
    if (!plan.ok) throw new ToolError(`${await describeMissingFile(workspace, absolute)} ${plan.message}`);
    await workspace.writeAtomic(absolute, plan.text);
    return `Created ${shown} (${plural(countLines(plan.text), "line")}, ${formatSize(Buffer.byteLength(plan.text))}).`;
  }
  await workspace.checkWritable(absolute);
  const current = workspace.editor ? await readEditorText(workspace, absolute) : await readText(workspace, absolute);
  const plan = planEdit(current, edit, shown);
  if (!plan.ok) throw new ToolError(plan.message);
  await workspace.writeAtomic(absolute, plan.text);
  const { body } = splitByteOrderMark(plan.text);
  if (edit.old_string === "")
    return `Wrote ${shown}, which was empty (${plural(countLines(body), "line")}, ${formatSize(Buffer.byteLength(body))}).`;
  return describeChange(plan, shown);
}

/** The file's whole text from the disk, which must be UTF-8. */
async function readText(workspace: Workspace, absolute: string): Promise<string> {
  const shown = workspace.display(absolute);
  const bytes = await readWhole(workspace, absolute).catch((error: unknown) => {
    throw fileError(error, `read ${shown}`);
  });
  return decodeText(bytes, shown, "Edit");
}

async function readWhole(workspace: Workspace, absolute: string): Promise<Buffer> {
  const handle = await workspace.openFile(absolute);
  try {
    return await handle.readFile();
  } finally {
    await handle.close();
  }
}

/** The file's whole text as the editor has it; a buffer of what looks binary (a NUL) is refused as on disk. */
async function readEditorText(workspace: Workspace, absolute: string): Promise<string> {
  const text = await workspace.readEditorText(absolute);
  if (text.slice(0, sniffLength).includes("\0"))
    throw new ToolError(
      `${workspace.display(absolute)} is a binary file (it contains NUL bytes); Edit works on UTF-8 text files only, and would corrupt it.`,
    );
  return text;
}

/** Why an Edit call would fail on a file's text. */
export type EditFailure = "identical" | "missing-file" | "not-empty" | "not-found" | "ambiguous";

/** What an Edit call does to a file's text (see {@link planEdit}). */
export type EditPlan =
  | {
      ok: true;
      /** The file's whole new text as it will be written: its line endings and byte-order mark kept. */
      text: string;
      /** Where each replacement starts in `text`, in order. */
      positions: number[];
      /** The text put at each position (new_string in the file's line endings). */
      replacement: string;
    }
  | {
      ok: false;
      failure: EditFailure;
      /**
       * The observation the model reads. For a missing file, what follows the tool's own description of it
       * (which names similar files).
       */
      message: string;
    };

/**
 * Edit's change planning, without touching a file: what a call with these arguments does to a file whose text is
 * `current` (decoded, byte-order mark included; undefined when the file does not exist), exactly as the tool does
 * it — LF sent to a CRLF file matched and written as CRLF, an empty old_string creating or filling a file — or why
 * it fails. `shown` names the file in messages. The tool itself also checks that the file was read and has not
 * changed since, which this cannot know.
 * @example planEdit("a\r\nb\r\n", { file_path: "x", old_string: "a\nb", new_string: "c" }, "x") // { ok: true, text: "c\r\n", … }
 */
export function planEdit(current: string | undefined, edit: EditArguments, shown: string): EditPlan {
  if (edit.old_string === edit.new_string) return { ok: false, failure: "identical", message: identicalStrings(shown) };
  if (current === undefined) {
    if (edit.old_string !== "")
      return {
        ok: false,
        failure: "missing-file",
        message: "Edit changes existing files; to create one, use Write (or Edit with an empty old_string).",
      };
    return { ok: true, text: edit.new_string, positions: [0], replacement: edit.new_string };
  }
  const { bom, body } = splitByteOrderMark(current);
  const shift = bom ? current.length - body.length : 0;
  if (edit.old_string === "") {
    if (body !== "")
      return {
        ok: false,
        failure: "not-empty",
        message: `old_string is empty, but ${shown} is not: an empty old_string only creates a file or fills an empty one. Give the exact text to replace, or use Write to replace the whole file.`,
      };
    return { ok: true, text: joinByteOrderMark(bom, edit.new_string), positions: [shift], replacement: edit.new_string };
  }
  // The model writes LF; a CRLF file is matched and written in CRLF. A mixed file may still match as sent.
  const ending = detectLineEnding(body);
  let needle = withLineEnding(edit.old_string, ending);
  let replacement = withLineEnding(edit.new_string, ending);
  let found = findAll(body, needle);
  if (found.length === 0 && needle !== edit.old_string) {
    needle = edit.old_string;
    replacement = edit.new_string;
    found = findAll(body, needle);
  }
  if (found.length === 0) return { ok: false, failure: "not-found", message: explainMiss(body, edit.old_string, shown) };
  if (found.length > 1 && !edit.replace_all) {
    const lines = lineNumbersAt(body, found.slice(0, listedMatches)).join(", ") + (found.length > listedMatches ? ", …" : "");
    return {
      ok: false,
      failure: "ambiguous",
      message: `old_string occurs ${found.length} times in ${shown} (at lines ${lines}), but Edit replaces exactly one. Add surrounding lines to old_string to pick one, or set replace_all to true to replace all ${found.length}.`,
    };
  }
  const first = found[0] as number;
  const text =
    found.length > 1 ? body.split(needle).join(replacement) : body.slice(0, first) + replacement + body.slice(first + needle.length);
  const grows = replacement.length - needle.length;
  return {
    ok: true,
    text: joinByteOrderMark(bom, text),
    positions: found.map((position, index) => shift + position + index * grows),
    replacement,
  };
}

function identicalStrings(shown: string): string {
  return `old_string and new_string are identical, so nothing would change in ${shown}. Put the new text in new_string.`;
}

/** Where `needle` starts in `text`, left to right, not overlapping. */
function findAll(text: string, needle: string): number[] {
  const found: number[] = [];
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + needle.length)) found.push(at);
  return found;
}

/** The 1-based line numbers of ascending `positions` in `text`, in one pass. */
function lineNumbersAt(text: string, positions: readonly number[]): number[] {
  const numbers: number[] = [];
  let line = 1;
  let newline = text.indexOf("\n");
  for (const position of positions) {
    while (newline !== -1 && newline < position) {
      line++;
      newline = text.indexOf("\n", newline + 1);
    }
    numbers.push(line);
  }
  return numbers;
}

function describeChange(change: Extract<EditPlan, { ok: true }>, shown: string): string {
  // Lines are counted and shown without the byte-order mark, which is no character of line 1 to the model.
  const { body: text } = splitByteOrderMark(change.text);
  const shift = change.text.length - text.length;
  const positions = change.positions.map((position) => position - shift);
  const { replacement } = change;
  const count = positions.length;
  const lines = lineNumbersAt(text, positions.slice(0, listedMatches));
  const first = lines[0] as number;
  const last = first + (replacement.match(/\n/g)?.length ?? 0) - (replacement.endsWith("\n") ? 1 : 0);
  const where = count === 1 ? `(line ${first})` : `(lines ${lines.join(", ")}${count > listedMatches ? ", …" : ""})`;
  const total = countLines(text);
  const snippet =
    total === 0
      ? "The file is now empty."
      : `${count === 1 ? "It now reads" : "Around the first, it now reads"}:\n${formatSnippet(text, Math.max(1, first - contextLines), Math.min(total, Math.max(first, last) + contextLines))}`;
  return `Edited ${shown}: replaced ${plural(count, "occurrence")} ${where}. ${snippet}`;
}

/** Lines `from`–`to` of `text`, numbered like Read's output, each cut short. */
function formatSnippet(text: string, from: number, to: number): string {
  const lines = text.split("\n");
  const end = Math.min(to, from + maxSnippetLines - 1);
  const shown: string[] = [];
  for (let number = from; number <= end; number++) {
    const line = (lines[number - 1] ?? "").replace(/\r$/, "");
    shown.push(formatLine(number, line.length > maxSnippetLineLength ? `${line.slice(0, maxSnippetLineLength)}…` : line));
  }
  if (end < to) shown.push("…");
  return shown.join("\n");
}
