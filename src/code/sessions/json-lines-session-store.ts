import { createHash } from "node:crypto";
import { closeSync, fstatSync, fsyncSync, mkdirSync, openSync, readdirSync, readSync, writeSync } from "node:fs";
import { open, readdir, readFile, unlink } from "node:fs/promises";
import { homedir } from "node:os";
import { dirname, join, resolve } from "node:path";
import type { Message } from "../../engine.js";
import { UsageError } from "../../errors.js";
import { logFile, markSweepDue } from "../checkpoints/index.js";
import { conversationBefore, readSession, readSessionHeader, summarizeSession } from "./read-session.js";
import { sessionFileError } from "./session-file-error.js";
import { formatSessionLine, type SessionLine } from "./session-format.js";
import { acquireSessionLock, type SessionLock } from "./session-lock.js";
import type { LoadedSession, SessionStore, SessionSummary } from "./session-store.js";

/** Settings of a {@link JsonLinesSessionStore}. */
export type JsonLinesSessionStoreOptions = {
  /** minagent's data directory. Default: the `MINAGENT_HOME` environment variable, else `~/.minagent`. */
  directory?: string | undefined;
  /**
   * Flush every append to the disk (`fsync`), so that sessions survive a power cut or a kernel crash, not only a
   * killed process. It costs a few milliseconds per append (default false).
   */
  fsync?: boolean | undefined;
};

/** The data directory sessions go under: `MINAGENT_HOME`, else `~/.minagent`. */
export function defaultDataDirectory(env: NodeJS.ProcessEnv = process.env): string {
  const configured = env.MINAGENT_HOME;
  return configured ? resolve(configured) : join(homedir(), ".minagent");
}

/**
 * The folder name a working directory's sessions go in: its path with every character other than a letter or a
 * digit replaced by `-` (`/home/me/app` → `-home-me-app`), as Claude Code names them. Different paths may share a
 * name (`/a-b`, `/a/b`): the header's `cwd` tells them apart. A name over 200 characters is cut and given a hash.
 */
export function projectFolderName(cwd: string): string {
  const name = resolve(cwd).replace(/[^A-Za-z0-9]/g, "-");
  if (name.length <= 200) return name;
  return `${name.slice(0, 180)}-${createHash("sha256").update(resolve(cwd)).digest("hex").slice(0, 16)}`;
}

/** A header is one short line (ids, the folder's path, the model); a folder's path may be long. */
const headerReadBytes = 64 * 1024;

/** Session ids become file names: letters, digits, `.`, `_` and `-`, not starting with a dot, at most 128. */
const sessionIdPattern = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}$/;

/** Throws a UsageError unless `sessionId` can name a session file. */
export function checkSessionId(sessionId: string): string {
  if (typeof sessionId !== "string" || !sessionIdPattern.test(sessionId))
    throw new UsageError(
      `${JSON.stringify(sessionId)} is not a session id: use letters, digits, ".", "_" and "-" (at most 128, not starting with ".").`,
    );
  return sessionId;
}

/**
 * The default {@link SessionStore}: one JSON Lines file per session, `<directory>/projects/<project folder>/<id>.jsonl`
 * (format: docs/sessions.md). Every append is one synchronous write of whole lines to a file opened for appending,
 * so a process killed at any moment (SIGKILL included) loses at most the line being written, which readers skip.
 * Folders are created private (0700) and files 0600: sessions hold the person's code and conversation.
 *
 * One process writes to a session at a time: the first append (or `lock`) takes the session's lock,
 * `<directory>/session-locks/<id>.lock`, holding this process's pid, and keeps it until `unlock` or the process
 * exits; a lock left by a process that is no longer running is taken over. An append to a session another running
 * process holds throws a `SessionInUseError`: to go on with it meanwhile, fork it. Reading and listing take no lock.
 * A file the system refuses (a folder at its path, no permission, a full disk) throws a `SessionFileError` naming it.
 */
