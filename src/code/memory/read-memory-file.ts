import { open, realpath, stat } from "node:fs/promises";
import { isAbsolute, relative } from "node:path";
import { formatNumber } from "../../text.js";
import type { MemoryFileLocation, MemoryScope } from "./memory-file-paths.js";

/** One memory file found on disk, as it goes into the system prompt. */
export type MemoryFile = {
  /** Its absolute path (the heading it has in the prompt). */
  path: string;
  /** `user` (`~/.minagent/`) or `project` (the root or a directory below it). */
  scope: MemoryScope;
  /** Its size on disk, in bytes. */
  bytes: number;
  /** What the prompt holds of it: the file (without a byte-order mark or trailing blanks), or its beginning and a note. */
  text: string;
  /** True when it was longer than the limit and was cut. */
  truncated: boolean;
  /** Why it could not be read (it is then left out of the prompt, but listed). */
  error?: string | undefined;
  /** For a file read because another one imports it (`@path`): the importing file's path. */
  importedBy?: string | undefined;
};

/** The UTF-8 bytes `characters` characters can take at most. */
const bytesPerCharacter = 4;
/** A cut goes back to the last line break when that loses at most this share of what is kept. */
const lineSlack = 0.2;

/**
 * Reads one memory file, at most `maxCharacters` of it (a huge file is not read whole): returns undefined when
 * there is no regular file there, and the file with an `error` when it exists but cannot be read — or when its real
 * path lies outside `location.folder` (it is then not read at all).
 */
export async function readMemoryFile(location: MemoryFileLocation, maxCharacters: number): Promise<MemoryFile | undefined> {
  const where = { path: location.path, scope: location.scope };
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(location.path, "r");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR" || code === "EISDIR") return undefined;
    return { ...where, bytes: 0, text: "", truncated: false, error: describe(error) };
  }
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) return undefined;
    const refusal = await checkInside(location, stats);
    if (refusal !== undefined) return { ...where, bytes: stats.size, text: "", truncated: false, error: refusal };
    const limit = Math.min(stats.size, maxCharacters * bytesPerCharacter + bytesPerCharacter);
    const buffer = Buffer.alloc(limit);
    let read = 0;
    while (read < limit) {
      const { bytesRead } = await handle.read(buffer, read, limit - read, read);
      if (bytesRead === 0) break;
      read += bytesRead;
    }
    // A character cut in two at the end of what was read decodes as U+FFFD: drop it.
    let text = new TextDecoder("utf-8").decode(buffer.subarray(0, read)).replace(/^\uFEFF/, "");
    if (read < stats.size) text = text.replace(/\uFFFD$/, "");
    const truncated = text.length > maxCharacters || read < stats.size;
    return {
      ...where,
      bytes: stats.size,
      text: truncated ? cut(text, maxCharacters, location.path, stats.size) : text.trimEnd(),
      truncated,
    };
  } catch (error) {
    return { ...where, bytes: 0, text: "", truncated: false, error: describe(error) };
  } finally {
    await handle.close();
  }
}

/**
 * Why the opened file must not be read, if it must not: its real path is outside the location's folder (both with
 * symbolic links followed), or the path no longer leads to the file that was opened (it was swapped meanwhile).
 */
async function checkInside(location: MemoryFileLocation, opened: { dev: number; ino: number }): Promise<string | undefined> {
  const [real, folder] = await Promise.all([realpath(location.path), realpath(location.folder)]);
  const inside = relative(folder, real);
  if (inside === "" || inside.startsWith("..") || isAbsolute(inside)) {
    const what = location.folderName ?? (location.scope === "project" ? "the project root" : "the user's minagent folder");
    return `Not read: its real path, ${real}, is outside ${what} (${location.folder}).`;
  }
  const current = await stat(real);
  if (current.dev !== opened.dev || current.ino !== opened.ino) return "Not read: the file changed while it was being opened.";
  return undefined;
}

/** The first `maxCharacters` characters (back to a line break when one is near), and a note saying what was left out. */
function cut(text: string, maxCharacters: number, path: string, bytes: number): string {
  let kept = text.slice(0, maxCharacters);
  const lineEnd = kept.lastIndexOf("\n");
  if (lineEnd >= maxCharacters * (1 - lineSlack)) kept = kept.slice(0, lineEnd);
  kept = kept.trimEnd();
  return `${kept}\n\n[Cut: ${path} has ${formatNumber(bytes)} bytes; only its first ${formatNumber(kept.length)} characters are included here (the limit is ${formatNumber(maxCharacters)}). Read the file for the rest.]`;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
