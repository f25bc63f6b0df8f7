/**
 * `minagent/trace`: span trees of runs (a Tracer is an agent's `onEvent` listener), exporters (JSON files,
 * console, memory) and secret scrubbing. A separate entry point, so that `import "minagent"` loads only the engine.
 * OpenTelemetry export lives in `minagent/otel`.
 */
export { ConsoleTraceExporter, type ConsoleTraceExporterOptions } from "./console-trace-exporter.js";
export { type FormatTraceTreeOptions, formatDuration, formatTraceTree } from "./format-trace-tree.js";
export { genAiOperations, traceAttributes } from "./gen-ai-attributes.js";
export {
  type JsonDirectoryOptions,
  JsonFileExporter,
  type JsonFileExporterOptions,
  type JsonPathOptions,
  parseTrace,
  readTraceFile,
} from "./json-file-exporter.js";
export { MemoryTraceExporter } from "./memory-trace-exporter.js";
export { createSecretScrubber, type ScrubOptions, type SecretScrubber } from "./scrub-secrets.js";
export type { TraceSubject } from "./span-tree-builder.js";
export {
  type AttributeValue,
  childSpans,
  groupSpansByParent,
  type SpanAttributes,
  type SpanKind,
  type SpanStatus,
  type SpanType,
  type Trace,
  type TraceExporter,
  type TraceSpan,
} from "./trace.js";
export { Tracer, type TracerOptions } from "./tracer.js";
