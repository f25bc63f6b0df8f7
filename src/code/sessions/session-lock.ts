import { randomUUID } from "node:crypto";
import { closeSync, linkSync, mkdirSync, openSync, readFileSync, renameSync, unlinkSync, writeSync } from "node:fs";
import { hostname } from "node:os";
import { dirname } from "node:path";
import { UsageError } from "../../errors.js";
import { sessionFileError } from "./session-file-error.js";

/** The process a session's lock names: the one writing the session. */
export type SessionLockHolder = {
  /** Its process id. */
  pid: number;
  /** The machine it runs on (a data directory may be shared over the network). */
  hostname: string;
  /** When it took the lock (ISO 8601). */
  since: string;
};

/**
 * Thrown when a session is written by another running process: two writers would mix their conversations in one
 * file. The message names the process and what to do; `holder` and `lockFile` are there for a caller that words its own.
 */
export class SessionInUseError extends UsageError {
  readonly sessionId: string;
  readonly holder: SessionLockHolder;
  /** The lock file, to delete by hand if its process is not what wrote it (a reused pid). */
  readonly lockFile: string;

  constructor(sessionId: string, holder: SessionLockHolder, lockFile: string, message?: string) {
    super(
      message ??
        `${describeSessionHolder(sessionId, holder)} Wait for it to end, or fork the session to go on in a copy. ${staleHint(holder, lockFile)}`,
    );
    this.sessionId = sessionId;
    this.holder = holder;
    this.lockFile = lockFile;
  }
}

/** "Session <id> is being written by process <pid> (on <host>) since <time>: …", the first sentence of a refusal. */
export function describeSessionHolder(sessionId: string, holder: SessionLockHolder): string {
  const host = holder.hostname === hostname() ? "" : ` on ${holder.hostname}`;
  return `Session ${sessionId} is being written by process ${holder.pid}${host} since ${holder.since}: two processes writing one session would mix their conversations.`;
}

/** What to do when the holder is not what it seems: a reused pid, a machine that is gone. */
export function staleHint(holder: SessionLockHolder, lockFile: string): string {
  return `(If process ${holder.pid} is not minagent, delete ${lockFile}.)`;
}

/** A session's lock as this process holds it. `release` lets another process write the session. */
export class SessionLock {
  /** The lock file. */
  readonly file: string;
  #released = false;

  /** @internal Made by {@link acquireSessionLock}. */
  constructor(file: string) {
    this.file = file;
  }

