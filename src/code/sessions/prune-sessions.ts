import { readdir, rm, stat } from "node:fs/promises";
import { join } from "node:path";

/**
 * Deletes the session files under `<directory>/projects/` last written more than `days` days ago — Claude Code's
 * `cleanupPeriodDays`, which keeps transcripts that long after their last activity. A session whose lock file
 * exists (a process may be writing it) is kept. Returns the files deleted; a file that cannot be looked at or
 * deleted is left as it is (pruning never stops a session from starting).
 */
export async function pruneSessions(directory: string, days: number, now = Date.now()): Promise<string[]> {
  const cutoff = now - days * 24 * 60 * 60 * 1000;
  const projects = join(directory, "projects");
  const deleted: string[] = [];
  const folders = await readdir(projects).catch(() => [] as string[]);
  for (const folder of folders) {
    const names = await readdir(join(projects, folder)).catch(() => [] as string[]);
    for (const name of names.filter((name) => name.endsWith(".jsonl"))) {
      const file = join(projects, folder, name);
      const lock = join(directory, "session-locks", `${name.slice(0, -".jsonl".length)}.lock`);
      const [stats, locked] = await Promise.all([
        stat(file).catch(() => undefined),
        stat(lock).then(
          () => true,
          () => false,
        ),
      ]);
      if (!stats?.isFile() || stats.mtimeMs >= cutoff || locked) continue;
      if (
        await rm(file).then(
          () => true,
          () => false,
        )
      )
        deleted.push(file);
    }
  }
  return deleted;
}
