import { toOneLine } from "../../text.js";
import { sessionAttributes, traceAttributes } from "../gen-ai-attributes.js";
import { estimateCost } from "../model-prices.js";
import type { Trace, TraceSpan } from "../trace.js";

/** One row of the viewer's list of traces. */
export type TraceSummary = {
  /** The file's name in the served directory: the id the API takes. */
  name: string;
  /** A trace file (`JsonFileExporter`) or a `minagent code` session file. */
  kind: "trace" | "session";
  traceId: string;
  /**
   * What the list calls it: a session's title (the name given with `/rename`, else its first prompt), on one
   * line, cut to {@link titleLength} characters.
   */
  title: string | undefined;
  agent: string | undefined;
  model: string | undefined;
  /**
   * `completed`, `max_steps`, `interrupted`, `error` (the run failed), or for a session `running` (still open) or
   * `failed` (its last run); `unreadable` for a file that says it is a minagent trace but is not a valid one;
   * `too_large` for a file larger than the viewer loads (it is not read).
   */
  status: string;
  /** The error of a failed top-level run; for an unreadable or too large file, what is wrong with it. */
  error: string | undefined;
  turns: number;
  inputTokens: number;
  outputTokens: number;
  /** Estimated US dollars of every priced model call; undefined when no call's model has a known price. */
  cost: number | undefined;
  startTime: number;
  durationMs: number;
  spanCount: number;
  /** Spans that ended in an error: failed tool calls (counted once each), model calls, runs. */
  errorCount: number;
  /** When the file was last written (milliseconds since the epoch). */
  modifiedAt: number;
};

/**
 * Estimated cost of each priced model call, by span id, from `src/trace/model-prices.ts` (the one price table).
 * Calls of a model without a known price are left out.
 */
export function spanCosts(trace: Trace): Record<string, number> {
  const costs: Record<string, number> = {};
  for (const span of trace.spans) {
    if (span.type !== "model-call") continue;
    const cost = costOf(span);
    if (cost !== undefined) costs[span.spanId] = cost;
  }
  return costs;
}

/** What the list shows of a trace: one pass over its spans. */
export function summarizeTrace(trace: Trace, name: string, kind: TraceSummary["kind"], modifiedAt: number): TraceSummary {
  const root = trace.spans[0] as TraceSpan;
  const attributes = root.attributes;
  let cost: number | undefined;
  let inputTokens = 0;
  let outputTokens = 0;
  let errorCount = 0;
  let turns = 0;
  let end = root.endTime;
  for (const span of trace.spans) {
    // A failed tool call marks both its spans (the call and its execution): count it once.
    if (span.status.code === "error" && span.type !== "tool-call") errorCount++;
    end = Math.max(end, span.endTime);
    if (span.type === "turn" && span.parentSpanId === root.spanId) turns++;
    if (span.type !== "model-call") continue;
    inputTokens += numberOf(span.attributes[traceAttributes.inputTokens]);
    outputTokens += numberOf(span.attributes[traceAttributes.outputTokens]);
    const spanCost = costOf(span);
    if (spanCost !== undefined) cost = (cost ?? 0) + spanCost;
  }
  // A session's model calls may not carry tokens that its lines do (sub-agents'): the run's total is the larger.
  inputTokens = Math.max(inputTokens, numberOf(attributes[traceAttributes.inputTokens]));
  outputTokens = Math.max(outputTokens, numberOf(attributes[traceAttributes.outputTokens]));
  const runTurns = attributes[traceAttributes.runTurns];
  const status = attributes[traceAttributes.runStatus];
  return {
    name,
    kind,
    traceId: trace.traceId,
    title: kind === "session" ? titleOf(attributes[sessionAttributes.title] ?? attributes[traceAttributes.runInput]) : undefined,
    agent: stringOf(attributes[traceAttributes.agentName]),
    model: stringOf(attributes[traceAttributes.requestModel]),
    status: root.status.code === "error" && status !== "max_steps" ? "error" : typeof status === "string" ? status : "unknown",
    error: root.status.code === "error" ? root.status.message : undefined,
    turns: typeof runTurns === "number" ? runTurns : turns,
    inputTokens,
    outputTokens,
    cost,
    startTime: root.startTime,
    durationMs: end - root.startTime,
    spanCount: trace.spans.length,
    errorCount,
    modifiedAt,
  };
}

function costOf(span: TraceSpan): number | undefined {
  const model = span.attributes[traceAttributes.requestModel];
  if (typeof model !== "string") return undefined;
  const cacheRead = span.attributes[traceAttributes.cacheReadInputTokens];
  const cacheWrite = span.attributes[traceAttributes.cacheCreationInputTokens];
  return estimateCost(model, {
    inputTokens: numberOf(span.attributes[traceAttributes.inputTokens]),
    outputTokens: numberOf(span.attributes[traceAttributes.outputTokens]),
    ...(typeof cacheRead === "number" && { cacheReadTokens: cacheRead }),
    ...(typeof cacheWrite === "number" && { cacheWriteTokens: cacheWrite }),
  });
}

/** How much of a session's title the list shows. */
export const titleLength = 80;

function titleOf(prompt: unknown): string | undefined {
  const line = typeof prompt === "string" ? toOneLine(prompt, titleLength) : "";
  return line === "" ? undefined : line;
}

function numberOf(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) ? value : 0;
}

function stringOf(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined;
}

/**
 * The list's row for a file that says it is a minagent trace but cannot be read as one (a repeated span id, a
 * span without times…): it is listed, marked, with the reason, rather than left out like a file that is no trace.
 */
export function unreadableSummary(name: string, reason: string, modifiedAt: number): TraceSummary {
  return unreadRow(name, "trace", "unreadable", reason, modifiedAt);
}

/** The list's row for a file larger than the viewer reads: listed, with the reason, but not read. */
export function tooLargeSummary(name: string, kind: TraceSummary["kind"], reason: string, modifiedAt: number): TraceSummary {
  return unreadRow(name, kind, "too_large", reason, modifiedAt);
}

function unreadRow(name: string, kind: TraceSummary["kind"], status: string, reason: string, modifiedAt: number): TraceSummary {
  return {
    name,
    kind,
    traceId: "",
    title: undefined,
    agent: undefined,
    model: undefined,
    status,
    error: reason,
    turns: 0,
    inputTokens: 0,
    outputTokens: 0,
    cost: undefined,
    startTime: modifiedAt,
    durationMs: 0,
    spanCount: 0,
    errorCount: 0,
    modifiedAt,
  };
}
