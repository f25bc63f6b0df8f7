import { readdir, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import { BlobStore } from "./blob-store.js";
import { readLog } from "./checkpoint-log.js";
import { WorkspaceManifest } from "./workspace-manifest.js";

/** What {@link pruneCheckpointStore} looks at. */
export type PruneCheckpointsOptions = {
  /** Whether a session still exists: the checkpoints of one that does not are deleted. */
  sessionExists: (sessionId: string) => boolean;
  /** The most the blobs may take; beyond, the oldest sessions' checkpoints go until they fit (default 2 GiB). */
  maxStoreBytes?: number | undefined;
  /** Sessions whose checkpoints must stay whatever the cap (the one being opened). */
  keep?: readonly string[] | undefined;
  /** Sweep even when nothing marked the store for it. */
  force?: boolean | undefined;
};

/** What was freed: the sessions whose checkpoints were deleted (gone, or pruned for the cap), and the bytes. */
export type PrunedCheckpoints = { deletedSessions: string[]; prunedForCap: string[]; freedBytes: number; keptBytes: number };

/**
 * Frees the checkpoint store: deletes the logs of sessions that no longer exist, then the contents no log and no
 * workspace manifest refers to; over `maxStoreBytes`, deletes the oldest logs (by last change) until the rest fits,
 * and says which. A sweep runs only when something marked it due (a session's checkpoints pruned) or a log was
 * deleted, so that a start with nothing to free reads no logs.
 */
export async function pruneCheckpointStore(directory: string, options: PruneCheckpointsOptions): Promise<PrunedCheckpoints> {
  const sessions = join(directory, "sessions");
  const names = (await readdir(sessions).catch(() => [] as string[])).filter((name) => name.endsWith(".jsonl"));
  const pruned: PrunedCheckpoints = { deletedSessions: [], prunedForCap: [], freedBytes: 0, keptBytes: 0 };
  for (const name of names) {
    const sessionId = name.slice(0, -".jsonl".length);
    if (options.sessionExists(sessionId) || options.keep?.includes(sessionId)) continue;
    await rm(join(sessions, name), { force: true });
    pruned.deletedSessions.push(sessionId);
  }
  const due = await stat(join(directory, "sweep-due")).then(
    () => true,
    () => false,
  );
  if (!due && !options.force && pruned.deletedSessions.length === 0) return pruned;
  const maxStoreBytes = options.maxStoreBytes ?? 2 * 1024 * 1024 * 1024;
  const blobs = new BlobStore(join(directory, "blobs"));
  for (;;) {
    const { freedBytes, keptBytes } = await blobs.sweep(await liveHashes(directory, blobs));
    pruned.freedBytes += freedBytes;
    pruned.keptBytes = keptBytes;
    if (keptBytes <= maxStoreBytes) break;
    const oldest = await oldestLog(sessions, options.keep ?? []);
    if (oldest === undefined) break;
    await rm(join(sessions, `${oldest}.jsonl`), { force: true });
    pruned.prunedForCap.push(oldest);
  }
  await rm(join(directory, "sweep-due"), { force: true });
  return pruned;
}

/** Every hash a log or a workspace manifest refers to. */
async function liveHashes(directory: string, blobs: BlobStore): Promise<Set<string>> {
  const live = new Set<string>();
  const sessions = join(directory, "sessions");
  for (const name of await readdir(sessions).catch(() => [] as string[])) {
    if (!name.endsWith(".jsonl")) continue;
    const log = await readLog(join(sessions, name));
    for (const checkpoint of log.checkpoints)
      for (const change of checkpoint.changes)
        for (const state of [change.before, change.after]) if (state?.hash !== undefined) live.add(state.hash);
  }
  const workspaces = join(directory, "workspaces");
  for (const name of await readdir(workspaces).catch(() => [] as string[])) {
    if (!name.endsWith(".json")) continue;
    const manifest = await WorkspaceManifest.load(join(workspaces, name), { blobs, maxFileBytes: 0 });
    for (const hash of manifest.hashes()) live.add(hash);
  }
  return live;
}

async function oldestLog(sessions: string, keep: readonly string[]): Promise<string | undefined> {
  let oldest: { id: string; mtimeMs: number } | undefined;
  for (const name of await readdir(sessions).catch(() => [] as string[])) {
    const id = name.slice(0, -".jsonl".length);
    if (!name.endsWith(".jsonl") || keep.includes(id)) continue;
    const info = await stat(join(sessions, name)).catch(() => undefined);
    if (info && (!oldest || info.mtimeMs < oldest.mtimeMs)) oldest = { id, mtimeMs: info.mtimeMs };
  }
  return oldest?.id;
}
