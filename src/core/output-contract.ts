import type { StandardSchemaV1 } from "@standard-schema/spec";
import { UsageError } from "../errors.js";
import {
  type CompiledSchema,
  compileJsonSchema,
  isStandardSchema,
  type SchemaCheck,
  standardJsonSchema,
  validateWithStandardSchema,
} from "./compile-schema.js";
import { checkSchemaSafety } from "./schema-safety.js";
import type { JsonSchema, ResponseFormat } from "./types.js";

/**
 * What a run's final answer must be (`AgentOptions.output`): a Standard Schema that can convert itself to JSON Schema
 * (zod 4: `z.object({ … })`; the result's `output` then has its type), or a plain JSON Schema object (`output` is
 * `unknown` unless the Agent is given a type argument). Any schema may be given, not only objects: the model is sent
 * one that is not an object wrapped as `{ value }`, and `output` is the value.
 */
export type OutputSchema<Output = unknown> = StandardSchemaV1<unknown, Output> | JsonSchema;

/** The name the model knows the answer's schema by: the final-answer tool's, or the native format's. */
export const finalAnswerName = "final_answer";

/** An output schema, compiled once per agent: what the model is sent, and how an answer is checked. */
export type OutputContract = {
  /** The JSON Schema the model answers to: the given one, or `{ value: … }` around one that is not an object. */
  readonly wireSchema: JsonSchema;
  /** The native structured-output request for a model that has one. */
  readonly responseFormat: ResponseFormat;
  /** Times a wrong answer is sent back to the model before the run fails. */
  readonly retries: number;
  /**
   * Checks what the model sent (the final-answer tool's arguments, or the parsed JSON of a native answer) and gives
   * the output: the value inside `{ value }` for a wrapped schema (a bare value is accepted too), after the schema
   * library's transforms.
   */
  check(sent: unknown): SchemaCheck | Promise<SchemaCheck>;
  /** The answer as the run's `final` text: what the model sent for the output, as JSON. */
  answerText(sent: unknown): string;
};

const answerRoot = "(answer)";

/** Compiles `AgentOptions.output`; throws a UsageError saying what to pass instead when it cannot be used. */
export function compileOutputContract(schema: OutputSchema, retries: number): OutputContract {
  const compiled = compileOutputSchema(schema);
  const wrapped = compiled.jsonSchema.type !== "object";
  const wireSchema = wrapped ? wrapInValue(compiled.jsonSchema) : compiled.jsonSchema;
  const unwrap = (sent: unknown) => (wrapped && isValueObject(sent) ? sent.value : sent);
  return {
    wireSchema,
    responseFormat: { name: finalAnswerName, schema: wireSchema },
    retries,
    check: (sent) => compiled.validate(unwrap(sent)),
    answerText: (sent) => JSON.stringify(unwrap(sent)) ?? "",
  };
}

function compileOutputSchema(schema: OutputSchema): CompiledSchema {
  const subject = "Agent option output";
  if (isStandardSchema(schema)) {
    const jsonSchema = standardJsonSchema(schema);
    if (!jsonSchema)
      throw new UsageError(
        `${subject}: this ${schema["~standard"].vendor} schema cannot convert itself to JSON Schema, which the model must be sent. Pass a JSON Schema object, or a schema from a library that implements Standard JSON Schema (zod 4, for one).`,
      );
    checkSchemaSafety(subject, jsonSchema);
    return { jsonSchema, validate: (value) => validateWithStandardSchema(schema, value, answerRoot) };
  }
  if (typeof schema !== "object" || schema === null || Array.isArray(schema))
    throw new UsageError(`${subject} must be a JSON Schema object or a Standard Schema (a zod schema), got ${describe(schema)}.`);
  return compileJsonSchema(subject, schema, answerRoot);
}

/**
 * `{ value: schema }`, for a schema that is not an object: providers want an object at the top of a tool's arguments
 * and of a structured answer. Definitions move up, so that `#/$defs/…` references still resolve.
 */
function wrapInValue(schema: JsonSchema): JsonSchema {
  const { $defs, definitions, ...value } = schema;
  return {
    type: "object",
    properties: { value },
    required: ["value"],
    additionalProperties: false,
    ...($defs !== undefined && { $defs }),
    ...(definitions !== undefined && { definitions }),
  };
}

function isValueObject(sent: unknown): sent is { value: unknown } {
  return typeof sent === "object" && sent !== null && !Array.isArray(sent) && Object.keys(sent).length === 1 && "value" in sent;
}

function describe(value: unknown): string {
  if (Array.isArray(value)) return "an array";
  return value === null ? "null" : typeof value;
}
