import { stat } from "node:fs/promises";
import { join } from "node:path";

// Control files of the agent and of git: a command that changed them would change what runs outside the sandbox.
export const controlDirectories = [".minagent", ".claude"];
export const controlFilesIfPresent = [".git/hooks", ".git/config", ".vscode", ".idea"];

/** Which control paths exist (mounted read-only) and which must be held empty so that nothing creates them. */
export async function controlPaths(
  writable: readonly string[],
  protectedHomes: readonly string[],
): Promise<{ readOnly: string[]; missing: string[] }> {
  const readOnly: string[] = [];
  const missing: string[] = [];
  const kinds = await Promise.all(
    writable.flatMap((directory, index) => [
      ...controlDirectories.map(async (name) => ({
        path: join(directory, name),
        exists: await exists(join(directory, name)),
        hold: index === 0,
      })),
      ...controlFilesIfPresent.map(async (name) => ({
        path: join(directory, name),
        exists: await exists(join(directory, name)),
        hold: false,
      })),
    ]),
  );
  for (const { path, exists, hold } of kinds) {
    if (exists) readOnly.push(path);
    else if (hold) missing.push(path);
  }
  // The workspace's .git/hooks is held even before it exists (a new hook would run at the next commit outside). When
  // .git does not exist either, an empty .git is made around the placeholder: git takes a .git without HEAD
  // for no repository, as before, and `git init` fills it (the sandbox points GIT_TEMPLATE_DIR at an empty folder, so
  // it copies no hooks). Both go again after the command if they are still empty.
  const git = join(writable[0] ?? "/", ".git");
  const gitHooks = join(git, "hooks");
  if (!readOnly.includes(gitHooks) && !(await exists(git))) missing.push(git, gitHooks);
  else if (!readOnly.includes(gitHooks) && (await isDirectory(git))) missing.push(gitHooks);
  // The home directory and minagent's own stay read-only where a writable folder holds them (a workspace of `/`), unless
  // they hold a writable folder themselves (a workspace in the home directory), which a read-only mount would hide.
  for (const home of protectedHomes) {
    const heldByWritable = writable.some((directory) => home.startsWith(`${directory === "/" ? "" : directory}/`));
    const holdsWritable = writable.some((directory) => directory === home || directory.startsWith(`${home}/`));
    if (heldByWritable && !holdsWritable && (await exists(home))) readOnly.push(home);
  }
  return { readOnly, missing };
}

export function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

export function isDirectory(path: string): Promise<boolean> {
  return stat(path).then(
    (stats) => stats.isDirectory(),
    () => false,
  );
}
