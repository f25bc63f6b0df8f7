import { readFile, stat } from "node:fs/promises";
import { createRequire } from "node:module";
import { isAbsolute, resolve } from "node:path";
import { type EditFailure, planEdit } from "../../../code/tools/edit.js";
import { countLines, decodeText } from "../../../code/tools/file-text.js";
import type { Workspace } from "../../../code/workspace.js";
import type { ToolCall } from "../../../core/types.js";
import type { Style } from "./terminal.js";
import { printable, truncateToWidth, wrapToWidth } from "./text-width.js";

/** The `diff` package, loaded when a diff is first made rather than at every start. */
let diffPackage: typeof import("diff") | undefined;
function diff(): typeof import("diff") {
  diffPackage ??= createRequire(import.meta.url)("diff") as typeof import("diff");
  return diffPackage;
}

/** Files larger than this are not read for a preview. */
const maxPreviewBytes = 2_000_000;
/** Most diff lines shown in a permission prompt. */
const maxShownLines = 40;
/** Kept lines shown around each change. */
const contextLines = 3;
/** Milliseconds the diff may take before the differing lines are shown as removed, then added. */
const diffTimeoutMs = 200;

/** One line of a diff: kept (" "), removed ("-") or added ("+"), with its numbers in the old and the new text. */
export type DiffLine = { kind: " " | "-" | "+"; text: string; oldNumber: number | undefined; newNumber: number | undefined };

/** A run of changes with the kept lines around it. */
export type DiffHunk = DiffLine[];

/** The change an Edit or a Write would make, worked out from the file as it is now. */
export type FileChange = {
  /** The path as a person reads it (relative to the workspace when inside). */
  shown: string;
  /** The diff's hunks, or undefined when the file could not be compared or the edit will fail. */
  hunks: DiffHunk[] | undefined;
  /** Said above the diff: a new file, a file too large. */
  note: string | undefined;
  /** Why the Edit will fail, when it will: shown instead of a diff, which would show a change that cannot happen. */
  failure?: string | undefined;
};

/** Why an Edit will fail, as the prompt says it (the model reads the tool's own, longer words). */
const editFailureReasons: Record<EditFailure | "not-text", (shown: string) => string> = {
  identical: () => "old_string and new_string are identical, so nothing would change",
  "missing-file": (shown) => `${shown} does not exist (an Edit with text to replace changes existing files only)`,
  "not-empty": (shown) => `old_string is empty but ${shown} is not`,
  "not-found": (shown) => `the text to replace (old_string) is not found in ${shown}`,
  ambiguous: (shown) => `the text to replace (old_string) occurs more than once in ${shown}, and replace_all is not set`,
  "not-text": (shown) => `${shown} is not UTF-8 text`,
};

/**
 * What an Edit or a Write call would change, or undefined for other calls. An Edit is planned by the Edit tool's
 * own planning (`planEdit`), so the preview shows the text the tool will write, or says that it will fail.
 */
