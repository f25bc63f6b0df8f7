import type { AgentEvent } from "../core/events.js";
import type { McpLogMessage, McpToolProgress } from "../mcp/index.js";
import { toOneLine } from "../text.js";

/** The events a run reports on stderr as they happen, in `minagent run` and in `minagent code -p --verbose`. */
export type ProgressEvent = Extract<AgentEvent, { type: "model-call-retry" | "tool-call-start" | "tool-call-end" }>;

/** The line (without its newline) both commands print for a retry or a tool call, so that they read the same. */
export function describeProgress(event: ProgressEvent): string {
  switch (event.type) {
    case "model-call-retry": {
      const { error, delayMs } = event;
      return `… ${error.status ?? error.errorType ?? error.kind} ${toOneLine(error.message, 200)}; retrying in ${(delayMs / 1000).toFixed(1)} s`;
    }
    case "tool-call-start":
      return `→ ${event.toolCall.name}(${toOneLine(JSON.stringify(event.toolCall.arguments), 100)})`;
    case "tool-call-end":
      return `${event.result.isError ? "✗" : "←"} ${event.toolCall.name}: ${toOneLine(event.result.content, 120)}`;
  }
}

/** The line both commands print when a tool call starts or ends; undefined for any other event. */
export function toolCallLine(event: AgentEvent): string | undefined {
  return event.type === "tool-call-start" || event.type === "tool-call-end" ? describeProgress(event) : undefined;
}

/** A server's log message as `--verbose` prints it: `[mcp everything] info: Received Subscribe Resource request…`. */
export function describeMcpLog(message: McpLogMessage): string {
  return `[mcp ${message.server}${message.logger ? `/${message.logger}` : ""}] ${message.level}: ${toOneLine(message.text, 300)}`;
}

/** A call's progress as the tool line shows it: `3/5 (60%) · indexing`, `12` when the server gives no total. */
export function describeMcpProgress(progress: McpToolProgress): string {
  const { total } = progress;
  const amount =
    total !== undefined && total > 0
      ? `${progress.progress}/${total} (${Math.round((progress.progress / total) * 100)}%)`
      : `${progress.progress}`;
  return progress.message ? `${amount} · ${toOneLine(progress.message, 80)}` : amount;
}