export class JsonLinesSessionStore implements SessionStore {
  /** The data directory (`projects/` is under it). */
  readonly directory: string;
  readonly #fsync: boolean;
  /** Files of the sessions this store has written to or found, by id. */
  readonly #paths = new Map<string, string>();
  /** Sessions whose file this store last wrote whole: they end with a newline, unless changed since `load`. */
  readonly #whole = new Set<string>();
  /** The size of each session's file when this store last loaded it, until the next append checks it. */
  readonly #loadedSizes = new Map<string, number>();
  /** The sessions this store holds the lock of. */
  readonly #locks = new Map<string, SessionLock>();

  constructor(options: JsonLinesSessionStoreOptions = {}) {
    this.directory = options.directory === undefined ? defaultDataDirectory() : resolve(options.directory);
    this.#fsync = options.fsync ?? false;
  }

  /** The file a session of `cwd` is kept in. */
  sessionPath(cwd: string, sessionId: string): string {
    return join(this.directory, "projects", projectFolderName(cwd), `${checkSessionId(sessionId)}.jsonl`);
  }

  /** The lock file of a session: it exists while a process writes the session, and holds that process's pid. */
  sessionLockPath(sessionId: string): string {
    return join(this.directory, "session-locks", `${checkSessionId(sessionId)}.lock`);
  }

