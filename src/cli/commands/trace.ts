import { createRequire } from "node:module";
import { UsageError } from "../../errors.js";
import { formatTraceTree } from "../../trace/format-trace-tree.js";
import { readTraceFile } from "../../trace/json-file-exporter.js";
import type { Trace } from "../../trace/trace.js";
import type { CliIo } from "../io.js";
import { openInBrowser } from "../open-in-browser.js";

const traceHelp = `Usage: minagent trace show <file or directory> [--no-timeline]
       minagent trace serve [file or directory] [--port <n>] [--open] [--max-trace-mb <n>]

Draws a trace file (written by "minagent demo react --trace <file>" or a JsonFileExporter) as a tree,
one span per line: its duration, a timeline bar (bars that overlap ran in parallel), then the span
with its outcome, token counts, tool arguments and results. Errors are marked ✗.

Given a directory (a JsonFileExporter's), it draws the newest trace file in it (the last written)
and says how many others there are and how to show one.

Options:
  --no-timeline           leave out the timeline bars

serve starts a local trace viewer in the browser for a directory (default: the current one) of trace
files and "minagent code" session files (.jsonl), or for one such file: a list of traces (newest first),
each as a zoomable waterfall with the messages, tool calls, tokens and cost of every span, and search.
It updates live as files are written. It listens on 127.0.0.1 only, needs no network and no account,
and reads no file outside the directory it was given. Stop it with Ctrl-C.

  --port <n>              the port to listen on (default: a free one, printed)
  --open                  open the page in the default browser
  --max-trace-mb <n>      the largest file it loads, in MB (default 100): a trace is read whole, by the
                          server and the browser, in a few times its size of memory; larger files are
                          listed as too large

Exit codes: 0 drawn (or the viewer stopped); 2 a usage error, or a file that is missing, unreadable or not a trace.
`;

/** `minagent trace show <file or directory>`, `minagent trace serve [file or directory]` */
export async function traceCommand(args: readonly string[], io: CliIo): Promise<number> {
  const [action, ...rest] = args;
  if (action === "--help" || action === "-h" || ((action === "show" || action === "serve") && rest.includes("--help"))) {
    io.stdout(traceHelp);
    return 0;
  }
  if (action === "serve") return serveTraces(rest, io);
  if (action !== "show") {
    io.stderr(`minagent trace: ${action === undefined ? "say what to do" : `unknown action "${action}"`}.\n\n${traceHelp}`);
    return 2;
  }
  const files = rest.filter((arg) => !arg.startsWith("--"));
  const unknown = rest.filter((arg) => arg.startsWith("--") && arg !== "--no-timeline");
  if (files.length !== 1 || unknown.length > 0) {
    const problem = unknown.length > 0 ? `unknown option "${unknown[0]}"` : "name one trace file or directory";
    io.stderr(`minagent trace show: ${problem}.\n\n${traceHelp}`);
    return 2;
  }
  try {
    const { trace, note } = readTraceOrNewest(files[0] as string);
    io.stdout(formatTraceTree(trace, rest.includes("--no-timeline") ? { timelineWidth: 0 } : {}));
    if (note) io.stderr(note);
    return 0;
  } catch (error) {
    // A missing, unreadable or malformed file is the user's to fix: say which and why, without a stack trace.
    const message = error instanceof Error ? error.message : String(error);
    io.stderr(`minagent trace show: ${message}\n`);
    return error instanceof UsageError ? 2 : 1;
  }
}

/**
 * The trace in a file, or the newest trace in a directory with a note on the others. Files of the
 * directory that are not traces (a package.json) are passed over, and the note says so.
 */
function readTraceOrNewest(path: string): { trace: Trace; note?: string } {
  const fs = createRequire(import.meta.url)("node:fs") as typeof import("node:fs");
  const { join } = createRequire(import.meta.url)("node:path") as typeof import("node:path");
  if (!isDirectory(fs, path)) return { trace: readTraceFile(path) };
  const candidates = listJsonFiles(fs, join, path);
  const passedOver: string[] = [];
  for (const [index, file] of candidates.entries()) {
    let trace: Trace;
    try {
      trace = readTraceFile(file);
    } catch (error) {
      if (!(error instanceof UsageError)) throw error;
      passedOver.push(error.message);
      continue;
    }
    const skipped =
      passedOver.length > 0
        ? ` Passed over ${passedOver.length} newer file${passedOver.length === 1 ? "" : "s"} that ${passedOver.length === 1 ? "is" : "are"} not a trace.`
        : "";
    const next = candidates[index + 1];
    const others = next ? ` To draw another, name it, e.g. the one before: minagent trace show ${next}` : "";
    return {
      trace,
      note: `Newest trace in ${path} (of ${candidates.length} .json file${candidates.length === 1 ? "" : "s"}): ${file}.${skipped}${others}\n`,
    };
  }
  if (candidates.length === 0) throw new UsageError(`${path} is a directory with no trace files (*.json) in it.`);
  throw new UsageError(`${path} holds no minagent trace among its ${candidates.length} .json files (newest: ${passedOver[0]}).`);
}