export async function computeFileChange(call: Pick<ToolCall, "name" | "arguments">, workspace: Workspace): Promise<FileChange | undefined> {
  const args = call.arguments;
  if ((call.name !== "Edit" && call.name !== "Write") || typeof args.file_path !== "string") return undefined;
  const absolute = isAbsolute(args.file_path) ? resolve(args.file_path) : resolve(workspace.root, args.file_path);
  const shown = workspace.display(absolute);
  const current = await readCurrent(absolute);
  if (call.name === "Write") {
    const content = typeof args.content === "string" ? args.content : "";
    if (current === "missing") return { shown, hunks: diffHunks("", content), note: `new file, ${describeLines(content)}` };
    if (current === "too large")
      return { shown, hunks: undefined, note: `overwrites a file too large to compare; new content: ${describeLines(content)}` };
    return { shown, hunks: diffHunks(current.toString("utf8"), content), note: undefined };
  }
  const edit = {
    file_path: args.file_path,
    old_string: typeof args.old_string === "string" ? args.old_string : "",
    new_string: typeof args.new_string === "string" ? args.new_string : "",
    replace_all: args.replace_all === true,
  };
  if (current === "too large")
    return { shown, hunks: diffHunks(edit.old_string, edit.new_string), note: "the file is too large to show in full" };
  let text: string | undefined;
  try {
    text = current === "missing" ? undefined : decodeText(current, shown, "Edit");
  } catch {
    return { shown, hunks: undefined, note: undefined, failure: editFailureReasons["not-text"](shown) };
  }
  const plan = planEdit(text, edit, shown);
  if (!plan.ok) return { shown, hunks: undefined, note: undefined, failure: editFailureReasons[plan.failure](shown) };
  if (text === undefined) return { shown, hunks: diffHunks("", plan.text), note: `new file, ${describeLines(plan.text)}` };
  return { shown, hunks: diffHunks(text, plan.text), note: undefined };
}

async function readCurrent(absolute: string): Promise<Buffer | "missing" | "too large"> {
  try {
    if ((await stat(absolute)).size > maxPreviewBytes) return "too large";
    return await readFile(absolute);
  } catch {
    return "missing";
  }
}

/**
 * The line diff of two texts as hunks, each change with three kept lines around it (nearby changes share a hunk).
 * CRLF counts as LF. A diff that takes too long (two large, different texts) is shown as every line replaced.
 */
export function diffHunks(oldText: string, newText: string): DiffHunk[] {
  const patch = diff().structuredPatch("", "", oldText, newText, undefined, undefined, {
    context: contextLines,
    stripTrailingCr: true,
    timeout: diffTimeoutMs,
  });
  if (!patch) return replaceEverything(oldText, newText);
  return patch.hunks.map((hunk) => {
    let oldNumber = hunk.oldStart;
    let newNumber = hunk.newStart;
    const lines: DiffHunk = [];
    for (const line of hunk.lines) {
      const kind = line[0];
      const text = line.slice(1);
      // "\ No newline at end of file" is a note about the line before, not a line.
      if (kind === " ") lines.push({ kind, text, oldNumber: oldNumber++, newNumber: newNumber++ });
      else if (kind === "-") lines.push({ kind, text, oldNumber: oldNumber++, newNumber: undefined });
      else if (kind === "+") lines.push({ kind, text, oldNumber: undefined, newNumber: newNumber++ });
    }
    return lines;
  });
}

function replaceEverything(oldText: string, newText: string): DiffHunk[] {
  const lines = (text: string) => text.split(/\r?\n/).slice(0, text.endsWith("\n") ? -1 : undefined);
  const removed = lines(oldText).map((text, index): DiffLine => ({ kind: "-", text, oldNumber: index + 1, newNumber: undefined }));
  const added = lines(newText).map((text, index): DiffLine => ({ kind: "+", text, oldNumber: undefined, newNumber: index + 1 }));
  return removed.length + added.length === 0 ? [] : [[...removed, ...added]];
}

/** The change drawn for a terminal: numbered diff lines in red and green, hunks apart, long diffs cut. */
export function formatFileChange(change: FileChange, style: Style, columns: number): string[] {
  const output: string[] = [];
  if (change.note) output.push(style.dim(`  (${change.note})`));
  if (change.failure)
    output.push(
      ...wrapToWidth(`Will fail: ${printable(change.failure)}`, columns - 1, { indent: "  ", hangingIndent: "    " }).map((line) =>
        style.yellow(line),
      ),
    );
  const hunks = change.hunks;
  if (!hunks) return output;
  const largest = hunks.flat().reduce((most, line) => Math.max(most, line.newNumber ?? line.oldNumber ?? 0), 1);
  const width = String(largest).length;
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

function describeLines(text: string): string {
  const count = countLines(text);
  return `${count} line${count === 1 ? "" : "s"}`;
}
