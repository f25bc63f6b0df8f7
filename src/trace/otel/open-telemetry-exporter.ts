import { type Context, context, type Span, SpanKind, SpanStatusCode, type Tracer, type TracerProvider, trace } from "@opentelemetry/api";
import type { Trace, TraceExporter, TraceSpan } from "../trace.js";

/** Where the spans go. With neither option, the globally registered OpenTelemetry SDK receives them. */
export type OpenTelemetryExporterOptions = {
  /** A tracer to create spans with. */
  tracer?: Tracer;
  /** A provider to get the `minagent` tracer from (e.g. a test's BasicTracerProvider). */
  tracerProvider?: TracerProvider;
};

const spanKinds = { internal: SpanKind.INTERNAL, client: SpanKind.CLIENT, server: SpanKind.SERVER } as const;

/**
 * Sends each finished run to OpenTelemetry through `@opentelemetry/api`, so any OTel SDK and collector
 * receives it: the same tree with parent links, the recorded start and end times, GenAI attributes,
 * and error statuses. The run span becomes a child of the span active where `agent.run` was called.
 * @example
 * import { OpenTelemetryExporter } from "minagent/otel";
 * const tracer = new Tracer({ exporters: [new OpenTelemetryExporter()] });
 */
export class OpenTelemetryExporter implements TraceExporter {
  readonly #options: OpenTelemetryExporterOptions;

  constructor(options: OpenTelemetryExporterOptions = {}) {
    this.#options = options;
  }

  export(recorded: Trace): void {
    // Looked up per export, not once: the application may register its SDK after creating the exporter.
    const tracer = this.#options.tracer ?? (this.#options.tracerProvider ?? trace).getTracer("minagent");
    // The tracer exports at the run's end, synchronously inside `agent.run`, so this is the caller's context.
    const parentContext = context.active();
    const created = new Map<string, Span>();
    for (const span of recorded.spans) {
      const parent = span.parentSpanId === undefined ? undefined : created.get(span.parentSpanId);
      created.set(span.spanId, startSpan(tracer, span, parent ? trace.setSpan(parentContext, parent) : parentContext, recorded.traceId));
    }
    // Children end before their parents, as they would have live.
    for (const span of [...recorded.spans].reverse()) created.get(span.spanId)?.end(span.endTime);
  }
}

function startSpan(tracer: Tracer, span: TraceSpan, parent: Context, traceId: string): Span {
  const started = tracer.startSpan(
    span.name,
    { kind: spanKinds[span.kind], startTime: span.startTime, attributes: { ...span.attributes, "minagent.trace.id": traceId } },
    parent,
  );
  // Successful spans keep the default UNSET status, as the OpenTelemetry specification asks of instrumentation.
  if (span.status.code === "error") started.setStatus({ code: SpanStatusCode.ERROR, message: span.status.message });
  return started;
}
