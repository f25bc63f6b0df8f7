import { homedir } from "node:os";
import { isAbsolute, join, relative, resolve, sep } from "node:path";

/** The memory files' names, in the order they are read in each directory: the cross-tool convention, then minagent's own. */
export const memoryFileNames: readonly string[] = Object.freeze(["AGENTS.md", "MINAGENT.md"]);

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
};

/**
 * Every place a memory file may be, in the order they are read (most general first, so that a later file is the
 * more specific one): `~/.minagent/AGENTS.md`, `~/.minagent/MINAGENT.md`, then `AGENTS.md` and `MINAGENT.md` in the
 * project root, then in each directory below it down to the working directory.
 */
export function memoryFileLocations(options: MemoryLocationOptions): MemoryFileLocation[] {
  const root = resolve(options.root);
  const locations: MemoryFileLocation[] = [];
  if (options.userDirectory !== false) {
    const userDirectory = resolve(options.userDirectory ?? join(homedir(), ".minagent"));
    for (const name of memoryFileNames) locations.push({ path: join(userDirectory, name), scope: "user", folder: userDirectory });
  }
  for (const directory of directoriesDown(root, resolve(root, options.cwd ?? root)))
    for (const name of memoryFileNames) locations.push({ path: join(directory, name), scope: "project", folder: root });
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
