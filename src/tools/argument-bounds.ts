import { formatNumber } from "../text.js";

/**
 * Deepest nesting of tool-call arguments accepted by default (objects and arrays). Validators and serialisers
 * recurse, and `JSON.stringify` of a few thousand levels throws a RangeError, which would crash the next request's
 * serialisation; no tool needs deeper arguments. A registry's `maxArgumentDepth` may lower it.
 */
export const maxArgumentsDepth = 64;

/**
 * Longest tool-call arguments accepted by default, in characters of JSON (about 1 MB; a model writes at most a few
 * hundred thousand characters per reply). A registry's `maxArgumentsLength` may lower it.
 */
export const maxArgumentsLength = 1_000_000;

/** How large arguments may be: deepest nesting, and most characters of JSON. */
export type ArgumentBounds = { maxDepth: number; maxLength: number };

/** The bounds every tool call is held to unless a registry sets its own. */
export const defaultArgumentBounds: ArgumentBounds = Object.freeze({ maxDepth: maxArgumentsDepth, maxLength: maxArgumentsLength });

// The one wording of a refusal: a call refused where a provider's response is read (createToolCall) reads the same
// as one refused by the registry.
const tooDeep = (bounds: ArgumentBounds) => `the arguments are nested more than ${bounds.maxDepth} levels deep. Send flatter arguments.`;
const tooLong = (length: number | undefined, bounds: ArgumentBounds) => {
  const limit = formatNumber(bounds.maxLength);
  return `the arguments are ${length === undefined ? `over ${limit}` : formatNumber(length)} characters long; at most ${limit} are accepted. Send shorter arguments.`;
};

/**
 * Why arguments sent as JSON text are too large to parse (too long, or brackets nested too deep outside strings),
 * or undefined. Reads the text once, without parsing it.
 */
export function checkArgumentText(text: string, bounds: ArgumentBounds = defaultArgumentBounds): string | undefined {
  if (text.length > bounds.maxLength) return tooLong(text.length, bounds);
  let depth = 0;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (inString) {
      if (code === 0x5c)
        index++; // a backslash escapes the next character
      else if (code === 0x22) inString = false;
    } else if (code === 0x22) inString = true;
    else if (code === 0x7b || code === 0x5b) {
      if (++depth > bounds.maxDepth) return tooDeep(bounds);
    } else if (code === 0x7d || code === 0x5d) depth--;
  }
  return undefined;
}

/**
 * Why already parsed arguments are too large (nested deeper than `maxDepth`, or longer than `maxLength` characters
 * as JSON), or undefined. One walk with an explicit stack, so the check itself cannot overflow, stopping at the
 * first excess; the length is JSON's, counted without escapes.
 */
export function checkArgumentValue(value: unknown, bounds: ArgumentBounds = defaultArgumentBounds): string | undefined {
  const flat = bounds.maxDepth >= 1 ? flatLength(value) : undefined;
  if (flat !== undefined) return flat > bounds.maxLength ? tooLong(undefined, bounds) : undefined;
  const pending: [unknown, number][] = [[value, 0]];
  let length = 0;
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [item, depth] = next;
    if (typeof item === "string") length += item.length + 2;
    else if (typeof item !== "object" || item === null) length += 8;
    else {
      if (depth + 1 > bounds.maxDepth) return tooDeep(bounds);
      length += 2;
      if (Array.isArray(item)) for (const element of item) pending.push([element, depth + 1]);
      else
        for (const key in item) {
          length += key.length + 4;
          pending.push([(item as Record<string, unknown>)[key], depth + 1]);
        }
    }
    if (length > bounds.maxLength) return tooLong(undefined, bounds);
  }
  return undefined;
}

/**
 * The JSON length `checkArgumentValue` counts, for the usual arguments: an object (one level deep, within any
 * bound of depth of at least 1) whose values are all strings, numbers, booleans or null; undefined for anything else. It walks
 * them without the general walk's stack, which allocates a pair per value on every tool call.
 */
function flatLength(value: unknown): number | undefined {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  let length = 2;
  for (const key in value) {
    const item = (value as Record<string, unknown>)[key];
    if (typeof item === "string") length += item.length + 2;
    else if (typeof item === "object" && item !== null) return undefined;
    else length += 8;
    length += key.length + 4;
  }
  return length;
}
