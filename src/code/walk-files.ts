import type { Dirent } from "node:fs";
import { readdir, readFile, stat } from "node:fs/promises";
import { dirname, join, relative, sep } from "node:path";
import ignore, { type Ignore } from "ignore";
import { toAbortError } from "../errors.js";

/** A file found by {@link walkFiles}. */
export type WalkedFile = {
  /** Absolute path. */
  path: string;
  /** Path relative to the folder walked, with `/` separators (`src/app.ts`). */
  relative: string;
};

/** What {@link walkFiles} walks and whom it tells. */
export type WalkFilesOptions = {
  /** Absolute path of the folder to walk. */
  start: string;
  /**
   * The workspace folder that holds `start`. The .gitignore files between it (or the root of the git repository
   * around it, when there is one) and `start` apply below `start` too.
   */
  boundary: string;
  /** Called once for every file that is not ignored, in no particular order. */
  onFile: (file: WalkedFile) => void;
  /** Stops the walk: it rejects with an AbortError. */
  signal?: AbortSignal | undefined;
  /** Most folders read at once (default 16). */
  concurrency?: number | undefined;
  /** Leaves out a file or folder (a folder is not entered), whatever the ignore files say. `relative` is from `start`. */
  exclude?: ((relative: string, isFolder: boolean) => boolean) | undefined;
  /** `false`: the ignore files do not apply (everything but `exclude` and version-control folders is walked). */
  gitignore?: boolean | undefined;
};

/** Folders of version-control systems, never walked (Claude Code leaves out the same ones). */
const versionControlFolders = new Set([".git", ".hg", ".svn", ".bzr", ".jj", ".sl"]);

/** The rules of one ignore file, and the folder its patterns are relative to. */
type IgnoreRules = { base: string; rules: Ignore };

type PendingFolder = { path: string; relative: string; rules: readonly IgnoreRules[] };

type FolderFilter = Pick<WalkFilesOptions, "exclude" | "gitignore">;

/**
 * Walks a folder tree the way git sees it, for Grep, Glob and `@` completion: every `.gitignore` (and ripgrep's
 * `.ignore`, as Claude Code's search tools respect it) applies to its folder and below (a deeper file wins, `!`
 * re-includes, a folder that is ignored is not entered), as do `.git/info/exclude` and the ignore files above
 * `start` within the repository. Hidden files are
 * included; version-control folders (`.git`…) are not; symbolic links are not followed (neither to files nor
 * to folders: they could lead out of the workspace or round in a circle). When `start` itself is ignored (a
 * search of `node_modules`, asked for by name), the ignore files above it no longer apply, only those inside
 * it. Unreadable folders are skipped. Folders are read concurrently, so files arrive in no particular order.
 */
export async function walkFiles(options: WalkFilesOptions): Promise<void> {
  const { start, onFile, signal } = options;
  const concurrency = options.concurrency ?? 16;
  const rules = options.gitignore === false ? [] : await ancestorRules(start, options.boundary);
  const pending: PendingFolder[] = [{ path: start, relative: "", rules }];
  let active = 0;
  await new Promise<void>((resolve, reject) => {
    const next = (): void => {
      if (signal?.aborted) {
        reject(toAbortError(signal));
        return;
      }
      while (active < concurrency && pending.length > 0) {
        const folder = pending.pop() as PendingFolder;
        active += 1;
        readFolder(folder, pending, onFile, options).then(
          () => {
            active -= 1;
            if (active === 0 && pending.length === 0) resolve();
            else next();
          },
          (error: unknown) => reject(error),
        );
      }
    };
    next();
  });
}

async function readFolder(
  folder: PendingFolder,
  pending: PendingFolder[],
  onFile: (file: WalkedFile) => void,
  filter: FolderFilter,
): Promise<void> {
  let entries: Dirent[];
  try {
    entries = await readdir(folder.path, { withFileTypes: true });
  } catch {
    return; // unreadable or vanished: git skips it too
  }
  const rules = filter.gitignore === false ? folder.rules : await folderRules(folder, entries);
  const prefix = folder.relative === "" ? "" : `${folder.relative}/`;
  for (const entry of entries) {
    const name = entry.name;
    if (versionControlFolders.has(name)) continue; // a .git file (a worktree's, a submodule's) too
    const isFolder = entry.isDirectory();
    if (!isFolder && !entry.isFile()) continue; // links, sockets, devices
    const path = join(folder.path, name);
    const relativePath = prefix + name;
    if (filter.exclude?.(relativePath, isFolder)) continue;
    if (rules.length > 0 && isIgnored(rules, path, isFolder)) continue;
    if (isFolder) pending.push({ path, relative: relativePath, rules });
    else onFile({ path, relative: relativePath });
  }
}

