import { appendFileSync, mkdirSync } from "node:fs";
import { readFile, rename, rm, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import type { Checkpoint, FileChange } from "./checkpoint-types.js";

/**
 * A session's checkpoints on disk: JSON Lines, appended as they happen (synchronously, as the session file is, so
 * that a process killed right after a change loses nothing of it). The first line names the session; then a
 * `checkpoint` line for each checkpoint and a `change` line for each change, under the last checkpoint before it.
 * A torn last line (a kill during a write) is skipped by the reader. Rewritten whole (beside, then renamed) only
 * when old checkpoints are pruned.
 */
export type CheckpointLogLine =
  | { type: "session"; version: 1; sessionId: string; forkedFrom?: string | undefined }
  | ({ type: "checkpoint" } & Omit<Checkpoint, "changes">)
  | ({ type: "change"; checkpoint: string } & FileChange)
  | { type: "pruned"; through: number; at: string };

/** A log as read: its checkpoints with their changes, and the last number pruned (0: none). */
export type ReadLog = {
  sessionId: string | undefined;
  forkedFrom: string | undefined;
  checkpoints: Checkpoint[];
  prunedThrough: number;
  /** The file does not end with a line break: its last line was torn by a crash. */
  torn: boolean;
};

/** Appends lines to a log, creating it (and its folder) on the first. */
export function appendLogLines(file: string, lines: readonly CheckpointLogLine[]): void {
  if (lines.length === 0) return;
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  appendFileSync(file, lines.map((line) => `${JSON.stringify(line)}\n`).join(""), { mode: 0o600 });
}

/** Reads a log; a missing file is an empty log. Damaged lines are skipped: a log only ever loses what they held. */
export async function readLog(file: string): Promise<ReadLog> {
  const text = await readFile(file, "utf8").catch(() => "");
  const log: ReadLog = {
    sessionId: undefined,
    forkedFrom: undefined,
    checkpoints: [],
    prunedThrough: 0,
    torn: text !== "" && !text.endsWith("\n"),
  };
  const byId = new Map<string, Checkpoint>();
  for (const raw of text.split("\n")) {
    if (raw === "") continue;
    let line: CheckpointLogLine;
    try {
      line = JSON.parse(raw) as CheckpointLogLine;
    } catch {
      continue;
    }
    if (line.type === "session") {
      log.sessionId = line.sessionId;
      log.forkedFrom = line.forkedFrom;
    } else if (line.type === "checkpoint" && typeof line.id === "string") {
      const { type: _type, ...fields } = line;
      const checkpoint: Checkpoint = { ...fields, changes: [] };
      byId.set(checkpoint.id, checkpoint);
      log.checkpoints.push(checkpoint);
    } else if (line.type === "change" && typeof line.path === "string") {
      const { type: _type, checkpoint, ...change } = line;
      byId.get(checkpoint)?.changes.push(change);
    } else if (line.type === "pruned" && Number.isInteger(line.through)) {
      log.prunedThrough = Math.max(log.prunedThrough, line.through);
      log.checkpoints = log.checkpoints.filter((checkpoint) => checkpoint.number > line.through);
    }
  }
  return log;
}

/** The lines that write `checkpoints` whole: for a fork's first log, or a log rewritten after pruning. */
export function linesOf(
  header: { sessionId: string; forkedFrom?: string | undefined },
  checkpoints: readonly Checkpoint[],
  prunedThrough: number,
): CheckpointLogLine[] {
  const lines: CheckpointLogLine[] = [{ type: "session", version: 1, ...header }];
  if (prunedThrough > 0) lines.push({ type: "pruned", through: prunedThrough, at: new Date().toISOString() });
  for (const { changes, ...checkpoint } of checkpoints) {
    lines.push({ type: "checkpoint", ...checkpoint });
    for (const change of changes) lines.push({ type: "change", checkpoint: checkpoint.id, ...change });
  }
  return lines;
}

/** Writes a log whole: beside it first, then renamed over it, so that a crash leaves the old log or the new one. */
export async function rewriteLog(file: string, lines: readonly CheckpointLogLine[]): Promise<void> {
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, lines.map((line) => `${JSON.stringify(line)}\n`).join(""), { mode: 0o600 });
  await rename(temporary, file);
}

/** Deletes a log. */
export async function removeLog(file: string): Promise<void> {
  await rm(file, { force: true });
}
