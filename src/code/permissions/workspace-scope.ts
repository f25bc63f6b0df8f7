import { lstatSync, realpathSync } from "node:fs";
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { protectedDirectories } from "./command-kinds.js";

/**
 * The folders the modes may work in without a rule: the workspace root and its added directories. `contains` and
 * `isProtected` judge a path as written (made absolute, `..` resolved); `containsOnDisk` and `followLinks` follow
 * the symbolic links that exist now, as the shell and the Workspace will.
 */
export type WorkspaceScope = {
  readonly root: string;
  readonly directories: readonly string[];
  /** `path` made absolute the way the tools do: relative paths are taken from the root. */
  resolve(path: string): string;
  /** Whether the absolute `path` is one of the directories or inside one. */
  contains(path: string): boolean;
  /**
   * Whether the absolute `path` is inside once symbolic links are followed (for a path that does not exist yet,
   * its nearest existing ancestor's), and not in a protected directory when `writable` is asked for.
   */
  containsOnDisk(path: string, writable: boolean): boolean;
  /**
   * The absolute `path` once symbolic links are followed (the nearest existing ancestor's, for a new file), written
   * from the workspace directory it lies in so that rules anchored there match it; undefined through a dangling link.
   */
  followLinks(path: string): string | undefined;
  /** Whether the absolute `path` is one of the directories itself (removing or moving it is never a mode's call). */
  isDirectory(path: string): boolean;
  /** Whether the absolute `path` lies in a protected directory (`.git`, `.minagent`, `.claude`, `.vscode`, `.idea`) of the workspace. */
  isProtected(path: string): boolean;
};

/** The scope of `root` and `directories` (absolute; the root first). */
export function createWorkspaceScope(root: string, directories: readonly string[]): WorkspaceScope {
  const all = [...new Set([resolve(root), ...directories.map((directory) => resolve(root, directory))])];
  let realDirectories: string[] | undefined;
  const isProtected = (path: string, within: readonly string[]) => {
    const directory = containing(path, within);
    return (
      directory !== undefined &&
      relative(directory, path)
        .split(sep)
        .some((segment) => protectedDirectories.has(segment.toLowerCase()))
    );
  };
  return {
    root: all[0] as string,
    directories: all,
    resolve: (path) => (isAbsolute(path) ? resolve(path) : resolve(all[0] as string, path)),
    contains: (path) => containing(path, all) !== undefined,
    containsOnDisk: (path, writable) => {
      if (containing(path, all) === undefined || (writable && isProtected(path, all))) return false;
      realDirectories ??= all.map((directory) => realPath(directory) ?? directory);
      const real = realPath(path);
      return real !== undefined && containing(real, realDirectories) !== undefined && !(writable && isProtected(real, realDirectories));
    },
    followLinks: (path) => {
      realDirectories ??= all.map((directory) => realPath(directory) ?? directory);
      const real = realPath(path);
      if (real === undefined) return undefined;
      const index = realDirectories.findIndex((directory) => containing(real, [directory]) !== undefined);
      const directory = all[index];
      return directory === undefined ? real : join(directory, relative(realDirectories[index] as string, real));
    },
    isDirectory: (path) => all.includes(path),
    isProtected: (path) => isProtected(path, all),
  };
}

function containing(path: string, directories: readonly string[]): string | undefined {
  return directories.find((directory) => path === directory || path.startsWith(directory.endsWith(sep) ? directory : directory + sep));
}

/** The real path of `path`, or of its nearest existing ancestor joined with the rest; undefined through a dangling link. */
function realPath(path: string): string | undefined {
  const rest: string[] = [];
  let current = path;
  for (;;) {
    try {
      const real = realpathSync.native(current);
      return rest.length === 0 ? real : join(real, ...rest.reverse());
    } catch {
      // A dangling link leads where it points, which is not known to be inside.
      if (lstatSync(current, { throwIfNoEntry: false })?.isSymbolicLink()) return undefined;
      const parent = dirname(current);
      if (parent === current) return path;
      rest.push(current.slice(parent.length + (parent.endsWith(sep) ? 0 : 1)));
      current = parent;
    }
  }
}
