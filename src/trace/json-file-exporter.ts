import { createRequire } from "node:module";
import { UsageError } from "../errors.js";
import type { Trace, TraceExporter } from "./trace.js";

/** Where the JSON exporter writes: one file per run in a directory, or always the same file. */
export type JsonFileExporterOptions =
  /** Writes `<directory>/<ISO start time>-<trace id>.json` for each run. */
  | { directory: string }
  /** Writes this file, replacing it on each run (the CLI's `--trace out.json`). */
  | { path: string };

/**
 * Writes each trace as a JSON file (format: docs/tracing.md). Writing is synchronous, so the file is
 * complete when `agent.run` resolves; one small file per run does not need more.
 */
export class JsonFileExporter implements TraceExporter {
  readonly #options: JsonFileExporterOptions;
  /** Paths written so far, oldest first. */
  readonly written: string[] = [];

  constructor(options: JsonFileExporterOptions) {
    this.#options = options;
  }

  export(trace: Trace): void {
    const { mkdirSync, writeFileSync } = loadFs();
    const { dirname, join } = loadPath();
    const path = "path" in this.#options ? this.#options.path : join(this.#options.directory, fileName(trace));
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, `${JSON.stringify(trace, null, 2)}\n`);
    this.written.push(path);
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
  if (!Array.isArray(trace.spans) || trace.spans.length === 0) throw new UsageError(`${source} has no spans.`);
  return trace as Trace;
}

/** Reads and parses a trace file. */
export function readTraceFile(path: string): Trace {
  return parseTrace(loadFs().readFileSync(path, "utf8"), path);
}

// node:fs and node:path are loaded when a file is written or read, not on `import "minagent"`: importing
// node:fs from ESM also loads node:stream and a dozen more modules. require() keeps the API synchronous.
function loadFs(): typeof import("node:fs") {
  return createRequire(import.meta.url)("node:fs") as typeof import("node:fs");
}

function loadPath(): typeof import("node:path") {
  return createRequire(import.meta.url)("node:path") as typeof import("node:path");
}

function fileName(trace: Trace): string {
  const start = trace.spans[0]?.startTime ?? Date.now();
  // Colons are not allowed in Windows file names.
  return `${new Date(start).toISOString().replaceAll(":", "-")}-${trace.traceId}.json`;
}