  /**
   * Takes the session's lock for this process, before anything is written (appends take it too): lock, then
   * `load`, so that no other process writes between what was loaded and what this one appends. Nothing happens
   * if this store holds it already. Throws a `SessionInUseError` naming the process when another running one holds it.
   */
  lock(sessionId: string): void {
    if (this.#locks.has(checkSessionId(sessionId))) return;
    this.#locks.set(sessionId, acquireSessionLock(this.sessionLockPath(sessionId), sessionId));
  }

  /** Gives the session's lock up, so that another process may write it; the next append here takes it again. */
  unlock(sessionId: string): void {
    this.#locks.get(sessionId)?.release();
    this.#locks.delete(sessionId);
  }

  append(sessionId: string, lines: readonly SessionLine[]): void {
    if (lines.length === 0) return;
    checkSessionId(sessionId);
    const first = lines[0] as SessionLine;
    let path = this.#paths.get(sessionId);
    const lockedBefore = this.#locks.has(sessionId);
    let flags = "a";
    if (first.type === "session") {
      if (first.sessionId !== sessionId)
        throw new UsageError(`The header names the session "${first.sessionId}", but the lines are appended to "${sessionId}".`);
      // Ids are unique across folders (`load` finds a session by its id alone).
      const existing = path ?? this.#findSync(sessionId);
      if (existing !== undefined)
        throw new UsageError(`A session "${sessionId}" already exists (${existing}): resume it, or start a new one with another id.`);
      path = this.sessionPath(first.cwd, sessionId);
      makeFolder(dirname(path));
      this.lock(sessionId);
      flags = "wx"; // a new file only: never another session's, nor a link planted under its name
    } else {
      path ??= this.#findSync(sessionId);
      if (path === undefined) throw new UsageError(`There is no session "${sessionId}" to append to; start it with its header.`);
      this.lock(sessionId);
      if (!this.#whole.has(sessionId)) this.#checkBeforeAppend(sessionId, path);
    }
    this.#whole.delete(sessionId);
    try {
      writeLines(path, flags, lines.map(formatSessionLine).join(""), this.#fsync);
    } catch (error) {
      if (flags === "wx" && !lockedBefore) this.unlock(sessionId); // the session was never this store's
      if ((error as NodeJS.ErrnoException).code === "EEXIST")
        throw new UsageError(`A session "${sessionId}" already exists (${path}): resume it, or start a new one with another id.`, {
          cause: error,
        });
      throw sessionFileError(error, path, flags === "wx" ? "create" : "write");
    }
    this.#paths.set(sessionId, path);
    this.#whole.add(sessionId);
  }

  async load(sessionId: string): Promise<LoadedSession> {
    const path = await this.#find(sessionId);
    if (path === undefined) throw new UsageError(`There is no session "${sessionId}" under ${join(this.directory, "projects")}.`);
    this.#whole.delete(sessionId); // whoever goes on with it may have seen a torn line: check before the next append
    const bytes = await readFile(path).catch((error: unknown) => {
      throw sessionFileError(error, path, "read");
    });
    this.#loadedSizes.set(sessionId, bytes.length);
    return readSession(bytes.toString("utf8"), path);
  }

  /**
   * The conversation before a checkpoint of a session (see `conversationBefore`), read without taking the lock.
   * A fork's file starts with the conversation it was forked with as plain messages, so a checkpoint from before
   * the fork is looked for in the session it was forked from (which is never rewritten), and so on up a few
   * forks. Undefined when none of them has it, or the session (a fork's first lines not written yet) has no file.
   */
  async conversationBefore(sessionId: string, checkpointId: string): Promise<Message[] | undefined> {
    const seen = new Set<string>();
    for (let id: string | undefined = sessionId; id !== undefined && !seen.has(id) && seen.size < maxForkDepth; ) {
      seen.add(id);
      const path = await this.#find(id);
      if (path === undefined) return undefined;
      const text = await readFile(path, "utf8").catch((error: unknown) => {
        throw sessionFileError(error, path, "read");
      });
      const found = conversationBefore(text, path, checkpointId);
      if (found !== undefined) return found;
      id = readSessionHeader(text, path).forkedFrom?.sessionId;
    }
    return undefined;
  }

  /**
   * Whether `cwd`'s folder holds the session `sessionId` (what `list(cwd)` would show), read from the file's header
   * alone: `--resume <id>` need not read every session of the folder to know its id is one of them.
   */
  async has(cwd: string, sessionId: string): Promise<boolean> {
    if (!sessionIdPattern.test(sessionId)) return false;
    const handle = await open(this.sessionPath(cwd, sessionId), "r").catch(() => undefined);
    if (handle === undefined) return false;
    try {
      const { buffer, bytesRead } = await handle.read({ buffer: Buffer.alloc(headerReadBytes), position: 0 });
      const firstLine = buffer.subarray(0, bytesRead);
      const end = firstLine.indexOf(10);
      if (end === -1) return false;
      const header = readSessionHeader(firstLine.toString("utf8", 0, end), "");
      return header.sessionId === sessionId && header.cwd === resolve(cwd);
    } catch {
      return false;
    } finally {
      await handle.close();
    }
  }

  async list(cwd: string): Promise<SessionSummary[]> {
    const folder = join(this.directory, "projects", projectFolderName(cwd));
    const names = await readdir(folder).catch(() => [] as string[]);
    const summaries: SessionSummary[] = [];
    const wanted = resolve(cwd);
    for (const name of names) {
      if (!name.endsWith(".jsonl")) continue;
      const bytes = await readFile(join(folder, name)).catch(() => undefined);
      const summary = bytes && summarizeSession(bytes);
      if (summary && summary.cwd === wanted && `${summary.sessionId}.jsonl` === name) summaries.push(summary);
    }
    return summaries.sort((a, b) => compareTimes(b.updatedAt, a.updatedAt) || compareTimes(b.createdAt, a.createdAt));
  }

  /** Deletes a session; false when there was none. Refused (`SessionInUseError`) while another process writes it. */
  async remove(sessionId: string): Promise<boolean> {
    const path = await this.#find(sessionId);
    this.#paths.delete(sessionId);
    this.#whole.delete(sessionId);
    this.#loadedSizes.delete(sessionId);
    if (path === undefined) return false;
    this.lock(sessionId);
    try {
      await unlink(path).catch((error: unknown) => {
        throw sessionFileError(error, path, "write");
      });
    } finally {
      this.unlock(sessionId);
    }
    // Its checkpoints go with it: the log now, the contents only it kept at the store's next sweep.
    const checkpoints = join(this.directory, "checkpoints");
    const removed = await unlink(logFile(checkpoints, sessionId)).then(
      () => true,
      () => false,
    );
    if (removed) await markSweepDue(checkpoints).catch(() => {});
    return true;
  }

  /**
   * Before the first append after a `load`: the file must be as it was loaded (else another process wrote to it in
   * between, and the lines to append follow a conversation that is no longer the file's: load it again), and a torn
   * last line (a crash) is ended, so that it stays a (skipped) line of its own and the new lines start afresh.
   */
  #checkBeforeAppend(sessionId: string, path: string): void {
    let size: number;
    let last: number | undefined;
    try {
      ({ size, last } = readEnd(path));
    } catch (error) {
      throw sessionFileError(error, path, "write");
    }
    const loaded = this.#loadedSizes.get(sessionId);
    if (loaded !== undefined && loaded !== size)
      throw new UsageError(
        `Session ${sessionId} changed since it was loaded (${path} was ${loaded} bytes, now ${size}): another process wrote to it. Load it again to go on, or fork it.`,
      );
    this.#loadedSizes.delete(sessionId);
    if (last !== undefined && last !== 10) {
      try {
        writeLines(path, "a", "\n", false);
      } catch (error) {
        throw sessionFileError(error, path, "write");
      }
    }
  }

  /** The session's file: known, or found in one of the project folders (ids are unique across them). */
  async #find(sessionId: string): Promise<string | undefined> {
    checkSessionId(sessionId);
    const known = this.#paths.get(sessionId);
    if (known !== undefined) return known;
    const projects = join(this.directory, "projects");
    const folders = await readdir(projects).catch((error: unknown) => noFolder(error, projects));
    const file = `${sessionId}.jsonl`;
    for (const folder of folders) {
      const names = await readdir(join(projects, folder)).catch(() => [] as string[]);
      if (names.includes(file)) return join(projects, folder, file);
    }
    return undefined;
  }

  #findSync(sessionId: string): string | undefined {
    const projects = join(this.directory, "projects");
    const file = `${sessionId}.jsonl`;
    let folders: string[];
    try {
      folders = readdirSync(projects);
    } catch (error) {
      folders = noFolder(error, projects);
    }
    for (const folder of folders) {
      if (safeReaddirSync(join(projects, folder)).includes(file)) return join(projects, folder, file);
    }
    return undefined;
  }
}