function isDirectory(fs: typeof import("node:fs"), path: string): boolean {
  try {
    return fs.statSync(path, { throwIfNoEntry: false })?.isDirectory() === true;
  } catch {
    return false; // reading it as a file says what is wrong
  }
}

/** The directory's `*.json` files, newest written first (then by name, which starts with the start time). */
function listJsonFiles(fs: typeof import("node:fs"), join: (...parts: string[]) => string, directory: string): string[] {
  let names: string[];
  try {
    names = fs.readdirSync(directory).filter((name) => name.endsWith(".json"));
  } catch (error) {
    throw new UsageError(`${directory}: cannot list it (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`, {
      cause: error,
    });
  }
  const files = names.flatMap((name) => {
    const stats = fs.statSync(join(directory, name), { throwIfNoEntry: false });
    return stats?.isFile() ? [{ path: join(directory, name), written: stats.mtimeMs }] : [];
  });
  files.sort((a, b) => b.written - a.written || (a.path < b.path ? 1 : a.path > b.path ? -1 : 0));
  return files.map((file) => file.path);
}

/**
 * `minagent trace serve`: starts the viewer and waits until `stop` aborts (by default Ctrl-C or SIGTERM).
 * Exported for tests, which stop it themselves.
 */
export async function serveTraces(args: readonly string[], io: CliIo, stop: AbortSignal = processStopSignal()): Promise<number> {
  let options: ServeOptions;
  try {
    options = parseServeArguments(args);
  } catch (error) {
    io.stderr(`minagent trace serve: ${(error as Error).message}.\n\n${traceHelp}`);
    return 2;
  }
  const { startTraceServer } = await import("../../trace/viewer/trace-server.js");
  let server: Awaited<ReturnType<typeof startTraceServer>>;
  try {
    server = await startTraceServer({ path: options.path, port: options.port, maxTraceBytes: options.maxTraceBytes });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const message =
      code === "EADDRINUSE"
        ? `port ${options.port} is in use: choose another with --port, or leave --port out for a free one`
        : code === "EACCES"
          ? `port ${options.port} may not be used by this user: choose one above 1023`
          : (error as Error).message;
    io.stderr(`minagent trace serve: ${message}\n`);
    return error instanceof UsageError || code === "EADDRINUSE" || code === "EACCES" ? 2 : 1;
  }
  const url = server.only === undefined ? server.url : `${server.url}#/trace/${encodeURIComponent(server.only)}`;
  io.stdout(
    `Trace viewer: ${url}\nServing ${server.only === undefined ? `the traces and sessions in ${server.root}` : `${server.root}/${server.only}`}; live as files are written. Ctrl-C to stop.\n`,
  );
  if (options.open) openInBrowser(url, { env: io.env, onFailure: (message) => io.stderr(`${message}\n`) });
  if (!stop.aborted) await new Promise((resolve) => stop.addEventListener("abort", resolve, { once: true }));
  await server.close();
  return 0;
}

type ServeOptions = { path: string; port: number | undefined; open: boolean; maxTraceBytes: number | undefined };

function parseServeArguments(args: readonly string[]): ServeOptions {
  const paths: string[] = [];
  let port: number | undefined;
  let maxTraceBytes: number | undefined;
  let open = false;
  const optionValue = (name: string, index: number): [string | undefined, number] =>
    args[index] === name ? [args[index + 1], index + 1] : [(args[index] as string).slice(name.length + 1), index];
  const shown = (value: string | undefined) => (value === undefined ? "nothing" : `"${value}"`);
  for (let index = 0; index < args.length; index++) {
    const arg = args[index] as string;
    if (arg === "--open") open = true;
    else if (arg === "--port" || arg.startsWith("--port=")) {
      const [value, next] = optionValue("--port", index);
      index = next;
      port = Number(value);
      if (value === undefined || value === "" || !Number.isInteger(port) || port < 0 || port > 65535)
        throw new Error(`--port needs a port number from 0 to 65535, got ${shown(value)}`);
    } else if (arg === "--max-trace-mb" || arg.startsWith("--max-trace-mb=")) {
      const [value, next] = optionValue("--max-trace-mb", index);
      index = next;
      const megabytes = Number(value);
      if (value === undefined || value === "" || !Number.isFinite(megabytes) || megabytes <= 0)
        throw new Error(`--max-trace-mb needs a size in MB above 0 (e.g. 300), got ${shown(value)}`);
      maxTraceBytes = Math.round(megabytes * 1e6);
    } else if (arg.startsWith("-")) throw new Error(`unknown option "${arg}"`);
    else paths.push(arg);
  }
  if (paths.length > 1) throw new Error("name one directory or file (or none: the current directory)");
  return { path: paths[0] ?? ".", port, open, maxTraceBytes };
}

/** Aborts on the first Ctrl-C or SIGTERM. */
function processStopSignal(): AbortSignal {
  const controller = new AbortController();
  const stop = () => controller.abort();
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  return controller.signal;
}
