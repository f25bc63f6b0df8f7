/**
 * `minagent/otel`: the OpenTelemetry exporter, behind its own entry point so that `import "minagent"`
 * never loads `@opentelemetry/api`.
 */
export { OpenTelemetryExporter, type OpenTelemetryExporterOptions } from "./open-telemetry-exporter.js";
