import { readdir, readFile, realpath, stat } from "node:fs/promises";
import { basename, dirname, join, resolve, sep } from "node:path";
import { UsageError } from "../../errors.js";
import { parseTrace } from "../json-file-exporter.js";
import type { Trace } from "../trace.js";
import { readSessionAsTrace } from "./session-trace.js";
import { SharedLoads } from "./shared-loads.js";
import { summarizeTrace, type TraceSummary, tooLargeSummary, unreadableSummary } from "./trace-summary.js";

/**
 * The largest trace or session file the viewer loads by default: 100 MB. A trace is read, parsed and sent whole
 * (and parsed again by the browser), which takes about four times the file's size in the server's memory while it
 * is served; a 40,000-span trace is about 17 MB. See {@link TraceDirectoryOptions.maxTraceBytes}.
 */
export const defaultMaxTraceBytes = 100_000_000;

/** How many different files are read and parsed at once; more requests wait (requests for one file share its read). */
const concurrentLoads = 2;

/** Settings of {@link TraceDirectory.open}. */
export type TraceDirectoryOptions = {
  /**
   * Files larger than this (bytes) are not read: asking for one answers 413 saying the limit and how to raise it,
   * and the list shows it as `too_large`. Default {@link defaultMaxTraceBytes}.
   */
  maxTraceBytes?: number | undefined;
};

/** Why a file cannot be served, with the HTTP status that says it. */
export class TraceFileError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.name = "TraceFileError";
    this.status = status;
  }
}

/** A trace read from a file, with its summary; `json` is the trace's JSON text when the file is a trace file. */
export type LoadedTrace = { summary: TraceSummary; trace: Trace; json: string | undefined };

/**
 * The trace files the viewer may read: the `.json` traces and `.jsonl` sessions directly inside one directory
 * (or one file of it). A name is only ever looked up inside that directory, after its real path (symbolic links
 * followed) is checked to be there too: `../`, absolute paths, links that lead out and files that are not
 * traces are refused.
 */
export class TraceDirectory {
  /** The directory's real path. */
  readonly root: string;
  /** When the viewer was given one file: the only name it serves. */
  readonly only: string | undefined;
  /** The largest file read (bytes). */
  readonly maxTraceBytes: number;
  /** Parsed summaries by name, kept while the file's size and time are the same. */
  readonly #cache = new Map<string, { size: number; modifiedAt: number; summary: TraceSummary | undefined }>();
  /** Reads in flight, shared by the requests for the same file, and at most a few at once. */
  readonly #loads = new SharedLoads(concurrentLoads);

  private constructor(root: string, only: string | undefined, options: TraceDirectoryOptions) {
    this.root = root;
    this.only = only;
    this.maxTraceBytes = options.maxTraceBytes ?? defaultMaxTraceBytes;
  }

  /**
   * Opens a directory, or a file (whose directory is served, restricted to that file). Throws a UsageError if neither,
   * or if `maxTraceBytes` is not a positive number.
   */
  static async open(path: string, options: TraceDirectoryOptions = {}): Promise<TraceDirectory> {
    const limit = options.maxTraceBytes;
    if (limit !== undefined && !(Number.isFinite(limit) && limit > 0))
      throw new UsageError(`maxTraceBytes must be a positive number of bytes, got ${String(limit)}.`);
    const absolute = resolve(path);
    const stats = await stat(absolute).catch((error: NodeJS.ErrnoException) => {
      throw new UsageError(`${path}: ${error.code === "ENOENT" ? "no such file or directory" : error.message}`, { cause: error });
    });
    if (stats.isDirectory()) return new TraceDirectory(await realpath(absolute), undefined, options);
    if (!stats.isFile() || !isTraceFileName(basename(absolute)))
      throw new UsageError(`${path} is not a directory, a trace file (.json) or a session file (.jsonl).`);
    const real = await realpath(absolute);
    return new TraceDirectory(dirname(real), basename(real), options);
  }

