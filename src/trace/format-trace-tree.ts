import { traceAttributes } from "./gen-ai-attributes.js";
import { groupSpansByParent, type Trace, type TraceSpan } from "./trace.js";

/** How the tree is drawn. Each option may be left out or `undefined` (the default applies). */
export type FormatTraceTreeOptions = {
  /** Width of the timeline bar in characters; 0 hides it (default 24). */
  timelineWidth?: number | undefined;
  /** Longest preview of arguments and results on a line (default 60). */
  previewLength?: number | undefined;
};

/** A span waiting to be drawn: the tree lines before it, and how many levels above them are not drawn. */
type DrawItem = { span: TraceSpan; prefix: string; branch: string; hidden: number };

/** Indentation drawn at most (40 levels); deeper spans show how many levels are left out (`…12 `). */
const maxIndent = 40 * 3;

/**
 * Draws a trace as a tree, one span per line: duration, a timeline bar (overlapping bars are tool
 * calls that ran in parallel), then the span with its outcome, tokens, arguments or result.
 * Durations and bars come first, in fixed-width columns, so wide characters in names never break alignment.
 */
export function formatTraceTree(trace: Trace, options: FormatTraceTreeOptions = {}): string {
  const root = trace.spans.find((span) => span.parentSpanId === undefined) ?? trace.spans[0];
  if (!root) return `trace ${trace.traceId} (no spans)\n`;
  const width = options.timelineWidth ?? 24;
  const previewLength = options.previewLength ?? 60;
  const lines = [`trace ${trace.traceId}  ${formatStart(root.startTime)}`];
  // Children grouped once (a lookup per span would make a 40,000-span trace take seconds), and drawn
  // depth-first from an explicit stack, so runs nested thousands deep cannot overflow the call stack.
  const children = groupSpansByParent(trace);
  const drawn = new Set<TraceSpan>(); // a hand-edited file may hold a cycle
  const stack: DrawItem[] = [{ span: root, prefix: "", branch: "", hidden: 0 }];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    const { span, prefix, branch, hidden } = item;
    if (drawn.has(span)) continue;
    drawn.add(span);
    const bar = width > 0 ? `  ${timeline(span, root, width)}` : "";
    const deeper = hidden > 0 ? `…${hidden} ` : "";
    lines.push(`${formatDuration(span.durationMs).padStart(9)}${bar}  ${deeper}${prefix}${branch}${describe(span, previewLength)}`);
    const under = children.get(span.spanId) ?? [];
    let childPrefix = prefix + (branch === "├─ " ? "│  " : branch === "└─ " ? "   " : "");
    let childHidden = hidden;
    // Past 40 levels the oldest are counted, not drawn: the lines stay readable and the output linear.
    if (childPrefix.length > maxIndent) {
      childPrefix = childPrefix.slice(3);
      childHidden++;
    }
    for (let index = under.length - 1; index >= 0; index--) {
      const child = under[index] as TraceSpan;
      stack.push({ span: child, prefix: childPrefix, branch: index === under.length - 1 ? "└─ " : "├─ ", hidden: childHidden });
    }
  }
  const left = trace.spans.length - drawn.size;
  if (left > 0) lines.push(`(${left} span${left === 1 ? "" : "s"} not under the run span: not drawn)`);
  return `${lines.join("\n")}\n`;
}

/** `0.42 ms`, `12.3 ms`, `2.41 s`. */
export function formatDuration(milliseconds: number): string {
  if (milliseconds >= 1000) return `${(milliseconds / 1000).toFixed(2)} s`;
  if (milliseconds >= 10) return `${milliseconds.toFixed(1)} ms`;
  return `${milliseconds.toFixed(2)} ms`;
}

