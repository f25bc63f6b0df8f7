import { createRequire } from "node:module";
import { UsageError } from "../../errors.js";
import { formatTraceTree } from "../../trace/format-trace-tree.js";
import { readTraceFile } from "../../trace/json-file-exporter.js";
import type { Trace } from "../../trace/trace.js";
import type { CliIo } from "../io.js";

const traceHelp = `Usage: minagent trace show <file or directory> [--no-timeline]

Draws a trace file (written by "minagent demo react --trace <file>" or a JsonFileExporter) as a tree,
one span per line: its duration, a timeline bar (bars that overlap ran in parallel), then the span
with its outcome, token counts, tool arguments and results. Errors are marked ✗.

Given a directory (a JsonFileExporter's), it draws the newest trace file in it (the last written)
and says how many others there are and how to show one.

Options:
  --no-timeline           leave out the timeline bars

Exit codes: 0 drawn; 2 a usage error, or a file that is missing, unreadable or not a trace.
`;

/** `minagent trace show <file or directory>` */
export async function traceCommand(args: readonly string[], io: CliIo): Promise<number> {
  const [action, ...rest] = args;
  if (action === "--help" || action === "-h" || (action === "show" && rest.includes("--help"))) {
    io.stdout(traceHelp);
    return 0;
  }
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
