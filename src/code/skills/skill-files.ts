import { lstat, open, readdir, realpath, stat } from "node:fs/promises";
import { isAbsolute, join, relative, sep } from "node:path";
import { ToolError } from "../../errors.js";
import { formatNumber } from "../../text.js";

/** A file of a skill's folder besides SKILL.md, by its path inside the folder (`/` between parts). */
export type SkillFileEntry = { path: string; bytes: number };

/** Files listed at most (a skill with more names its important ones in SKILL.md). */
const maxListed = 100;
/** Folders below the skill's followed at most. */
const maxDepth = 4;
/** Characters of a file returned at most: Read's budget (about 25,000 tokens). */
export const maxSkillFileCharacters = 100_000;

/**
 * The files of a skill's folder besides its SKILL.md, by path: hidden files and folders (`.git`) and `node_modules`
 * are left out, and so is a symbolic link leading outside the folder. At most 100 files, 4 folders deep; `more`
 * counts those left out.
 */
export async function listSkillFiles(folder: string): Promise<{ files: SkillFileEntry[]; more: number }> {
  const root = await realpath(folder);
  const files: SkillFileEntry[] = [];
  let more = 0;
  const walk = async (directory: string, depth: number): Promise<void> => {
    const names = (await readdir(directory).catch(() => [] as string[])).sort();
    for (const name of names) {
      if (name.startsWith(".") || name === "node_modules") continue;
      const path = join(directory, name);
      const entry = await followInside(root, path);
      if (entry === undefined) continue;
      if (entry.isDirectory()) {
        if (depth < maxDepth) await walk(path, depth + 1);
        continue;
      }
      if (!entry.isFile() || (directory === folder && name === "SKILL.md")) continue;
      if (files.length >= maxListed) more++;
      else files.push({ path: relative(folder, path).split(sep).join("/"), bytes: entry.size });
    }
  };
  await walk(folder, 0);
  return { files, more };
}

/** What {@link readSkillFile} checks besides the folder. */
export type ReadSkillFileOptions = {
  /** Whether a `Read(…)` deny rule covers the path: such a file is refused, as Read would refuse it. */
  isReadDenied?: ((path: string) => boolean) | undefined;
};

/**
 * One file of a skill's folder, by its path inside it (`reference.md`, `scripts/fill.py`): an absolute path, `..`,
 * or a symbolic link leading out of the folder is refused, and so is a binary file or one a Read deny rule covers.
 * A file over 100,000 characters is cut, with a line saying so. Throws a ToolError the model reads.
 */
export async function readSkillFile(folder: string, path: string, options: ReadSkillFileOptions = {}): Promise<string> {
  const written = path.trim();
  if (written === "") throw new ToolError("`file` is empty: give a path inside the skill's folder, e.g. reference.md.");
  if (isAbsolute(written) || /^[A-Za-z]:/.test(written) || written.startsWith("\\"))
    throw new ToolError(`\`file\` must be a path inside the skill's folder (e.g. reference.md), not an absolute path: ${written}`);
  if (written.split(/[\\/]/).includes(".."))
    throw new ToolError(`\`file\` may not leave the skill's folder with "..": ${written}. Give a path inside it, as the skill lists them.`);
  const root = await realpath(folder);
  const full = join(folder, written);
  const real = await realpath(full).catch(() => undefined);
  const entry = real === undefined ? undefined : await stat(real).catch(() => undefined);
  if (real === undefined || entry === undefined)
    throw new ToolError(`The skill has no file ${written}. Its files are listed when the skill is loaded.`);
  // Any part of the path may be a link (a folder linked to ~/.ssh): where it really leads must be inside.
  if (!isInside(root, real)) throw new ToolError(`${written} leads outside the skill's folder through a symbolic link; it is not read.`);
  if (entry.isDirectory()) throw new ToolError(`${written} is a folder; give one of the files in it, as the skill lists them.`);
  if (options.isReadDenied?.(full) || options.isReadDenied?.(real))
    throw new ToolError(`Permission denied: a Read deny rule covers ${full}. Do not try to get around it.`);
  return readText(real, written, entry.size);
}

function isInside(root: string, path: string): boolean {
  const inside = relative(root, path);
  return inside !== "" && !inside.startsWith("..") && !isAbsolute(inside);
}

/** The file's stat if `path`, its symbolic links followed, stays inside `root` (a real path); otherwise undefined. */
async function followInside(root: string, path: string) {
  const own = await lstat(path).catch(() => undefined);
  if (own === undefined) return undefined;
  if (!own.isSymbolicLink()) return own;
  const real = await realpath(path).catch(() => undefined);
  if (real === undefined || !isInside(root, real)) return undefined;
  return stat(real).catch(() => undefined);
}

async function readText(path: string, shown: string, bytes: number): Promise<string> {
  // A UTF-8 character is at most 4 bytes: this many bytes hold at least the characters returned.
  const wanted = Math.min(bytes, maxSkillFileCharacters * 4);
  const handle = await open(path, "r");
  let buffer: Buffer;
  try {
    buffer = Buffer.alloc(wanted);
    const { bytesRead } = await handle.read(buffer, 0, wanted, 0);
    buffer = buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
  if (buffer.subarray(0, 8192).includes(0))
    throw new ToolError(
      `${shown} is a binary file (${formatNumber(bytes)} bytes): use it with Bash (run it, or convert it) rather than reading it.`,
    );
  const text = buffer.toString("utf8");
  if (text.length <= maxSkillFileCharacters && wanted === bytes) return text;
  const end = maxSkillFileCharacters - (/[\uD800-\uDBFF]/.test(text.charAt(maxSkillFileCharacters - 1)) ? 1 : 0);
  return `${text.slice(0, end)}\n…[${shown} is ${formatNumber(bytes)} bytes; the first ${formatNumber(end)} characters are shown. To see more, search or page through ${path} with Bash (grep -n, sed -n).]`;
}
