import { createRequire } from "node:module";
import { UsageError } from "../errors.js";
import type { Trace, TraceExporter } from "./trace.js";

/** Where the JSON exporter writes: one file per run in a directory, or always the same file. */
export type JsonFileExporterOptions = JsonDirectoryOptions | JsonPathOptions;

/** Writes one new file per trace into `directory`; an existing file is never replaced. */
export type JsonDirectoryOptions = {
  /** The directory (created if missing). Files are only ever written directly inside it. */
  directory: string;
  path?: undefined;
  /**
   * Names each trace's file. Default: `<ISO start time>-<trace id>.json`, which sorts by start time.
   * The name must be a plain file name: not empty, at most 255 characters, no `/` or `\`, no control
   * characters (NUL included), not `.` or `..`. A trace whose name is not is refused (reported through
   * the tracer's `onError`), never written elsewhere.
   */
  fileName?: ((trace: Trace) => string) | undefined;
  /** How many of the latest paths `written` remembers (default 100). */
  keepWritten?: number | undefined;
};

/** Writes this file, replacing it on each run (the CLI's `--trace out.json`). */
export type JsonPathOptions = {
  path: string;
  directory?: undefined;
  fileName?: undefined;
  /** How many of the latest paths `written` remembers (default 100). */
  keepWritten?: number | undefined;
};

/**
 * Writes each trace as a JSON file (format: docs/tracing.md). Writing is synchronous, so the file is
 * complete when `agent.run` resolves; one small file per run does not need more.
 *
 * In directory mode a trace's file name comes from its id, which is checked (32 hex digits) so that no
 * trace, however it was built, can name a file outside the directory.
 */
export class JsonFileExporter implements TraceExporter {
  readonly #options: JsonFileExporterOptions;
  readonly #keepWritten: number;
  /**
   * The latest paths written, oldest first, for a program that tells its user where a trace went (or a
   * test). Only the last `keepWritten` (default 100) are kept, so a long-lived process does not grow it
   * without bound; a file written again (the `path` mode) is listed once.
   */
  readonly written: string[] = [];

  constructor(options: JsonFileExporterOptions) {
    if (typeof options.path !== "string" && typeof options.directory !== "string") {
      throw new UsageError("JsonFileExporter needs a directory ({ directory }) or a file ({ path }).");
    }
    this.#options = options;
    this.#keepWritten = Math.max(0, options.keepWritten ?? 100);
  }

  export(trace: Trace): void {
    const { mkdirSync, writeFileSync } = loadFs();
    const { dirname, resolve } = loadPath();
    const options = this.#options;
    let path: string;
    if (options.path !== undefined) {
      path = options.path;
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, `${JSON.stringify(trace, null, 2)}\n`);
    } else {
      const directory = resolve(options.directory);
      const name = checkFileName(options.fileName ? options.fileName(trace) : defaultFileName(trace));
      path = resolve(directory, name);
      // A plain name cannot leave the directory; this says so once more, whatever the platform's rules.
      if (dirname(path) !== directory)
        throw new UsageError(`JsonFileExporter: ${JSON.stringify(name)} is not a file name inside ${directory}.`);
      mkdirSync(directory, { recursive: true });
      // "wx": a new file only. It never replaces a file, and never follows a link planted under that name.
      writeFileSync(path, `${JSON.stringify(trace, null, 2)}\n`, { flag: "wx" });
    }
    this.#remember(path);
  }

  #remember(path: string): void {
    if (this.#keepWritten === 0 || this.written.at(-1) === path) return;
    this.written.push(path);
    if (this.written.length > this.#keepWritten) this.written.splice(0, this.written.length - this.#keepWritten);
  }
}

