import { formatTraceTree } from "../../trace/format-trace-tree.js";
import { readTraceFile } from "../../trace/json-file-exporter.js";
import type { CliIo } from "../io.js";

const traceHelp = `Usage: minagent trace show <file> [--no-timeline]

Draws a trace file (written by "minagent demo react --trace <file>" or a JsonFileExporter) as a tree,
one span per line: its duration, a timeline bar (bars that overlap ran in parallel), then the span
with its outcome, token counts, tool arguments and results. Errors are marked ✗.

Options:
  --no-timeline           leave out the timeline bars
`;

/** `minagent trace show <file>` */
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
    const problem = unknown.length > 0 ? `unknown option "${unknown[0]}"` : "name one trace file";
    io.stderr(`minagent trace show: ${problem}.\n\n${traceHelp}`);
    return 2;
  }
  try {
    const trace = readTraceFile(files[0] as string);
    io.stdout(formatTraceTree(trace, rest.includes("--no-timeline") ? { timelineWidth: 0 } : {}));
    return 0;
  } catch (error) {
    // A missing or malformed file is the user's to fix: say which and why, without a stack trace.
    const message = error instanceof Error ? error.message : String(error);
    io.stderr(`minagent trace show: ${message}\n`);
    return 1;
  }
}
