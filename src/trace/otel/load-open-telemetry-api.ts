import { createRequire } from "node:module";
import { type OptionalPackage, optionalPackageError } from "../../optional-peer.js";

/** The `@opentelemetry/api` module, as the exporter uses it. */
export type OpenTelemetryApi = typeof import("@opentelemetry/api");

/** What to run to install the optional peer dependency. */
export const installOpenTelemetryApi = "npm i @opentelemetry/api";

const openTelemetryApi: OptionalPackage = { name: "@opentelemetry/api", neededBy: "minagent/otel needs", install: installOpenTelemetryApi };

/**
 * Loads `@opentelemetry/api`, an optional peer dependency of minagent, when an exporter is created
 * rather than when `minagent/otel` is imported, so that a missing package is a UsageError naming the
 * command that installs it instead of a bare ERR_MODULE_NOT_FOUND. The package ships CommonJS, which
 * `require` loads synchronously; Node's `import` of it loads that same file, so the two share one module.
 * @param require resolves from minagent's own folder by default; tests pass one rooted elsewhere.
 */
export function loadOpenTelemetryApi(require: (id: string) => unknown = createRequire(import.meta.url)): OpenTelemetryApi {
  try {
    return require("@opentelemetry/api") as OpenTelemetryApi;
  } catch (error) {
    throw optionalPackageError(error, openTelemetryApi);
  }
}
