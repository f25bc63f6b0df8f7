import { lstat, readdir, realpath } from "node:fs/promises";
import { join } from "node:path";

/** Files and folders commands may not read: `filesystem.denyRead` and what `Read(…)` deny rules cover. */
export type ReadDenial = {
  /** Whether the absolute path is denied (a denied folder is hidden whole). */
  isDenied(path: string): boolean;
  /** Whether the folder is denied as a whole, as everything in it would be (`secrets/**`); default {@link isDenied}. */
  isDeniedDirectory?(directory: string): boolean;
  /** Whether anything at or below the absolute folder may be denied: folders where it cannot are not walked. */
  mayDenyInside(directory: string): boolean;
};

/** What {@link findDeniedPaths} found: paths to hide, by kind. */
export type DeniedPaths = { files: string[]; directories: string[]; truncated: boolean };

// Walked for patterns that match at any depth only where a secret a rule names could be: not inside git's object
// store or installed packages, which would make every command pay for a walk of thousands of folders.
const unwalked = new Set([".git", "node_modules"]);

/**
 * Walks from `/` down only the folders a denial may reach, and lists what it denies: each denied file and folder,
 * by its real path (a link is not followed; the file it leads to is found where it really is, if a denial reaches
 * there). Stops after `maxDirectories` folders and says so.
 */
export async function findDeniedPaths(denials: readonly ReadDenial[], options: { maxDirectories?: number } = {}): Promise<DeniedPaths> {
  const found: DeniedPaths = { files: [], directories: [], truncated: false };
  if (denials.length === 0) return found;
  let budget = options.maxDirectories ?? 20_000;
  const isDenied = (path: string) => denials.some((denial) => denial.isDenied(path));
  const isDeniedDirectory = (path: string) => denials.some((denial) => (denial.isDeniedDirectory ?? denial.isDenied)(path));
  const mayDenyInside = (path: string) => denials.some((denial) => denial.mayDenyInside(path));
  const pending = ["/"];
  while (pending.length > 0) {
    const directory = pending.pop() as string;
    if (--budget < 0) {
      found.truncated = true;
      break;
    }
    const entries = await readdir(directory, { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      const path = join(directory, entry.name);
      if (entry.isDirectory()) {
        if (isDeniedDirectory(path)) found.directories.push(path);
        else if (!unwalked.has(entry.name) && mayDenyInside(path)) pending.push(path);
      } else if ((entry.isFile() || entry.isSymbolicLink()) && isDenied(path)) {
        // A denied name that is a link: hide where it leads as well, and the link itself.
        if (entry.isSymbolicLink()) await addLinkTarget(path, found);
        else found.files.push(path);
      }
    }
  }
  return found;
}

async function addLinkTarget(link: string, found: DeniedPaths): Promise<void> {
  const target = await realpath(link).catch(() => undefined);
  if (target === undefined) return;
  const stats = await lstat(target).catch(() => undefined);
  if (stats?.isDirectory()) found.directories.push(target);
  else if (stats?.isFile()) found.files.push(target);
}

/**
 * Literal paths (`filesystem.denyRead`) as denials: each path and what is inside it, by the path as given and by
 * where it really leads.
 */
export async function literalDenials(paths: readonly string[]): Promise<ReadDenial[]> {
  const denials: ReadDenial[] = [];
  for (const given of paths) {
    const real = await realpath(given).catch(() => given);
    for (const path of new Set([given, real]))
      denials.push({
        isDenied: (candidate) => candidate === path || candidate.startsWith(`${path}/`),
        mayDenyInside: (directory) =>
          directory === "/" || path === directory || path.startsWith(`${directory}/`) || directory.startsWith(`${path}/`),
      });
  }
  return denials;
}