/** How many sessions `conversationBefore` reads: the session and the ones it was forked from, in turn. */
const maxForkDepth = 8;

function compareTimes(a: string, b: string): number {
  return (Date.parse(a) || 0) - (Date.parse(b) || 0);
}

/** Opens, writes every byte (a write may take only part), optionally flushes, closes. */
function writeLines(path: string, flags: string, text: string, flush: boolean): void {
  const fd = openSync(path, flags, 0o600);
  try {
    const bytes = Buffer.from(text, "utf8");
    for (let written = 0; written < bytes.length; ) written += writeSync(fd, bytes, written, bytes.length - written);
    if (flush) fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** A file's size and last byte (undefined when empty). */
function readEnd(path: string): { size: number; last: number | undefined } {
  const fd = openSync(path, "r");
  try {
    const { size } = fstatSync(fd);
    if (size === 0) return { size, last: undefined };
    const byte = Buffer.alloc(1);
    readSync(fd, byte, 0, 1, size - 1);
    return { size, last: byte[0] };
  } finally {
    closeSync(fd);
  }
}

/** Creates a session folder (and those above it), private. */
function makeFolder(path: string): void {
  try {
    mkdirSync(path, { recursive: true, mode: 0o700 });
  } catch (error) {
    throw sessionFileError(error, path, "create", "folder");
  }
}

/** No `projects` folder yet is no session; one that cannot be read is said. */
function noFolder(error: unknown, path: string): string[] {
  if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
  throw sessionFileError(error, path, "read", "folder");
}

function safeReaddirSync(path: string): string[] {
  try {
    return readdirSync(path);
  } catch {
    return [];
  }
}
