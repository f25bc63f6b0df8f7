import type { Checkpoint, FileChange, FileState, RestoredFile, RewindConflict, RewindPlan } from "./checkpoint-types.js";

/**
 * What rewinding to before `target` restores: every file changed by the session (a tool, or a rewind) in `range`
 * (the target and the checkpoints after it) goes back to its state before the first such change. A file that
 * someone else changed after that (an outside change, or a state on disk that is not the last one recorded) is a
 * conflict: it is not in `files` unless `overwrite`. A file already as it should be is left out; one whose old
 * content was over the size cap cannot be restored and is a conflict of its own. Pure: `live` says what the
 * file is now.
 */
export function planRewind(
  target: Checkpoint,
  range: readonly Checkpoint[],
  live: (path: string) => FileState | null,
  options: { overwrite?: boolean } = {},
): RewindPlan {
  const byPath = new Map<string, FileChange[]>();
  for (const checkpoint of range)
    for (const change of checkpoint.changes) {
      const list = byPath.get(change.path);
      if (list) list.push(change);
      else byPath.set(change.path, [change]);
    }
  const files: RestoredFile[] = [];
  const conflicts: RewindConflict[] = [];
  for (const [path, changes] of byPath) {
    const firstOwn = changes.findIndex((change) => change.by !== "outside");
    if (firstOwn === -1) continue;
    const to = (changes[firstOwn] as FileChange).before;
    const now = live(path);
    if (sameState(now, to)) continue;
    if (to !== null && !to.stored) {
      conflicts.push({ path, reason: "not-stored", description: `${path}: was ${to.size} bytes, over the size cap, so it was not kept` });
      continue;
    }
    const last = (changes.at(-1) as FileChange).after;
    const touchedLater = changes.slice(firstOwn + 1).some((change) => change.by === "outside") || !sameState(now, last);
    if (touchedLater && !options.overwrite) {
      conflicts.push({
        path,
        reason: "changed",
        description: `${path}: changed after the agent's last change to it (by hand, or by another program)`,
      });
      continue;
    }
    files.push({ path, from: now, to });
  }
  files.sort((a, b) => (a.path < b.path ? -1 : 1));
  return { checkpoint: target, files, conflicts };
}

/** Whether two states are the same file content (both absent, or the same bytes and permission bits). */
export function sameState(a: FileState | null, b: FileState | null): boolean {
  if (a === null || b === null) return a === b;
  return a.hash === b.hash && a.size === b.size && a.mode === b.mode && a.stored === b.stored;
}
