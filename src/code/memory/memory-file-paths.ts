import { homedir } from "node:os";
import { isAbsolute, join, relative, resolve, sep } from "node:path";

/**
 * The memory files' names, in the order they are read in each directory: Claude Code's, the cross-tool convention,
 * then minagent's own (a later file is read as the more specific, so ours comes last).
 */
export const memoryFileNames: readonly string[] = Object.freeze(["CLAUDE.md", "AGENTS.md", "MINAGENT.md"]);

/** Claude Code's personal memory file of a project, read after the project root's shared ones (it is not in version control). */
const localMemoryFileName = "CLAUDE.local.md";

/** Where a memory file comes from. */
export type MemoryScope = "user" | "project";

/** A place a memory file may be. */
export type MemoryFileLocation = {
  path: string;
  scope: MemoryScope;
  /**
   * The folder the file's real path (symbolic links followed) must lie in, or it is not read: the project root for
   * a project file, the user's minagent folder for a user file. A repository's `AGENTS.md -> ~/.aws/credentials`
   * must not put the credentials into the system prompt.
   */
  folder: string;
  /** What `folder` is, for the note when a file is not read (default: the project root, or the user's minagent folder). */
  folderName?: string | undefined;
};

/** Settings of the project memory: where to look. */
export type MemoryLocationOptions = {
  /** The project root (a coding agent's workspace root). */
  root: string;
  /**
   * The working directory: files are read in every directory from the root down to it (default: the root). A
   * directory outside the root adds nothing: only the root's files are read.
   */
  cwd?: string | undefined;
  /**
   * The user's minagent folder, whose `AGENTS.md` and `MINAGENT.md` apply to every project (default `~/.minagent`;
   * the CLI passes its data folder, `MINAGENT_HOME`); `false` reads none.
   */
  userDirectory?: string | false | undefined;
  /** Claude Code's folder of the user's (`~/.claude`, or `CLAUDE_CONFIG_DIR`): its `CLAUDE.md` is read first. Default: none. */
  claudeDirectory?: string | undefined;
};

/**
 * Every place a memory file may be, in the order they are read (most general first, so that a later file is the
 * more specific one): `~/.claude/CLAUDE.md` (with `claudeDirectory`), `~/.minagent/AGENTS.md`, `~/.minagent/MINAGENT.md`,
 * then `CLAUDE.md`, `AGENTS.md`, `MINAGENT.md` and `CLAUDE.local.md` in the project root, then `CLAUDE.md`,
 * `AGENTS.md` and `MINAGENT.md` in each directory below it down to the working directory.
 */
export function memoryFileLocations(options: MemoryLocationOptions): MemoryFileLocation[] {
  const root = resolve(options.root);
  const locations: MemoryFileLocation[] = [];
  if (options.claudeDirectory !== undefined) {
    const claudeDirectory = resolve(options.claudeDirectory);
    locations.push({ path: join(claudeDirectory, "CLAUDE.md"), scope: "user", folder: claudeDirectory });
  }
  if (options.userDirectory !== false) {
    const userDirectory = resolve(options.userDirectory ?? join(homedir(), ".minagent"));
    for (const name of memoryFileNames.filter((name) => name !== "CLAUDE.md"))
      locations.push({ path: join(userDirectory, name), scope: "user", folder: userDirectory });
  }
  for (const directory of directoriesDown(root, resolve(root, options.cwd ?? root))) {
    for (const name of memoryFileNames) locations.push({ path: join(directory, name), scope: "project", folder: root });
    if (directory === root) locations.push({ path: join(root, localMemoryFileName), scope: "project", folder: root });
  }
  return locations;
}

/** The root, then each directory on the way down to `cwd` (only the root when `cwd` is not inside it). */
function directoriesDown(root: string, cwd: string): string[] {
  const inside = relative(root, cwd);
  if (inside === "" || inside.startsWith("..") || isAbsolute(inside)) return [root];
  const directories = [root];
  let current = root;
  for (const segment of inside.split(sep)) {
    current = join(current, segment);
    directories.push(current);
  }
  return directories;
}
