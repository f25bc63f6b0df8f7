/**
 * The trace format: what a tracer builds from one top-level run (and the runs started under it) and what every
 * exporter receives.
 * This is also the JSON file format (see docs/tracing.md); change it only with a new `version`.
 */

/** Which side of an exchange a span stands for, as in OpenTelemetry. */
export type SpanKind = "internal" | "client" | "server";

/**
 * What a span stands for in minagent's vocabulary:
 * - `run`: one `agent.run` (or a pattern's run): the root, or a child run under the tool execution (or run) that started it;
 * - `turn`: one model call and the tool calls it asked for;
 * - `model-call`: the request to the model and its response;
 * - `tool-call`: the client side of a tool call, the book's *action* (the request: name and arguments);
 * - `tool-execution`: the server side, under its tool call, the book's *observation* (the result or error).
 */
export type SpanType = "run" | "turn" | "model-call" | "tool-call" | "tool-execution";

/** An attribute value; the subset OpenTelemetry and JSON both carry without loss. */
export type AttributeValue = string | number | boolean | string[];

/** Span attributes, named after the OpenTelemetry GenAI semantic conventions where one exists. */
export type SpanAttributes = Record<string, AttributeValue>;

/** How a span ended. */
export type SpanStatus = { code: "ok" } | { code: "error"; message: string };

/** One timed operation of a run. */
export type TraceSpan = {
  /** 16 hex digits, unique within the trace. */
  spanId: string;
  /** The enclosing span; absent on the top-level run span. */
  parentSpanId?: string;
  /** Display name, following the GenAI conventions: `invoke_agent …`, `chat <model>`, `execute_tool <tool>`. */
  name: string;
  type: SpanType;
  kind: SpanKind;
  /** Milliseconds since the Unix epoch, with sub-millisecond precision. */
  startTime: number;
  /** Milliseconds since the Unix epoch; never before `startTime`. */
  endTime: number;
  /** `endTime - startTime`, for readers of the file. */
  durationMs: number;
  status: SpanStatus;
  /** Already scrubbed of secrets and truncated: exporters may send them anywhere. */
  attributes: SpanAttributes;
};

/** Everything recorded about one top-level run and its child runs: the JSON file format. */
export type Trace = {
  /** Identifies the file format. */
  format: "minagent-trace";
  /** Format version; readers reject versions they do not know. */
  version: 1;
  /** 32 hex digits. */
  traceId: string;
  /** Every span, parents before their children, in the order they started. The first is the top-level run span. */
  spans: TraceSpan[];
};

/** Receives each finished trace. Implement it to send traces elsewhere. */
export interface TraceExporter {
  /**
   * Called once per top-level run, when it ends (or fails). May return a promise; `Tracer.flush()` awaits it.
   * A throw or rejection is reported as a process warning and never affects the run.
   */
  export(trace: Trace): void | Promise<void>;
}

/**
 * The spans directly under `parent`, in start order. It reads every span: to walk a whole tree, group
 * the spans once with {@link groupSpansByParent}.
 */
export function childSpans(trace: Trace, parent: TraceSpan): TraceSpan[] {
  return trace.spans.filter((span) => span.parentSpanId === parent.spanId);
}

/** Every span's children, by the parent's `spanId`, each list in start order; one pass over the spans. */
export function groupSpansByParent(trace: Trace): Map<string, TraceSpan[]> {
  const children = new Map<string, TraceSpan[]>();
  for (const span of trace.spans) {
    if (span.parentSpanId === undefined) continue;
    const siblings = children.get(span.parentSpanId);
    if (siblings) siblings.push(span);
    else children.set(span.parentSpanId, [span]);
  }
  return children;
}
