import { createRequire } from "node:module";
import type { StandardSchemaV1 } from "@standard-schema/spec";
import type { Ajv as AjvInstance, ErrorObject } from "ajv";
import type { JsonSchema } from "../core/types.js";
import { UsageError } from "../errors.js";
import { isStandardSchema, type ToolParameters } from "./tool.js";

/** The outcome of checking arguments: the (possibly transformed) value, or what was wrong. */
export type ArgumentCheck = { ok: true; value: unknown } | { ok: false; problems: string[] };

/** A tool's parameters, ready to use: the JSON Schema the model is sent, and a validator. */
export type CompiledSchema = {
  jsonSchema: JsonSchema;
  validate(args: Record<string, unknown>): ArgumentCheck | Promise<ArgumentCheck>;
};

const maxProblems = 10;

/**
 * Compiles a tool's parameters. Throws a UsageError (misuse, thrown early) when they are not an
 * object schema or cannot be compiled. `ajv` is loaded on first use, so importing minagent stays cheap.
 */
export function compileToolSchema(toolName: string, parameters: ToolParameters, ajv: () => AjvInstance): CompiledSchema {
  if (isStandardSchema(parameters)) return compileStandardSchema(toolName, parameters);
  if (typeof parameters !== "object" || parameters === null || Array.isArray(parameters)) {
    throw new UsageError(`Tool "${toolName}": parameters must be a JSON Schema object or a zod (Standard Schema) object.`);
  }
  if (parameters.type !== "object") {
    throw new UsageError(
      `Tool "${toolName}": parameters must describe an object (type: "object"), got type ${JSON.stringify(parameters.type)}. Wrap single values in an object's properties.`,
    );
  }
  let check: ReturnType<AjvInstance["compile"]>;
  try {
    check = ajv().compile(parameters);
  } catch (error) {
    throw new UsageError(`Tool "${toolName}": parameters are not a valid JSON Schema: ${(error as Error).message}`, { cause: error });
  }
  return {
    jsonSchema: parameters,
    validate: (args) => (check(args) ? { ok: true, value: args } : { ok: false, problems: describeAjvErrors(check.errors ?? []) }),
  };
}

/** Creates the validator a registry shares among its JSON Schema tools. */
export function createAjv(): AjvInstance {
  const require = createRequire(import.meta.url);
  const Ajv = (require("ajv") as { default: new (options: object) => AjvInstance }).default;
  // Lenient on purpose: tool schemas written for providers carry keywords and formats ajv would reject or log about.
  return new Ajv({ allErrors: true, strict: false, validateFormats: false, logger: false });
}

function compileStandardSchema(
  toolName: string,
  schema: StandardSchemaV1 & Partial<{ "~standard": { jsonSchema?: unknown } }>,
): CompiledSchema {
  const props = schema["~standard"] as StandardSchemaV1.Props & { jsonSchema?: { input(options: { target: string }): JsonSchema } };
  if (typeof props.jsonSchema?.input !== "function") {
    throw new UsageError(
      `Tool "${toolName}": its ${props.vendor} schema cannot convert itself to JSON Schema. Use zod 4 (or another Standard JSON Schema library) or pass a JSON Schema object.`,
    );
  }
  // The model needs the shape, not the dialect marker: drop "$schema" so no framework tokens are sent.
  const { $schema: _dialect, ...jsonSchema } = props.jsonSchema.input({ target: "draft-2020-12" });
  return {
    jsonSchema,
    validate: (args) => {
      const outcome = props.validate(args);
      return outcome instanceof Promise ? outcome.then(toCheck) : toCheck(outcome);
    },
  };
}

function toCheck(outcome: StandardSchemaV1.Result<unknown>): ArgumentCheck {
  if (!outcome.issues) return { ok: true, value: outcome.value };
  return { ok: false, problems: outcome.issues.slice(0, maxProblems).map(describeIssue) };
}

function describeIssue(issue: StandardSchemaV1.Issue): string {
  const path = (issue.path ?? []).map((segment) => String(typeof segment === "object" ? segment.key : segment)).join(".");
  return `${path || "(arguments)"}: ${issue.message}`;
}

function describeAjvErrors(errors: ErrorObject[]): string[] {
  return errors.slice(0, maxProblems).map((error) => {
    const path = error.instancePath.slice(1).replaceAll("/", ".") || "(arguments)";
    return `${path}: ${error.message ?? "is invalid"} (rule: ${error.keyword})`;
  });
}
