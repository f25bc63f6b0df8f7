import type { SpanAttributes, SpanKind, SpanType, Trace, TraceSpan } from "./trace.js";

// Every field present from the start (one object shape for all spans); `finish` drops what is undefined.
export type OpenSpan = Omit<TraceSpan, "endTime" | "durationMs" | "parentSpanId"> & {
  parentSpanId: string | undefined;
  endTime: number | undefined;
};

/**
 * The spans of one trace: a top-level run's and those of every run started under it, in start order
 * (so parents come before their children).
 */
export class TraceSpans {
  readonly traceId: string;
  readonly spans: OpenSpan[] = [];
  /** Span ids are this random prefix and a counter from a random start: unique within the trace, and cheap. */
  readonly #spanIdPrefix: string;
  #spanCounter: number;

  /** @param createId random hex of `bytes` bytes */
  constructor(createId: (bytes: number) => string) {
    this.traceId = createId(16);
    this.#spanIdPrefix = createId(4);
    this.#spanCounter = Number.parseInt(createId(4), 16);
  }

  start(type: SpanType, kind: SpanKind, name: string, parent: OpenSpan | undefined, attributes: SpanAttributes, now: number): OpenSpan {
    this.#spanCounter = (this.#spanCounter + 1) >>> 0;
    const span: OpenSpan = {
      spanId: this.#spanIdPrefix + this.#spanCounter.toString(16).padStart(8, "0"),
      parentSpanId: parent?.spanId,
      name,
      type,
      kind,
      startTime: now,
      endTime: undefined,
      status: { code: "ok" },
      attributes,
    };
    this.spans.push(span);
    return span;
  }

  /** The trace as exporters receive it; a span that never ended ends where it started. */
  finish(): Trace {
    const spans = this.spans.map(
      ({ spanId, parentSpanId, name, type, kind, startTime, endTime = startTime, status, attributes }): TraceSpan => {
        // Microseconds are the clock's honest precision.
        const durationMs = Math.round((endTime - startTime) * 1000) / 1000;
        return parentSpanId === undefined
          ? { spanId, name, type, kind, startTime, endTime, durationMs, status, attributes }
          : { spanId, parentSpanId, name, type, kind, startTime, endTime, durationMs, status, attributes };
      },
    );
    return { format: "minagent-trace", version: 1, traceId: this.traceId, spans };
  }
}

/** Ends a span (once), never before it started. */
export function endSpan(span: OpenSpan, now: number): void {
  if (span.endTime === undefined) span.endTime = Math.max(now, span.startTime);
}
