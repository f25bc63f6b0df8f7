/**
 * `minagent/otel`: the OpenTelemetry exporter, behind its own entry point so that `import "minagent"`
 * never loads `@opentelemetry/api`. That package is an optional peer dependency, loaded when an
 * exporter is created: without it, `new OpenTelemetryExporter()` throws a UsageError that says
 * `npm i @opentelemetry/api`.
 */
export { OpenTelemetryExporter, type OpenTelemetryExporterOptions } from "./open-telemetry-exporter.js";
