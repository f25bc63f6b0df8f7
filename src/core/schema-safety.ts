import { createRequire } from "node:module";
import { UsageError } from "../errors.js";
import type { JsonSchema } from "./types.js";

/** Most items an array checked for unique objects may have: the check compares every pair. */
export const maxUniqueItems = 1000;

/** Keywords whose values are data, not schemas: a "pattern" inside them is not a rule. */
const dataKeywords = new Set(["enum", "const", "default", "examples"]);

/** Keywords whose subschemas apply to the very value the schema applies to (not to a property or an item). */
const sameValueKeywords = ["allOf", "anyOf", "oneOf", "not", "if", "then", "else"] as const;

/**
 * Refuses, when a tool is added or an agent is given an output schema, a schema whose validation could block the
 * process on what a model sends: a `$ref` that leads back to itself without descending into the value (validation
 * would never end), a regular expression with nested quantifiers (`^(a+)+$`, exponential time on a short string;
 * found by safe-regex2's star-height test), and `uniqueItems` over objects or arrays without a `maxItems` of at most
 * 1,000 (the check compares every pair). Throws a UsageError naming the place (after `subject`, such as
 * `Tool "search": parameters`) and what to write instead.
 */
export function checkSchemaSafety(subject: string, schema: JsonSchema): void {
  const fail = (where: string, problem: string) => new UsageError(`${subject}${where}: ${problem}`);
  let safeRegex: ((pattern: string) => boolean) | undefined;
  const isSafeRegex = (pattern: string) => {
    safeRegex ??= loadSafeRegex();
    return safeRegex(pattern);
  };
  const visited = new Set<object>();
  const visit = (node: unknown, pointer: string): void => {
    if (typeof node !== "object" || node === null || visited.has(node)) return;
    visited.add(node);
    const subschema = node as Record<string, unknown>;
    if (typeof subschema.$ref === "string") checkRefCycle(schema, subschema, pointer, fail);
    if (typeof subschema.pattern === "string" && !isSafeRegex(subschema.pattern))
      throw fail(
        `${pointer}/pattern`,
        `the pattern ${JSON.stringify(subschema.pattern)} has nested quantifiers and can take exponential time on a short string; rewrite it without a repeated group that repeats.`,
      );
    if (typeof subschema.patternProperties === "object" && subschema.patternProperties !== null)
      for (const key of Object.keys(subschema.patternProperties))
        if (!isSafeRegex(key))
          throw fail(
            `${pointer}/patternProperties`,
            `the pattern ${JSON.stringify(key)} has nested quantifiers and can take exponential time on a short string; rewrite it.`,
          );
    if (subschema.uniqueItems === true && !primitiveItems(subschema.items)) {
      const maxItems = subschema.maxItems;
      if (typeof maxItems !== "number" || maxItems > maxUniqueItems)
        throw fail(
          `${pointer}/uniqueItems`,
          `uniqueItems over objects or arrays compares every pair of items; give the array a maxItems of at most ${maxUniqueItems} (it has ${maxItems === undefined ? "none" : maxItems}).`,
        );
    }
    for (const [key, child] of Object.entries(subschema)) if (!dataKeywords.has(key)) visit(child, `${pointer}/${key}`);
  };
  visit(schema, "");
}

/** Follows `$ref`s (and allOf/anyOf/… that apply to the same value) from `start`; coming back to it is a cycle. */
function checkRefCycle(
  root: JsonSchema,
  start: Record<string, unknown>,
  pointer: string,
  fail: (where: string, problem: string) => UsageError,
): void {
  const seen = new Set<object>();
  const queue: unknown[] = [resolveLocalRef(root, start.$ref as string)];
  while (queue.length > 0) {
    const node = queue.pop();
    if (typeof node !== "object" || node === null || seen.has(node)) continue;
    if (node === start)
      throw fail(
        `${pointer}/$ref`,
        `the reference ${JSON.stringify(start.$ref)} leads back to itself without descending into a property or an item, so validation would never end; point it at a schema that describes the value.`,
      );
    seen.add(node);
    const subschema = node as Record<string, unknown>;
    if (typeof subschema.$ref === "string") queue.push(resolveLocalRef(root, subschema.$ref));
    for (const keyword of sameValueKeywords) {
      const value = subschema[keyword];
      if (Array.isArray(value)) queue.push(...value);
      else queue.push(value);
    }
  }
}

/** The subschema a local reference (`#`, `#/$defs/x`) names; undefined for others (the compiler reports those). */
function resolveLocalRef(root: JsonSchema, ref: string): unknown {
  if (!ref.startsWith("#")) return undefined;
  let node: unknown = root;
  for (const segment of ref.slice(1).split("/").slice(1)) {
    if (typeof node !== "object" || node === null) return undefined;
    node = (node as Record<string, unknown>)[decodeURIComponent(segment).replaceAll("~1", "/").replaceAll("~0", "~")];
  }
  return node;
}

/** Items whose equality is a plain comparison: strings, numbers, booleans, null, or an enum of those. */
function primitiveItems(items: unknown): boolean {
  if (typeof items !== "object" || items === null) return false;
  const { type, enum: values, const: constant } = items as Record<string, unknown>;
  const primitive = (value: unknown) => value === null || typeof value !== "object";
  if (Array.isArray(values)) return values.every(primitive);
  if ("const" in (items as object)) return primitive(constant);
  const types = Array.isArray(type) ? type : [type];
  return types.length > 0 && types.every((name) => ["string", "number", "integer", "boolean", "null"].includes(name as string));
}

/** safe-regex2, loaded on first use (it is only needed when a tool is added). A pattern it cannot parse is left to the validator. */
function loadSafeRegex(): (pattern: string) => boolean {
  const safeRegex = createRequire(import.meta.url)("safe-regex2") as (pattern: string) => boolean;
  return (pattern) => {
    try {
      return safeRegex(pattern);
    } catch {
      return true;
    }
  };
}