/**
 * The rules in force inside `folder`: its parent's, then `.git/info/exclude`, then its own `.gitignore`, then its
 * `.ignore` (ripgrep's file, which Claude Code's search tools respect; read after the `.gitignore` beside it, as
 * ripgrep reads it).
 */
async function folderRules(folder: PendingFolder, entries: readonly Dirent[]): Promise<readonly IgnoreRules[]> {
  let rules = folder.rules;
  if (entries.some((entry) => entry.name === ".git" && entry.isDirectory()))
    rules = await withRulesFrom(rules, folder.path, join(folder.path, ".git", "info", "exclude"));
  if (entries.some((entry) => entry.name === ".gitignore" && entry.isFile()))
    rules = await withRulesFrom(rules, folder.path, join(folder.path, ".gitignore"));
  if (entries.some((entry) => entry.name === ".ignore" && entry.isFile()))
    rules = await withRulesFrom(rules, folder.path, join(folder.path, ".ignore"));
  return rules;
}

async function withRulesFrom(rules: readonly IgnoreRules[], base: string, file: string): Promise<readonly IgnoreRules[]> {
  const text = await readFile(file, "utf8").catch(() => "");
  if (!/^[ \t]*[^#\s]/m.test(text)) return rules; // nothing but blank lines and comments
  // git compares names case-sensitively (core.ignoreCase is false on Linux); the library's default is not.
  return [...rules, { base, rules: ignore({ ignorecase: false }).add(text) }];
}

/** The deepest ignore file with an opinion decides: ignored, or re-included by a `!` pattern. */
function isIgnored(rules: readonly IgnoreRules[], path: string, isFolder: boolean): boolean {
  for (let index = rules.length - 1; index >= 0; index -= 1) {
    const { base, rules: ignoreFile } = rules[index] as IgnoreRules;
    let relativePath = path.slice(base.length + (base.endsWith(sep) ? 0 : 1));
    if (sep !== "/") relativePath = relativePath.split(sep).join("/");
    const result = ignoreFile.test(isFolder ? `${relativePath}/` : relativePath);
    if (result.ignored) return true;
    if (result.unignored) return false;
  }
  return false;
}

/**
 * The rules that apply inside `start` from the folders above it: from the root of its git repository (or
 * `boundary` when there is no repository) down to `start`'s parent. None when `start` is itself ignored.
 */
async function ancestorRules(start: string, boundary: string): Promise<readonly IgnoreRules[]> {
  const top = (await gitRoot(start)) ?? boundary;
  const fromTop = relative(top, start);
  if (fromTop === "" || fromTop.startsWith("..")) return [];
  const folders = [top];
  for (const part of fromTop.split(sep).slice(0, -1)) folders.push(join(folders.at(-1) as string, part));
  let rules: readonly IgnoreRules[] = await withRulesFrom([], top, join(top, ".git", "info", "exclude"));
  for (const folder of folders) {
    rules = await withRulesFrom(rules, folder, join(folder, ".gitignore"));
    rules = await withRulesFrom(rules, folder, join(folder, ".ignore"));
    const child = folder === folders.at(-1) ? start : (folders[folders.indexOf(folder) + 1] as string);
    if (rules.length > 0 && isIgnored(rules, child, true)) return [];
  }
  return rules;
}

/** The nearest folder at or above `start` that holds a `.git`, if any. */
async function gitRoot(start: string): Promise<string | undefined> {
  for (let folder = start; ; folder = dirname(folder)) {
    if (
      await stat(join(folder, ".git")).then(
        () => true,
        () => false,
      )
    )
      return folder;
    if (dirname(folder) === folder) return undefined;
  }
}