function describe(span: TraceSpan, previewLength: number): string {
  const parts = [span.name];
  const attributes = span.attributes;
  const error = span.status.code === "error" ? `✗ ${preview(span.status.message, previewLength)}` : undefined;
  switch (span.type) {
    case "run":
      parts.push(runOutcome(span) ?? error ?? "", tokens(span));
      break;
    case "turn":
      parts.push(error ?? (attributes[traceAttributes.turnResumed] === true ? "resumed" : ""));
      break;
    case "model-call": {
      const reasons = attributes[traceAttributes.responseFinishReasons];
      parts.push(error ?? (Array.isArray(reasons) ? reasons.join(",") : ""), tokens(span));
      break;
    }
    case "tool-call": {
      const args = attributes[traceAttributes.toolCallArguments];
      parts.push(typeof args === "string" ? preview(args, previewLength) : "");
      break;
    }
    case "tool-execution": {
      const result = attributes[traceAttributes.toolCallResult];
      parts.push(error ?? pending(span, previewLength) ?? (typeof result === "string" ? `→ ${preview(result, previewLength)}` : ""));
      break;
    }
    default:
      parts.push(error ?? "");
  }
  const [name, ...details] = parts.filter((part) => part !== "");
  return details.length > 0 ? `${name}  ${details.join(" · ")}` : (name ?? "");
}

/** `✓ completed in 3 turns`, `✗ max_steps after 8 turns`, `⏸ interrupted: 1 call awaits approval`; undefined for a failed run. */
function runOutcome({ attributes }: TraceSpan): string | undefined {
  const turns = attributes[traceAttributes.runTurns];
  if (typeof turns !== "number") return undefined;
  const inTurns = `${turns} turn${turns === 1 ? "" : "s"}`;
  // Files written before `minagent.run.status` carry only `converged`, and a run that did not converge was an error span.
  const status = attributes[traceAttributes.runStatus] ?? (attributes[traceAttributes.runConverged] === false ? "max_steps" : "completed");
  switch (status) {
    case "completed":
      return `✓ completed in ${inTurns}`;
    case "max_steps":
      return `✗ max_steps after ${inTurns}`;
    case "interrupted": {
      const count = attributes[traceAttributes.runPendingCount];
      return typeof count === "number" ? `⏸ interrupted: ${count} call${count === 1 ? " awaits" : "s await"} approval` : "⏸ interrupted";
    }
    default:
      return `${String(status)} after ${inTurns}`;
  }
}

/** `⏸ awaits approval: <reason>` for a call that was not run. */
function pending({ attributes }: TraceSpan, previewLength: number): string | undefined {
  if (attributes[traceAttributes.toolPending] !== true) return undefined;
  const reason = attributes[traceAttributes.toolPendingReason];
  return typeof reason === "string" ? `⏸ awaits approval: ${preview(reason, previewLength)}` : "⏸ awaits approval";
}

function tokens(span: TraceSpan): string {
  const input = span.attributes[traceAttributes.inputTokens];
  const output = span.attributes[traceAttributes.outputTokens];
  if (typeof input !== "number" || typeof output !== "number" || input + output === 0) return "";
  const cached = span.attributes[traceAttributes.cacheReadInputTokens];
  return `${input} in / ${output} out tokens${typeof cached === "number" && cached > 0 ? ` (${cached} cached)` : ""}`;
}

/** One line of at most `length` characters. Only the start of a long text is read: a result may be 8,000 characters. */
function preview(text: string, length: number): string {
  const start = text.length > length * 4 ? text.slice(0, length * 4) : text;
  const line = start.replace(/\s+/g, " ").trim();
  return line.length > length || start !== text ? `${line.slice(0, length - 1)}…` : line;
}

/** The ISO time of a start, or the number as it is when it is no time (a hand-made file). */
function formatStart(startTime: number): string {
  const date = new Date(startTime);
  return Number.isNaN(date.getTime()) ? String(startTime) : date.toISOString();
}

/** `[   ████     ]`: where the span lies within the run. */
function timeline(span: TraceSpan, root: TraceSpan, width: number): string {
  const total = root.durationMs;
  if (total <= 0) return `[${"█".repeat(width)}]`;
  const from = Math.min(width - 1, Math.floor(((span.startTime - root.startTime) / total) * width));
  const to = Math.max(from + 1, Math.min(width, Math.ceil(((span.endTime - root.startTime) / total) * width)));
  return `[${" ".repeat(from)}${"█".repeat(to - from)}${" ".repeat(width - to)}]`;
}
