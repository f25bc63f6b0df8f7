import { createRequire } from "node:module";
import type { OutputUnit, Validator } from "@cfworker/json-schema";
import type { StandardSchemaV1 } from "@standard-schema/spec";
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
const typeNames = new Set(["object", "array", "string", "number", "integer", "boolean", "null"]);

/**
 * Compiles a tool's parameters. Throws a UsageError (misuse, thrown early) when they are not an object schema.
 * JSON Schemas are checked by @cfworker/json-schema (drafts 4 to 2020-12), loaded on first use: it interprets
 * schemas instead of generating code, so a first tool costs milliseconds, not the ~100 ms of a code generator.
 */
export function compileToolSchema(toolName: string, parameters: ToolParameters): CompiledSchema {
  if (isStandardSchema(parameters)) return compileStandardSchema(toolName, parameters);
  if (typeof parameters !== "object" || parameters === null || Array.isArray(parameters)) {
    throw new UsageError(`Tool "${toolName}": parameters must be a JSON Schema object or a zod (Standard Schema) object.`);
  }
  if (parameters.type !== "object") {
    throw new UsageError(
      `Tool "${toolName}": parameters must describe an object (type: "object"), got type ${JSON.stringify(parameters.type)}. Wrap single values in an object's properties.`,
    );
  }
  const mistake = findTypeMistake(parameters, "parameters");
  if (mistake) throw new UsageError(`Tool "${toolName}": parameters are not a valid JSON Schema: ${mistake}`);
  const validator = createValidator(parameters);
  return {
    jsonSchema: parameters,
    validate: (args) => {
      const outcome = validator.validate(args);
      return outcome.valid ? { ok: true, value: args } : { ok: false, problems: describeSchemaErrors(outcome.errors) };
    },
  };
}

function createValidator(schema: JsonSchema): Validator {
  const require = createRequire(import.meta.url);
  const { Validator } = require("@cfworker/json-schema") as typeof import("@cfworker/json-schema");
  const draft = typeof schema.$schema === "string" && schema.$schema.includes("draft-07") ? "7" : "2020-12";
  return new Validator(schema, draft, false);
}

/** Keywords whose value maps names (not keywords) to schemas. */
const schemaMaps = new Set(["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"]);
/** Keywords whose value is data, not schemas. */
const dataKeywords = new Set(["const", "enum", "default", "examples"]);

/** The first `type` keyword (at any depth) that names no JSON type: a schema mistake the validator would not report. */
function findTypeMistake(schema: unknown, path: string): string | undefined {
  if (typeof schema !== "object" || schema === null) return undefined;
  if (Array.isArray(schema)) return firstMistake(schema.map((item, i) => [`${path}[${i}]`, item]));
  const record = schema as Record<string, unknown>;
  const type = record.type;
  if (type !== undefined && !(Array.isArray(type) ? type : [type]).every((name) => typeNames.has(name as string))) {
    return `${path}.type is ${JSON.stringify(type)}; use one of ${[...typeNames].join(", ")}.`;
  }
  const children: [string, unknown][] = [];
  for (const [key, value] of Object.entries(record)) {
    if (key === "type" || dataKeywords.has(key)) continue;
    if (schemaMaps.has(key) && typeof value === "object" && value !== null) {
      for (const [name, child] of Object.entries(value)) children.push([`${path}.${key}.${name}`, child]);
    } else {
      children.push([`${path}.${key}`, value]);
    }
  }
  return firstMistake(children);
}

function firstMistake(children: [string, unknown][]): string | undefined {
  for (const [path, child] of children) {
    const found = findTypeMistake(child, path);
    if (found) return found;
  }
  return undefined;
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

/**
 * The validator reports every level of a failure ("property a does not match" and, under it, "a must be a number");
 * the model needs only the innermost reasons, each with the argument it concerns.
 */
function describeSchemaErrors(errors: readonly OutputUnit[]): string[] {
  const leaves = errors.filter(
    (error) =>
      error.keyword !== "additionalProperties" &&
      !errors.some((other) => other !== error && other.keywordLocation.startsWith(`${error.keywordLocation}/`)),
  );
  return leaves.slice(0, maxProblems).map((error) => {
    const path = decodeURIComponent(error.instanceLocation.replace(/^#\/?/, "")).replaceAll("/", ".") || "(arguments)";
    // A `false` schema is what additionalProperties: false puts on an unexpected argument.
    const message =
      error.keyword === "false" ? "is not an allowed argument (rule: additionalProperties)" : `${error.error} (rule: ${error.keyword})`;
    return `${path}: ${message}`;
  });
}
