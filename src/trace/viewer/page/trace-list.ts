/// <reference lib="dom" />
import type { TraceSummary } from "./api.js";
import { h } from "./dom.js";
import { formatCost, formatCount, formatDuration, formatTime } from "./format.js";

/** The list of traces, newest first; a click opens one. Rows named in `fresh` are marked as just written. */
export function renderTraceList(traces: readonly TraceSummary[], fresh: ReadonlySet<string>, open: (name: string) => void): HTMLElement {
  if (traces.length === 0)
    return h(
      "div.empty",
      null,
      h("p", null, "No traces here yet."),
      h(
        "p.muted",
        null,
        "Run an agent with a JsonFileExporter writing to this directory (or a minagent code session): it appears here as it is written.",
      ),
    );
  const body = h("tbody");
  for (const trace of traces) {
    // A session is named by its first prompt (every session's agent is minagent code).
    const name = (trace.kind === "session" ? trace.title : undefined) ?? trace.agent ?? "–";
    const row = h(
      `tr.trace-row.status-${trace.status.replace(/[^a-z_]/g, "")}` as "tr",
      { "data-name": trace.name, tabindex: 0, title: trace.error ?? trace.name },
      h("td.when", null, formatTime(trace.startTime)),
      h("td.agent", null, h("span.agent-name", { title: name }, name), trace.kind === "session" ? h("span.badge", null, "session") : null),
      h("td.model", null, trace.model ?? "–"),
      h("td.status", null, statusText(trace)),
      h("td.num", null, formatCount(trace.turns)),
      h("td.num.tokens", null, `${formatCount(trace.inputTokens)} / ${formatCount(trace.outputTokens)}`),
      h("td.num.cost", null, formatCost(trace.cost)),
      h("td.num", null, formatDuration(trace.durationMs)),
      h("td.num", null, formatCount(trace.spanCount)),
      h("td.file.muted", null, trace.name),
    );
    if (fresh.has(trace.name)) row.classList.add("fresh");
    row.addEventListener("click", () => open(trace.name));
    row.addEventListener("keydown", (event) => {
      if (event.key === "Enter") open(trace.name);
    });
    body.append(row);
  }
  return h(
    "div.list-view",
    null,
    h("h1", null, `${traces.length} trace${traces.length === 1 ? "" : "s"}`, h("span.muted", null, " newest first")),
    h(
      "table.traces",
      null,
      h(
        "thead",
        null,
        h(
          "tr",
          null,
          ...["Started", "Agent or prompt", "Model", "Status", "Turns", "Tokens in / out", "Cost", "Duration", "Spans", "File"].map(
            (title) => h("th", null, title),
          ),
        ),
      ),
      body,
    ),
  );
}

function statusText(trace: TraceSummary): string {
  const errors = trace.errorCount > 0 && trace.status !== "error" ? ` · ${trace.errorCount} error${trace.errorCount === 1 ? "" : "s"}` : "";
  if (trace.status === "unreadable") return `✗ unreadable: ${trace.error ?? "not a valid trace"}`;
  // The reason (its size, the limit, the option that raises it) is the row's title, and the page shown on a click.
  if (trace.status === "too_large") return "✗ too large to load";
  const mark = trace.status === "completed" ? "✓" : trace.status === "running" ? "●" : trace.status === "interrupted" ? "⏸" : "✗";
  return `${mark} ${trace.status}${errors}`;
}
