import { createRequire } from "node:module";
import type { Schema, Validate, ValidationError, ValidatorOptions } from "@exodus/schemasafe";
import type { StandardSchemaV1 } from "@standard-schema/spec";
import { UsageError } from "../errors.js";
import { checkSchemaSafety } from "./schema-safety.js";
import type { JsonSchema } from "./types.js";

/** The outcome of checking a value against a schema: the (possibly transformed) value, or what was wrong. */
export type SchemaCheck = { ok: true; value: unknown } | { ok: false; problems: string[] };

/** A schema ready to use: the JSON Schema a model is sent, and a validator. */
export type CompiledSchema = {
  jsonSchema: JsonSchema;
  validate(value: unknown): SchemaCheck | Promise<SchemaCheck>;
};

/** What a Standard Schema that can convert itself to JSON Schema (Standard JSON Schema, zod 4) offers. */
type StandardProps = StandardSchemaV1.Props & { jsonSchema?: { input?(options: { target: string }): JsonSchema } };

const maxProblems = 10;

/** True when `schema` is a schema-library object (a Standard Schema) rather than a plain JSON Schema. */
export function isStandardSchema(schema: unknown): schema is StandardSchemaV1 {
  return (typeof schema === "object" || typeof schema === "function") && schema !== null && "~standard" in schema;
}

/**
 * The JSON Schema of what a Standard Schema accepts (its input, which is what a model writes), through Standard JSON
 * Schema (`~standard.jsonSchema.input`); undefined for a library that does not implement it.
 */
export function standardJsonSchema(schema: StandardSchemaV1): JsonSchema | undefined {
  const props = schema["~standard"] as StandardProps;
  if (typeof props.jsonSchema?.input !== "function") return undefined;
  // The model needs the shape, not the dialect marker: drop "$schema" so no framework tokens are sent.
  const { $schema: _dialect, ...jsonSchema } = props.jsonSchema.input({ target: "draft-2020-12" });
  return jsonSchema;
}

/** Validates with the schema library itself, so that its transforms and defaults apply to the value. */
export function validateWithStandardSchema(
  schema: StandardSchemaV1,
  value: unknown,
  root = "(arguments)",
): SchemaCheck | Promise<SchemaCheck> {
  const outcome = schema["~standard"].validate(value);
  return outcome instanceof Promise ? outcome.then((result) => toCheck(result, root)) : toCheck(outcome, root);
}

/**
 * Compiles a JSON Schema into a validator after checking that validating cannot block the process
 * (see {@link checkSchemaSafety}). `subject` names the schema in errors (`Tool "search": parameters`). JSON Schemas
 * are compiled by @exodus/schemasafe into a plain function, loaded on first use: validating then costs a fraction of a
 * microsecond, and importing minagent costs nothing. Throws a UsageError for a schema that is not valid.
 */
export function compileJsonSchema(subject: string, schema: JsonSchema, root = "(arguments)"): CompiledSchema {
  checkSchemaSafety(subject, schema);
  let check: Validate;
  try {
    check = compileValidator(schema);
  } catch (error) {
    throw new UsageError(`${subject} are not a valid JSON Schema: ${(error as Error).message}`, { cause: error });
  }
  return {
    jsonSchema: schema,
    validate: (value) =>
      check(value as never) ? { ok: true, value } : { ok: false, problems: describeSchemaErrors(schema, check.errors ?? [], root) },
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

function toCheck(outcome: StandardSchemaV1.Result<unknown>, root: string): SchemaCheck {
  if (!outcome.issues) return { ok: true, value: outcome.value };
  return { ok: false, problems: outcome.issues.slice(0, maxProblems).map((issue) => describeIssue(issue, root)) };
}

function describeIssue(issue: StandardSchemaV1.Issue, root: string): string {
  const path = (issue.path ?? []).map((segment) => String(typeof segment === "object" ? segment.key : segment)).join(".");
  return `${path || root}: ${issue.message}`;
}

/** One readable reason per failed rule, naming the argument: the validator gives only where, so the rule's value says what. */
function describeSchemaErrors(schema: JsonSchema, errors: readonly ValidationError[], root: string): string[] {
  return errors.slice(0, maxProblems).map(({ keywordLocation, instanceLocation }) => {
    const keyword = keywordLocation.slice(keywordLocation.lastIndexOf("/") + 1);
    const path = decodePointer(instanceLocation).join(".") || root;
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
