import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import type { JsonSchema } from "../../core/types.js";
import { UsageError } from "../../errors.js";

/**
 * `--json-schema`'s value as a JSON Schema: the schema's JSON itself (as Claude Code takes it), or the path of a file
 * holding it (relative to `cwd`). Throws a UsageError that says which it was read as and what is wrong.
 */
export function readJsonSchema(value: string, cwd: string): JsonSchema {
  const inline = /^\s*[{[]/.test(value);
  let text = value;
  if (!inline) {
    const path = resolve(cwd, value);
    try {
      text = readFileSync(path, "utf8");
    } catch (error) {
      throw new UsageError(
        `--json-schema: "${value}" is neither a JSON Schema (it does not start with "{") nor a file that can be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
      );
    }
  }
  const where = inline ? "--json-schema" : `--json-schema file ${value}`;
  let schema: unknown;
  try {
    schema = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${where} is not valid JSON: ${(error as Error).message}`);
  }
  if (typeof schema !== "object" || schema === null || Array.isArray(schema))
    throw new UsageError(
      `${where} must be a JSON Schema object, e.g. {"type":"object","properties":{…}}; got ${Array.isArray(schema) ? "an array" : JSON.stringify(schema)}`,
    );
  return schema as JsonSchema;
}