  /** Gives the lock up (once; again does nothing). The file goes when the last holder in this process releases it. */
  release(): void {
    if (this.#released) return;
    this.#released = true;
    const entry = held.get(this.file);
    if (!entry) return;
    entry.holders -= 1;
    if (entry.holders > 0) return;
    held.delete(this.file);
    removeIfOurs(this.file, entry.token);
  }
}

/** What a lock file holds: the holder, and a token telling this lock from an earlier one of the same pid. */
type LockRecord = SessionLockHolder & { token: string };

/**
 * The locks this process holds, by file. A lock belongs to the process, not to one store: two stores of one process
 * share it (counted, so that the file goes with the last release), and every one is removed when the process exits.
 */
const held = new Map<string, { token: string; holders: number }>();
let releasingOnExit = false;

/**
 * Takes the lock of session `sessionId` for this process: creates `file` holding this process's pid, atomically
 * (written whole under another name, then linked into place, which fails if the file exists). A lock whose process
 * is no longer running (it crashed, or was killed) is taken over; a lock this process already holds is shared.
 * Throws a {@link SessionInUseError} when another running process holds it (a process on another machine is
 * taken to be running: its liveness cannot be checked from here). Released by `release()`, or when the process exits.
 */
export function acquireSessionLock(file: string, sessionId: string): SessionLock {
  const entry = held.get(file);
  if (entry) {
    entry.holders += 1;
    return new SessionLock(file);
  }
  try {
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  } catch (error) {
    throw sessionFileError(error, dirname(file), "create", "folder");
  }
  const record: LockRecord = { pid: process.pid, hostname: hostname(), since: new Date().toISOString(), token: randomUUID() };
  const text = `${JSON.stringify(record)}\n`;
  // A few rounds: each ends with the lock taken, a refusal, or a stale lock moved away (then the next round tries again).
  for (let round = 0; round < 5; round++) {
    if (createLockFile(file, text)) {
      held.set(file, { token: record.token, holders: 1 });
      if (!releasingOnExit) {
        releasingOnExit = true;
        process.once("exit", releaseAll);
      }
      return new SessionLock(file);
    }
    const found = readLock(file);
    if (found === undefined) continue; // released meanwhile
    if (found.record && isHeldByAnother(found.record)) throw new SessionInUseError(sessionId, holderOf(found.record), file);
    takeOverStale(file, found.text);
  }
  throw new UsageError(`Could not take the lock ${file} of session ${sessionId}: other processes kept replacing it. Try again.`);
}

/** Creates the lock file whole, or returns false when one exists. */
function createLockFile(file: string, text: string): boolean {
  const temporary = `${file}.${process.pid}.${randomUUID().slice(0, 8)}.tmp`;
  try {
    writeWhole(temporary, text);
  } catch (error) {
    throw sessionFileError(error, file, "create", "lock file");
  }
  try {
    linkSync(temporary, file);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EEXIST") return false;
    // A file system without hard links (FAT, some network shares): create the file exclusively and write it. A
    // reader may then see it empty for a moment; it reads again before judging (readLock).
    if (code === "EPERM" || code === "ENOTSUP" || code === "EOPNOTSUPP" || code === "ENOSYS") return createExclusively(file, text);
    throw sessionFileError(error, file, "create", "lock file");
  } finally {
    try {
      unlinkSync(temporary);
    } catch {}
  }
}

function createExclusively(file: string, text: string): boolean {
  try {
    writeWhole(file, text, "wx");
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw sessionFileError(error, file, "create", "lock file");
  }
}

function writeWhole(path: string, text: string, flags = "wx"): void {
  const fd = openSync(path, flags, 0o600);
  try {
    const bytes = Buffer.from(text, "utf8");
    for (let written = 0; written < bytes.length; ) written += writeSync(fd, bytes, written, bytes.length - written);
  } finally {
    closeSync(fd);
  }
}

/** The lock file's text and what it says (undefined when damaged); undefined when there is no lock file. */
function readLock(file: string): { text: string; record: LockRecord | undefined } | undefined {
  for (let attempt = 0; ; attempt++) {
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw sessionFileError(error, file, "read", "lock file");
    }
    const record = parseLock(text);
    // Only a lock being written without hard links is ever seen incomplete, and only for a moment.
    if (record || attempt === 2) return { text, record };
    sleepSync(10);
  }
}

function parseLock(text: string): LockRecord | undefined {
  try {
    const value = JSON.parse(text) as Partial<LockRecord> | null;
    if (
      value !== null &&
      typeof value === "object" &&
      Number.isInteger(value.pid) &&
      (value.pid as number) > 0 &&
      typeof value.hostname === "string" &&
      typeof value.since === "string" &&
      typeof value.token === "string"
    )
      return value as LockRecord;
  } catch {}
  return undefined;
}

/**
 * Whether another running process holds the lock. This process's own pid in a lock it does not hold is a lock left
 * by an earlier process that had the same pid (containers start their processes at the same pids): stale.
 */
function isHeldByAnother(record: LockRecord): boolean {
  if (record.hostname !== hostname()) return true;
  if (record.pid === process.pid) return false;
  return isRunning(record.pid);
}

/** Signal 0 checks that the process exists without touching it; EPERM: it exists, as another user's. */
function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Moves a stale lock out of the way. Two processes may judge the same lock stale at once: the lock is renamed
 * (atomic) to a name of this process's, and if what was moved is not the lock judged stale (another process took
 * it over in between), it is put back.
 */
function takeOverStale(file: string, staleText: string): void {
  const aside = `${file}.${process.pid}.${randomUUID().slice(0, 8)}.stale`;
  try {
    renameSync(file, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return; // taken away by another process already
    throw sessionFileError(error, file, "write", "lock file");
  }
  let moved: string | undefined;
  try {
    moved = readFileSync(aside, "utf8");
  } catch {}
  if (moved !== undefined && moved !== staleText) {
    try {
      linkSync(aside, file); // fails if yet another lock is in place: that one stays
    } catch {}
  }
  try {
    unlinkSync(aside);
  } catch {}
}

function holderOf(record: LockRecord): SessionLockHolder {
  return { pid: record.pid, hostname: record.hostname, since: record.since };
}

/** Removes the lock file if it is still the one this process wrote (not one that replaced it after a takeover). */
function removeIfOurs(file: string, token: string): void {
  try {
    if (parseLock(readFileSync(file, "utf8"))?.token === token) unlinkSync(file);
  } catch {}
}

/** On exit, every lock this process still holds goes (a normal end, `process.exit`, a handled signal). */
function releaseAll(): void {
  for (const [file, entry] of held) removeIfOurs(file, entry.token);
  held.clear();
}

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}
