import { readFile, stat } from "node:fs/promises";
import { isAbsolute, resolve } from "node:path";
import type { Workspace } from "../../../code/workspace.js";
import type { ToolCall } from "../../../core/types.js";
import { type DiffLine, diffLines, groupHunks, splitLines } from "./line-diff.js";
import type { Style } from "./terminal.js";
import { printable, truncateToWidth } from "./text-width.js";

/** Files larger than this are not read for a preview. */
const maxPreviewBytes = 2_000_000;
/** Most diff lines shown in a permission prompt. */
const maxShownLines = 40;

/** The change an Edit or a Write would make, worked out from the file as it is now. */
export type FileChange = {
  /** The path as a person reads it (relative to the workspace when inside). */
  shown: string;
  /** The diff, or undefined when the file could not be read. */
  lines: DiffLine[] | undefined;
  /** Said above the diff: a new file, an edit that will not apply, a file too large. */
  note: string | undefined;
};

/** What an Edit or a Write call would change, or undefined for other calls. */
export async function computeFileChange(call: Pick<ToolCall, "name" | "arguments">, workspace: Workspace): Promise<FileChange | undefined> {
  const args = call.arguments;
  if ((call.name !== "Edit" && call.name !== "Write") || typeof args.file_path !== "string") return undefined;
  const absolute = isAbsolute(args.file_path) ? resolve(args.file_path) : resolve(workspace.root, args.file_path);
  const shown = workspace.display(absolute);
  const current = await readCurrent(absolute);
  if (call.name === "Write") {
    const content = typeof args.content === "string" ? args.content : "";
    if (current === "missing") return { shown, lines: diffLines("", content), note: `new file, ${countLines(content)}` };
    if (current === "too large")
      return { shown, lines: undefined, note: `overwrites a file too large to compare; new content: ${countLines(content)}` };
    return { shown, lines: diffLines(current, content), note: undefined };
  }
  const oldString = typeof args.old_string === "string" ? args.old_string : "";
  const newString = typeof args.new_string === "string" ? args.new_string : "";
  if (current === "missing")
    return oldString === ""
      ? { shown, lines: diffLines("", newString), note: `new file, ${countLines(newString)}` }
      : { shown, lines: diffLines(oldString, newString), note: "the file does not exist: the edit will fail" };
  if (current === "too large") return { shown, lines: diffLines(oldString, newString), note: "the file is too large to show in full" };
  const index = oldString === "" ? (current === "" ? 0 : -1) : current.indexOf(oldString);
  if (index === -1)
    return { shown, lines: diffLines(oldString, newString), note: "old_string is not in the file as it is now: the edit will fail" };
  const changed =
    args.replace_all === true
      ? current.split(oldString).join(newString)
      : current.slice(0, index) + newString + current.slice(index + oldString.length);
  return { shown, lines: diffLines(current, changed), note: undefined };
}

async function readCurrent(absolute: string): Promise<string | "missing" | "too large"> {
  try {
    if ((await stat(absolute)).size > maxPreviewBytes) return "too large";
    return await readFile(absolute, "utf8");
  } catch {
    return "missing";
  }
}

/** The change drawn for a terminal: numbered diff lines in red and green, hunks apart, long diffs cut. */
export function formatFileChange(change: FileChange, style: Style, columns: number): string[] {
  const output: string[] = [];
  if (change.note) output.push(style.dim(`  (${change.note})`));
  if (!change.lines) return output;
  const hunks = groupHunks(change.lines);
  const numbers = change.lines.map((line) => line.newNumber ?? line.oldNumber ?? 0);
  const width = String(Math.max(1, ...numbers)).length;
  let shown = 0;
  let hidden = 0;
  hunks.forEach((hunk, index) => {
    if (index > 0 && shown < maxShownLines) output.push(style.dim(`  ${" ".repeat(width)} ⋮`));
    for (const line of hunk) {
      if (shown >= maxShownLines) {
        if (line.kind !== " ") hidden++;
        continue;
      }
      shown++;
      const number = String(line.kind === "-" ? line.oldNumber : line.newNumber).padStart(width);
      const text = truncateToWidth(`  ${number} ${line.kind} ${printable(line.text.replace(/\t/g, "  "))}`, columns - 1);
      output.push(line.kind === "-" ? style.red(text) : line.kind === "+" ? style.green(text) : style.dim(text));
    }
  });
  if (hunks.length === 0) output.push(style.dim("  (no change)"));
  if (hidden > 0) output.push(style.dim(`  … ${hidden} more changed line${hidden === 1 ? "" : "s"}`));
  return output;
}

function countLines(text: string): string {
  const count = splitLines(text).length;
  return `${count} line${count === 1 ? "" : "s"}`;
}
