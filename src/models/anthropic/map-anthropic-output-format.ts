import { transformJSONSchema } from "@anthropic-ai/sdk/lib/transform-json-schema";
import type { ResponseFormat } from "../../core/types.js";
import { UsageError } from "../../errors.js";
import type { AnthropicOutputFormat } from "./anthropic-wire-types.js";

/** Each schema as the API takes it, by the schema object: an agent sends the same one on every call. */
const sent = new WeakMap<object, AnthropicOutputFormat>();

/**
 * Maps a response format to Anthropic's `output_config.format`. Structured outputs accept a subset of JSON Schema
 * (every object closed with `additionalProperties: false`; no numeric bounds, string lengths or patterns), so the
 * schema goes through the SDK's own `transformJSONSchema`, which closes objects and moves the keywords the API
 * refuses into descriptions. Nothing is lost: the engine validates the answer against the full schema and sends a
 * wrong one back. A schema the transform cannot take (no `type`) is a UsageError.
 * @see https://docs.claude.com/en/docs/build-with-claude/structured-outputs#json-schema-limitations
 */
export function mapAnthropicOutputFormat({ name, schema }: ResponseFormat): AnthropicOutputFormat {
  const known = sent.get(schema);
  if (known) return known;
  let format: AnthropicOutputFormat;
  try {
    format = { type: "json_schema", schema: transformJSONSchema(schema) as Record<string, unknown> };
  } catch (error) {
    throw new UsageError(
      `AnthropicModel: the output schema "${name}" cannot be sent as structured output (${(error as Error).message}). Give every schema a type, or pass structuredOutput: false to answer through a tool.`,
      { cause: error },
    );
  }
  sent.set(schema, format);
  return format;
}
