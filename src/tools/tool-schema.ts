import { createRequire } from "node:module";
import type { Schema, Validate, ValidationError, ValidatorOptions } from "@exodus/schemasafe";
import type { StandardSchemaV1 } from "@standard-schema/spec";
import type { JsonSchema } from "../core/types.js";
import { UsageError } from "../errors.js";
import { checkSchemaSafety } from "./schema-safety.js";
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
 * Compiled parameters by the parameters object, so that one schema is compiled once however many registries add
 * it, or check it first (an MCP server's tools are checked when listed, then added to each registry). The compiled
 * schema holds no tool name (only errors name the tool, and a schema that fails is not kept).
 */
const compiled = new WeakMap<object, CompiledSchema>();

/**
 * Checks a tool's parameters as `ToolRegistry.add` does, throwing the same UsageError when they are not an
 * object schema, are not a valid JSON Schema, or could block the process when validated (see `add`). What it
 * compiles is kept with the parameters object: a tool with these very parameters is then added without compiling
 * them again. Parameters are read once; change a schema by passing a new object.
 * @example checkToolParameters("search", { type: "object", properties: { query: { type: "string" } } });
 */
export function checkToolParameters(toolName: string, parameters: ToolParameters): void {
  compileToolSchema(toolName, parameters);
}

/**
 * Compiles a tool's parameters, or returns what an earlier call compiled from the same object. Throws a UsageError
 * (misuse, thrown early) when they are not an object schema or not a valid JSON Schema. JSON Schemas are compiled by
 * @exodus/schemasafe into a plain function, loaded on first use: validating a call then costs a fraction of a
 * microsecond, and importing minagent costs nothing.
 */
export function compileToolSchema(toolName: string, parameters: ToolParameters): CompiledSchema {
  // Standard Schema libraries may make schemas functions (arktype): those are kept by identity too.
  const keyed = (typeof parameters === "object" && parameters !== null) || typeof parameters === "function";
  const known = keyed ? compiled.get(parameters) : undefined;
  if (known) return known;
  const schema = compileParameters(toolName, parameters);
  if (keyed) compiled.set(parameters, schema);
  return schema;
}

function compileParameters(toolName: string, parameters: ToolParameters): CompiledSchema {
  if (isStandardSchema(parameters)) return compileStandardSchema(toolName, parameters);
  if (typeof parameters !== "object" || parameters === null || Array.isArray(parameters)) {
    throw new UsageError(`Tool "${toolName}": parameters must be a JSON Schema object or a zod (Standard Schema) object.`);
  }
  if (parameters.type !== "object") {
    throw new UsageError(
      `Tool "${toolName}": parameters must describe an object (type: "object"), got type ${JSON.stringify(parameters.type)}. Wrap single values in an object's properties.`,
    );
  }
  checkSchemaSafety(toolName, parameters);
  let check: Validate;
  try {
    check = compileValidator(parameters);
  } catch (error) {
    throw new UsageError(`Tool "${toolName}": parameters are not a valid JSON Schema: ${(error as Error).message}`, { cause: error });
  }
  return {
    jsonSchema: parameters,
    validate: (args) =>
      check(args as never) ? { ok: true, value: args } : { ok: false, problems: describeSchemaErrors(parameters, check.errors ?? []) },
  };
}

/** Compiles with lax rules (schemas written for providers carry keywords of their own); unknown formats are accepted, not fatal. */
function compileValidator(schema: JsonSchema): Validate {
  const { validator } = createRequire(import.meta.url)("@exodus/schemasafe") as typeof import("@exodus/schemasafe");
  const formats: Record<string, () => boolean> = {};
  const options: ValidatorOptions = { mode: "lax", includeErrors: true, allErrors: true, formats };
  for (let attempt = 0; ; attempt++) {
    try {
      return validator(schema as Schema, options);
    } catch (error) {
      const unknownFormat = /Unrecognized format used: "([^"]+)"/.exec((error as Error).message)?.[1];
      if (unknownFormat === undefined || attempt >= 20) throw error;
      formats[unknownFormat] = () => true;
    }
  }
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
  if (jsonSchema.type !== "object")
    throw new UsageError(
      `Tool "${toolName}": parameters must describe an object, but this ${props.vendor} schema is ${describeSchemaType(jsonSchema)}. Use z.object({ … }) and put single values in its properties.`,
    );
  // The schema library runs the same regular expressions the JSON Schema shows, so the same limits apply.
  checkSchemaSafety(toolName, jsonSchema);
  return {
    jsonSchema,
    validate: (args) => {
      const outcome = props.validate(args);
      return outcome instanceof Promise ? outcome.then(toCheck) : toCheck(outcome);
    },
  };
}

