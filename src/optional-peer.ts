import { UsageError } from "./errors.js";

/** A package minagent loads only when a feature needs it, and what to tell a user who has not installed it. */
export type OptionalPackage = {
  /** The package's name as `import` and `require` resolve it, e.g. "@opentelemetry/api". */
  name: string;
  /** What needs it, with its verb, opening the message: "minagent/otel needs", "MCP servers need". */
  neededBy: string;
  /** The command that installs it, e.g. "npm i @opentelemetry/api". */
  install: string;
  /**
   * Whether it is an optional peer dependency of minagent (default true), which the message says. False for a
   * package only a development tool needs (js-tiktoken, for counting tokens in tests), installed as a dev dependency.
   */
  peer?: boolean | undefined;
};

/**
 * True when `error` says that the package `name` could not be found (Node's ESM and CommonJS wordings): the
 * sign that an optional peer dependency is not installed, as opposed to one that failed while loading.
 */
export function isMissingPackage(error: unknown, name: string): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return (code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND") && error instanceof Error && error.message.includes(name);
}

/**
 * What a loader of an optional package throws when loading it failed with `error`: when the package is not
 * installed, a UsageError naming the command that installs it (Node's error as its cause); any other failure (the
 * package is there but broken) as it came, so that its own message is not hidden behind "install it".
 * @example
 * try { return require("@opentelemetry/api"); } catch (error) { throw optionalPackageError(error, openTelemetryApi); }
 */
export function optionalPackageError(error: unknown, optional: OptionalPackage): unknown {
  if (!isMissingPackage(error, optional.name)) return error;
  const message =
    optional.peer === false
      ? `${optional.neededBy} the ${optional.name} package, which is not installed: ${optional.install}`
      : `${optional.neededBy} the ${optional.name} package (an optional peer dependency of minagent), which is not installed. Install it: ${optional.install}`;
  return new UsageError(message, { cause: error });
}
