import type { Context, Span, Tracer, TracerProvider } from "@opentelemetry/api";
import type { Trace, TraceExporter, TraceSpan } from "../trace.js";
import { loadOpenTelemetryApi, type OpenTelemetryApi } from "./load-open-telemetry-api.js";

/**
 * Where the spans go. With neither option, the globally registered OpenTelemetry SDK receives them.
 * Each may be left out or `undefined`.
 */
export type OpenTelemetryExporterOptions = {
  /** A tracer to create spans with. */
  tracer?: Tracer | undefined;
  /** A provider to get the `minagent` tracer from (e.g. a test's BasicTracerProvider). */
  tracerProvider?: TracerProvider | undefined;
};

/**
 * Sends each finished run to OpenTelemetry through `@opentelemetry/api`, so any OTel SDK and collector
 * receives it: the same tree with parent links, the recorded start and end times, GenAI attributes,
 * and error statuses. The run span becomes a child of the span active where `agent.run` was called.
 *
 * `@opentelemetry/api` is an optional peer dependency: without it, the constructor throws a UsageError
 * saying to run `npm i @opentelemetry/api` (importing `minagent/otel` itself never fails).
 * @example
 * import { OpenTelemetryExporter } from "minagent/otel";
 * const tracer = new Tracer({ exporters: [new OpenTelemetryExporter()] });
 */
export class OpenTelemetryExporter implements TraceExporter {
  readonly #options: OpenTelemetryExporterOptions;
  readonly #api: OpenTelemetryApi;

  constructor(options: OpenTelemetryExporterOptions = {}) {
    this.#options = options;
    this.#api = loadOpenTelemetryApi();
  }

  export(recorded: Trace): void {
    const { context, trace } = this.#api;
    // Looked up per export, not once: the application may register its SDK after creating the exporter.
    const tracer = this.#options.tracer ?? (this.#options.tracerProvider ?? trace).getTracer("minagent");
    // The tracer exports at the run's end, synchronously inside `agent.run`, so this is the caller's context.
    const parentContext = context.active();
    const created = new Map<string, Span>();
    for (const span of recorded.spans) {
      const parent = span.parentSpanId === undefined ? undefined : created.get(span.parentSpanId);
      const spanContext = parent ? trace.setSpan(parentContext, parent) : parentContext;
      created.set(span.spanId, this.#startSpan(tracer, span, spanContext, recorded.traceId));
    }
    // Children end before their parents, as they would have live.
    for (const span of [...recorded.spans].reverse()) created.get(span.spanId)?.end(span.endTime);
  }

  #startSpan(tracer: Tracer, span: TraceSpan, parent: Context, traceId: string): Span {
    const { SpanKind, SpanStatusCode } = this.#api;
    const kind = span.kind === "client" ? SpanKind.CLIENT : span.kind === "server" ? SpanKind.SERVER : SpanKind.INTERNAL;
    const started = tracer.startSpan(
      span.name,
      { kind, startTime: span.startTime, attributes: { ...span.attributes, "minagent.trace.id": traceId } },
      parent,
    );
    // Successful spans keep the default UNSET status, as the OpenTelemetry specification asks of instrumentation.
    if (span.status.code === "error") started.setStatus({ code: SpanStatusCode.ERROR, message: span.status.message });
    return started;
  }
}
