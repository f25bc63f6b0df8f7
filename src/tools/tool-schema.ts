import type { StandardSchemaV1 } from "@standard-schema/spec";
import {
  type CompiledSchema,
  compileJsonSchema,
  type SchemaCheck,
  standardJsonSchema,
  validateWithStandardSchema,
} from "../core/compile-schema.js";
import { checkSchemaSafety } from "../core/schema-safety.js";
import type { JsonSchema } from "../core/types.js";
import { UsageError } from "../errors.js";
import { isStandardSchema, type ToolParameters } from "./tool.js";

/** The outcome of checking arguments: the (possibly transformed) value, or what was wrong. */
export type ArgumentCheck = SchemaCheck;

/** A tool's parameters, ready to use: the JSON Schema the model is sent, and a validator. */
export type { CompiledSchema };

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

/**
 * A tool's parameters checked to describe an object, with a JSON Schema compiled at the first `validate` (a tool's
 * `compileOnFirstCall`): what a schema would throw is thrown then. Compiled by an earlier call, it is that one.
 */
export function compileToolSchemaOnFirstCall(toolName: string, parameters: ToolParameters): CompiledSchema {
  if (isStandardSchema(parameters)) return compileToolSchema(toolName, parameters);
  const known = compiled.get(parameters);
  if (known) return known;
  const jsonSchema = objectSchema(toolName, parameters);
  let schema: CompiledSchema | undefined;
  return {
    jsonSchema,
    validate: (value) => {
      schema ??= compileToolSchema(toolName, jsonSchema);
      return schema.validate(value);
    },
  };
}

function compileParameters(toolName: string, parameters: ToolParameters): CompiledSchema {
  if (isStandardSchema(parameters)) return compileStandardSchema(toolName, parameters);
  return compileJsonSchema(`Tool "${toolName}": parameters`, objectSchema(toolName, parameters));
}

/** The parameters as an object's JSON Schema (not a schema library's: that is told apart first), or a UsageError. */
function objectSchema(toolName: string, parameters: unknown): JsonSchema {
  if (typeof parameters !== "object" || parameters === null || Array.isArray(parameters)) {
    throw new UsageError(`Tool "${toolName}": parameters must be a JSON Schema object or a zod (Standard Schema) object.`);
  }
  const { type } = parameters as JsonSchema;
  if (type !== "object") {
    throw new UsageError(
      `Tool "${toolName}": parameters must describe an object (type: "object"), got type ${JSON.stringify(type)}. Wrap single values in an object's properties.`,
    );
  }
  return parameters as JsonSchema;
}

function compileStandardSchema(toolName: string, schema: StandardSchemaV1): CompiledSchema {
  const jsonSchema = standardJsonSchema(schema);
  const { vendor } = schema["~standard"];
  if (!jsonSchema) {
    throw new UsageError(
      `Tool "${toolName}": its ${vendor} schema cannot convert itself to JSON Schema. Use zod 4 (or another Standard JSON Schema library) or pass a JSON Schema object.`,
    );
  }
  if (jsonSchema.type !== "object")
    throw new UsageError(
      `Tool "${toolName}": parameters must describe an object, but this ${vendor} schema is ${describeSchemaType(jsonSchema)}. Use z.object({ … }) and put single values in its properties.`,
    );
  // The schema library runs the same regular expressions the JSON Schema shows, so the same limits apply.
  checkSchemaSafety(`Tool "${toolName}": parameters`, jsonSchema);
  return { jsonSchema, validate: (args) => validateWithStandardSchema(schema, args) };
}

function describeSchemaType(schema: JsonSchema): string {
  if (schema.type !== undefined) return `of type ${JSON.stringify(schema.type)}`;
  if (Array.isArray(schema.anyOf) || Array.isArray(schema.oneOf)) return "a union";
  return "not an object";
}