function describeSchemaType(schema: JsonSchema): string {
  if (schema.type !== undefined) return `of type ${JSON.stringify(schema.type)}`;
  if (Array.isArray(schema.anyOf) || Array.isArray(schema.oneOf)) return "a union";
  return "not an object";
}

function toCheck(outcome: StandardSchemaV1.Result<unknown>): ArgumentCheck {
  if (!outcome.issues) return { ok: true, value: outcome.value };
  return { ok: false, problems: outcome.issues.slice(0, maxProblems).map(describeIssue) };
}

function describeIssue(issue: StandardSchemaV1.Issue): string {
  const path = (issue.path ?? []).map((segment) => String(typeof segment === "object" ? segment.key : segment)).join(".");
  return `${path || "(arguments)"}: ${issue.message}`;
}

/** One readable reason per failed rule, naming the argument: the validator gives only where, so the rule's value says what. */
function describeSchemaErrors(schema: JsonSchema, errors: readonly ValidationError[]): string[] {
  return errors.slice(0, maxProblems).map(({ keywordLocation, instanceLocation }) => {
    const keyword = keywordLocation.slice(keywordLocation.lastIndexOf("/") + 1);
    const path = decodePointer(instanceLocation).join(".") || "(arguments)";
    return `${path}: ${describeRule(keyword, valueAt(schema, decodePointer(keywordLocation)))} (rule: ${keyword})`;
  });
}

function describeRule(keyword: string, value: unknown): string {
  const shown = JSON.stringify(value);
  switch (keyword) {
    case "required":
      return "is required but missing";
    case "additionalProperties":
    case "unevaluatedProperties":
      return "is not an allowed argument";
    case "type":
      return `must be ${Array.isArray(value) ? value.join(" or ") : String(value)}`;
    case "enum":
      return `must be one of ${shown}`;
    case "const":
      return `must be ${shown}`;
    case "format":
      return `must be a valid ${String(value)}`;
    case "minimum":
      return `must be >= ${shown}`;
    case "maximum":
      return `must be <= ${shown}`;
    case "exclusiveMinimum":
      return `must be > ${shown}`;
    case "exclusiveMaximum":
      return `must be < ${shown}`;
    case "minLength":
    case "minItems":
    case "minProperties":
      return `must have at least ${shown} ${keyword === "minLength" ? "characters" : keyword === "minItems" ? "items" : "properties"}`;
    case "maxLength":
    case "maxItems":
    case "maxProperties":
      return `must have at most ${shown} ${keyword === "maxLength" ? "characters" : keyword === "maxItems" ? "items" : "properties"}`;
    case "pattern":
      return `must match the pattern ${shown}`;
    default:
      return value === undefined ? `breaks the schema's "${keyword}" rule` : `breaks the schema's "${keyword}" rule (${shown})`;
  }
}

/** The segments of a JSON Pointer such as "#/properties/a~1b/type". */
function decodePointer(pointer: string): string[] {
  const body = pointer.replace(/^#\/?/, "");
  return body === "" ? [] : body.split("/").map((segment) => decodeURIComponent(segment).replaceAll("~1", "/").replaceAll("~0", "~"));
}

function valueAt(root: unknown, segments: readonly string[]): unknown {
  let node = root;
  for (const segment of segments) {
    if (typeof node !== "object" || node === null) return undefined;
    node = (node as Record<string, unknown>)[segment];
  }
  return node;
}
