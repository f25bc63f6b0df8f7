import type { Dirent } from "node:fs";
import { readdir, stat } from "node:fs/promises";
import { dirname, join } from "node:path";
import { toOneLine } from "../../text.js";
import { findFileReferences } from "./command-parts.js";
import { type CommandToolParts, readWithReadTool } from "./command-tools.js";

/** A file or folder a prompt's `@path` brought along. */
export type AttachedFile =
  /** A file, as the Read tool shows it; `lines` is how many of its lines went in. */
  | { kind: "file"; path: string; lines: number }
  /** A folder's listing (one level); `entries` is how many it lists. */
  | { kind: "folder"; path: string; entries: number };

/** What a prompt's `@path` mentions bring: blocks to send after the prompt, and what to tell the person. */
export type FileMentions = {
  /** The mentions attached, in the order they appear (paths as the workspace shows them, folders ending in `/`). */
  attached: readonly AttachedFile[];
  /** Mentions not attached, one line each saying why (outside the workspace, denied, not there). */
  notes: readonly string[];
  /** What goes after the prompt: a `<file path="…">` or `<folder path="…">` block per mention, `[note]` per refusal. */
  blocks: readonly string[];
};

/**
 * What a mention names, read: its block's text with what it is, why it is not attached (`{ note }`), or undefined
 * when the `@` names nothing that could be a file (`@types/node` in prose), which leaves it as text.
 */
export type MentionReader = (
  path: string,
  options: { signal?: AbortSignal | undefined },
) => Promise<(AttachedFile & { text: string }) | { note: string } | undefined>;

/** Images go as images: the interactive session attaches `@shot.png` itself (image-attachments.ts). */
const imageExtensions = /\.(png|jpe?g|gif|webp)$/i;

/** Most entries a folder mention lists. */
const maxFolderEntries = 200;

/** Folders of version-control systems: not listed (as the file walk leaves them out). */
const versionControlFolders = new Set([".git", ".hg", ".svn", ".bzr", ".jj", ".sl"]);

/**
 * The files and folders a prompt mentions as `@path` (the forms {@link findFileReferences} reads: `@src/a.ts`,
 * `@docs/`, `@"name with spaces.md"`), each read once with `read`: a file's contents as the Read tool gives them in a
 * `<file path="…">` block (the form a custom command's `@path` takes), a folder's listing in a `<folder path="…">`
 * block. Image files are left to the caller; `skip` leaves out others (`@server:uri` resource mentions).
 */
export async function attachFileMentions(
  text: string,
  read: MentionReader,
  options: { signal?: AbortSignal | undefined; skip?: ((reference: string) => boolean) | undefined } = {},
): Promise<FileMentions> {
  const attached: AttachedFile[] = [];
  const notes: string[] = [];
  const blocks: string[] = [];
  for (const reference of findFileReferences(text)) {
    if (imageExtensions.test(reference) || options.skip?.(reference)) continue;
    const outcome = await read(reference, { signal: options.signal });
    if (outcome === undefined) continue;
    if ("note" in outcome) {
      notes.push(outcome.note);
      blocks.push(`[${outcome.note}]`);
      continue;
    }
    const { text: content, ...file } = outcome;
    if (attached.some((earlier) => earlier.path === file.path)) continue; // `@src/a.ts` and `@./src/a.ts`
    attached.push(file);
    blocks.push(`<${file.kind} path="${escapeAttribute(file.path)}">\n${content.trimEnd()}\n</${file.kind}>`);
  }
  return { attached, notes, blocks };
}

/**
 * The agent's way to read mentions: the path must lie in the workspace; a file is read with the agent's own Read
 * tool, judged by its `canUseTool` as the model's call would be (a `Read(…)` deny rule refuses it); a folder is
 * listed one level deep, at most 200 entries, leaving out what a deny rule covers (as Glob and Grep do).
 */
export function createMentionReader(parts: CommandToolParts & { permissions: { isReadDenied(path: string): boolean } }): MentionReader {
  return async (path, { signal }) => {
    let absolute: string;
    try {
      absolute = await parts.workspace.resolve(path);
    } catch (error) {
      return { note: `@${path} was not attached: ${oneLine(error)}` };
    }
    const info = await stat(absolute).catch(() => undefined);
    if (!info) {
      // `@types/node` or `@Component` in prose names no file: only a path whose folder is there is worth a note.
      const folder = await stat(dirname(absolute)).catch(() => undefined);
      return folder?.isDirectory() && /[./]/.test(path) ? { note: `@${path} was not attached: there is no such file.` } : undefined;
    }
    const shown = parts.workspace.display(absolute) || ".";
    if (info.isDirectory()) {
      if (parts.permissions.isReadDenied(absolute)) return { note: `@${path} was not attached: a Read deny rule covers it.` };
      const listing = await listFolder(absolute, parts.permissions);
      return { kind: "folder", path: shown === "." ? "./" : `${shown}/`, entries: listing.entries, text: listing.text };
    }
    const outcome = await readWithReadTool(parts, absolute, signal);
    if ("note" in outcome) return { note: `@${path} was not attached: ${outcome.note}` };
    return { kind: "file", path: shown, lines: countNumberedLines(outcome.content), text: outcome.content };
  };
}

/** A folder's entries, sorted, folders with a trailing `/`; what a deny rule covers left out. */
async function listFolder(
  absolute: string,
  permissions: { isReadDenied(path: string): boolean },
): Promise<{ text: string; entries: number }> {
  const entries: Dirent[] = await readdir(absolute, { withFileTypes: true }).catch(() => []);
  const names = entries
    .filter((entry) => !versionControlFolders.has(entry.name) && !permissions.isReadDenied(join(absolute, entry.name)))
    .map((entry) => (entry.isDirectory() ? `${entry.name}/` : entry.name))
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  if (names.length === 0) return { text: "(empty folder)", entries: 0 };
  const shown = names.slice(0, maxFolderEntries);
  const more = names.length - shown.length;
  const text = more > 0 ? `${shown.join("\n")}\n[and ${more} more entries]` : shown.join("\n");
  return { text, entries: names.length };
}

/** Lines of the Read tool's output, which numbers them like `cat -n` (`     1\tfirst line`). */
function countNumberedLines(output: string): number {
  return output.split("\n").filter((line) => /^\s*\d+\t/.test(line)).length;
}

function escapeAttribute(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");
}

function oneLine(error: unknown): string {
  return toOneLine(error instanceof Error ? error.message : String(error), 300);
}