  /** Summaries of every trace and session file, newest first. Files that are not traces are left out. */
  async list(): Promise<TraceSummary[]> {
    const names = this.only ? [this.only] : (await readdir(this.root)).filter(isTraceFileName);
    const summaries: TraceSummary[] = [];
    for (const name of names) {
      const summary = await this.#summary(name).catch(() => undefined);
      if (summary) summaries.push(summary);
    }
    for (const name of this.#cache.keys()) if (!names.includes(name)) this.#cache.delete(name);
    return summaries.sort((a, b) => b.startTime - a.startTime || b.modifiedAt - a.modifiedAt || (a.name < b.name ? 1 : -1));
  }

  /**
   * One trace, by its file name. Requests for a file whose read is in flight share it (the same object). Throws a
   * TraceFileError when it may not or cannot be read: 400, 403, 404, 415, or 413 when it is larger than
   * {@link maxTraceBytes}.
   */
  async read(name: string): Promise<LoadedTrace> {
    const path = await this.resolve(name);
    const stats = await stat(path);
    if (stats.size > this.maxTraceBytes) throw new TraceFileError(413, tooLargeMessage(name, stats.size, this.maxTraceBytes));
    return this.#loads.load(`read:${name}`, versionOf(stats), async () => {
      const text = await readFile(path, "utf8");
      const trace = parse(text, name);
      const summary = summarizeTrace(trace, name, kindOf(name), stats.mtimeMs);
      this.#cache.set(name, { size: stats.size, modifiedAt: stats.mtimeMs, summary });
      return { summary, trace, json: kindOf(name) === "trace" ? text : undefined };
    });
  }

  /** The real path of the file `name` names, after every check. */
  async resolve(name: string): Promise<string> {
    if (!isPlainName(name)) throw new TraceFileError(400, `"${name}" is not a file name in the served directory.`);
    if (!isTraceFileName(name)) throw new TraceFileError(415, `"${name}" is not a trace (.json) or session (.jsonl) file.`);
    if (this.only !== undefined && name !== this.only) throw new TraceFileError(404, `Only ${this.only} is served.`);
    let real: string;
    try {
      real = await realpath(join(this.root, name));
    } catch {
      throw new TraceFileError(404, `There is no ${name} in the served directory.`);
    }
    // A symbolic link inside the directory must lead to a file inside it too.
    if (dirname(real) !== this.root && !real.startsWith(this.root + sep))
      throw new TraceFileError(403, `${name} leads outside the served directory.`);
    if (!isTraceFileName(real)) throw new TraceFileError(415, `${name} leads to a file that is not a trace.`);
    const stats = await stat(real);
    if (!stats.isFile()) throw new TraceFileError(404, `${name} is not a file.`);
    return real;
  }

  async #summary(name: string): Promise<TraceSummary | undefined> {
    const path = await this.resolve(name);
    const stats = await stat(path);
    const cached = this.#cache.get(name);
    if (cached && cached.size === stats.size && cached.modifiedAt === stats.mtimeMs) return cached.summary;
    const summary =
      stats.size > this.maxTraceBytes
        ? tooLargeSummary(name, kindOf(name), tooLargeMessage(name, stats.size, this.maxTraceBytes), stats.mtimeMs)
        : await this.#loads.load(`summary:${name}`, versionOf(stats), () => summarizeFile(path, name, stats.mtimeMs));
    this.#cache.set(name, { size: stats.size, modifiedAt: stats.mtimeMs, summary });
    return summary;
  }
}

async function summarizeFile(path: string, name: string, modifiedAt: number): Promise<TraceSummary | undefined> {
  const text = await readFile(path, "utf8");
  try {
    return summarizeTrace(parse(text, name), name, kindOf(name), modifiedAt);
  } catch (error) {
    // A .json file that is not a trace (a package.json) is not listed; one that says it is a minagent trace but
    // is not a valid one is listed as unreadable, with the reason.
    return kindOf(name) === "trace" && claimsToBeTrace(text)
      ? unreadableSummary(name, error instanceof Error ? error.message : String(error), modifiedAt)
      : undefined;
  }
}

/** What a file's size and time say: a file written since is another version. */
function versionOf(stats: { size: number; mtimeMs: number }): string {
  return `${stats.size}:${stats.mtimeMs}`;
}

/** Why a file is not loaded, and the two ways to see it all the same. */
function tooLargeMessage(name: string, size: number, limit: number): string {
  const megabytes = (bytes: number) => (bytes < 1e5 ? `${Math.ceil(bytes / 1e3)} kB` : `${(bytes / 1e6).toFixed(bytes < 1e7 ? 1 : 0)} MB`);
  return (
    `${name} is ${megabytes(size)}, more than the ${megabytes(limit)} this viewer loads (a trace is read whole, by the ` +
    `server and by the browser). To open it, start the viewer with a higher limit: minagent trace serve ` +
    `--max-trace-mb ${Math.ceil(size / 1e6)} (startTraceServer's maxTraceBytes), on a machine with a few times that ` +
    `in free memory${kindOf(name) === "trace" ? `; or draw it as a tree in the terminal: minagent trace show ${name}` : ""}.`
  );
}

function parse(text: string, name: string): Trace {
  try {
    return kindOf(name) === "session" ? readSessionAsTrace(text, name) : parseTrace(text, name);
  } catch (error) {
    throw new TraceFileError(415, error instanceof Error ? error.message : String(error));
  }
}

/** Whether a file's JSON says it is a minagent trace (`"format": "minagent-trace"`). */
function claimsToBeTrace(text: string): boolean {
  try {
    const value = JSON.parse(text) as { format?: unknown } | null;
    return typeof value === "object" && value !== null && value.format === "minagent-trace";
  } catch {
    return false;
  }
}

function kindOf(name: string): TraceSummary["kind"] {
  return name.endsWith(".jsonl") ? "session" : "trace";
}

/** `.json` (a trace) or `.jsonl` (a session). */
export function isTraceFileName(name: string): boolean {
  return name.endsWith(".json") || name.endsWith(".jsonl");
}

/** A name with no directory part: no separators, not `.`/`..`, no control characters. */
function isPlainName(name: string): boolean {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  return name.length > 0 && name.length <= 255 && name !== "." && name !== ".." && !/[/\\\u0000-\u001f\u007f]/.test(name);
}