/** Parses a trace file's text. Throws a UsageError saying what is wrong when it is not a minagent trace. */
export function parseTrace(text: string, source = "trace"): Trace {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${source} is not JSON: ${(error as Error).message}`, { cause: error });
  }
  const trace = value as Partial<Trace> | null;
  if (typeof trace !== "object" || trace === null || trace.format !== "minagent-trace") {
    throw new UsageError(`${source} is not a minagent trace (expected "format": "minagent-trace").`);
  }
  if (trace.version !== 1)
    throw new UsageError(`${source} has trace format version ${String(trace.version)}; this minagent reads version 1.`);
  if (typeof trace.traceId !== "string") throw new UsageError(`${source} has no traceId.`);
  if (!Array.isArray(trace.spans) || trace.spans.length === 0) throw new UsageError(`${source} has no spans.`);
  // A span id names one span: a repeated one would make a span its own ancestor, and a tree walk endless.
  const seen = new Map<string, number>();
  for (const [index, span] of trace.spans.entries()) {
    const problem = spanProblem(span);
    if (problem) throw new UsageError(`${source}: span ${index} ${problem}.`);
    const id = (span as { spanId: string }).spanId;
    const first = seen.get(id);
    if (first !== undefined) throw new UsageError(`${source}: span ${index} has the spanId ${describe(id)} of span ${first}.`);
    seen.set(id, index);
  }
  return trace as Trace;
}

/**
 * Reads and parses a trace file. Throws a UsageError naming the file when it is missing, a directory,
 * unreadable, or not a trace.
 */
export function readTraceFile(path: string): Trace {
  let text: string;
  try {
    text = loadFs().readFileSync(path, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const reason =
      code === "ENOENT"
        ? "no such file"
        : code === "EISDIR"
          ? "is a directory, not a trace file"
          : code === "EACCES" || code === "EPERM"
            ? "permission denied"
            : (error as Error).message;
    throw new UsageError(`${path}: ${reason}`, { cause: error });
  }
  return parseTrace(text, path);
}

/** What is wrong with a span for a reader (formatTraceTree), or undefined. */
function spanProblem(value: unknown): string | undefined {
  if (typeof value !== "object" || value === null) return "is not an object";
  const span = value as Record<string, unknown>;
  if (typeof span.spanId !== "string") return "has no spanId";
  if (span.parentSpanId !== undefined && typeof span.parentSpanId !== "string") return "has a parentSpanId that is not a string";
  if (typeof span.name !== "string") return "has no name";
  for (const field of ["startTime", "endTime", "durationMs"]) {
    if (typeof span[field] !== "number") return `has no ${field}`;
  }
  const status = span.status as { code?: unknown } | null | undefined;
  if (typeof status !== "object" || status === null || (status.code !== "ok" && status.code !== "error")) return "has no status";
  if (typeof span.attributes !== "object" || span.attributes === null) return "has no attributes";
  return undefined;
}

// node:fs and node:path are loaded when a file is written or read, not on `import "minagent"`: importing
// node:fs from ESM also loads node:stream and a dozen more modules. require() keeps the API synchronous.
function loadFs(): typeof import("node:fs") {
  return createRequire(import.meta.url)("node:fs") as typeof import("node:fs");
}

function loadPath(): typeof import("node:path") {
  return createRequire(import.meta.url)("node:path") as typeof import("node:path");
}

/** `<ISO start time>-<trace id>.json`. The id is checked: it is the only part that comes from the trace. */
function defaultFileName(trace: Trace): string {
  if (typeof trace.traceId !== "string" || !/^[0-9a-f]{32}$/i.test(trace.traceId)) {
    throw new UsageError(`JsonFileExporter: trace id ${describe(trace.traceId)} is not 32 hex digits; the trace was not written.`);
  }
  const start = trace.spans[0]?.startTime;
  const date = new Date(typeof start === "number" && Number.isFinite(start) ? start : Date.now());
  // Colons are not allowed in Windows file names.
  const time = (Number.isNaN(date.getTime()) ? new Date() : date).toISOString().replaceAll(":", "-");
  return `${time}-${trace.traceId}.json`;
}

/** Returns `name` if it is a plain file name (see `JsonDirectoryOptions.fileName`), else throws. */
function checkFileName(name: unknown): string {
  const plain =
    typeof name === "string" &&
    name.length > 0 &&
    name.length <= 255 &&
    name !== "." &&
    name !== ".." &&
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
    !/[/\\\u0000-\u001f\u007f]/.test(name);
  if (!plain) throw new UsageError(`JsonFileExporter: ${describe(name)} is not a plain file name; the trace was not written.`);
  return name;
}

/** A value for an error message, quoted and at most 80 characters. */
function describe(value: unknown): string {
  const text = typeof value === "string" ? JSON.stringify(value) : String(value);
  return text.length > 80 ? `${text.slice(0, 79)}…` : text;
}
