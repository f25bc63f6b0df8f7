import type { ToolCall } from "../core/types.js";

const snippetLength = 200;

/**
 * Deepest nesting of tool-call arguments accepted (objects and arrays). Deeper arguments are refused
 * with an `argumentsError`: no tool needs them, and `JSON.stringify` of a few thousand levels throws a
 * RangeError, which would crash the next request's serialisation.
 */
export const maxArgumentsDepth = 64;

/**
 * Longest tool-call arguments accepted, in characters of JSON (about 1 MB; a model writes at most a few
 * hundred thousand characters per reply). Longer ones are refused with an `argumentsError`.
 */
export const maxArgumentsLength = 1_000_000;

/**
 * Builds a ToolCall from the arguments a provider sent: a JSON string (the wire format), an object
 * (some OpenAI-compatible servers, Anthropic), or nothing (a tool without parameters). Arguments that
 * are not a JSON object, or are nested deeper than {@link maxArgumentsDepth} or longer than
 * {@link maxArgumentsLength}, become {@link ToolCall.argumentsError} with `arguments: {}`, so the model
 * reads what went wrong and the conversation can still be sent back. `truncated` says the response was
 * cut off (max_tokens) while the arguments were written.
 */
export function createToolCall(
  id: string,
  name: string,
  rawArguments: unknown,
  options: { truncated?: boolean | undefined } = {},
): ToolCall {
  const parsed = parseArguments(rawArguments);
  if ("value" in parsed) return { id, name, arguments: parsed.value };
  if ("tooLarge" in parsed) return { id, name, arguments: {}, argumentsError: parsed.tooLarge };
  const text = typeof rawArguments === "string" ? rawArguments : String(JSON.stringify(rawArguments));
  const reason = options.truncated
    ? "the response hit the output token limit (max_tokens) before the arguments were complete, so they are cut off"
    : `the arguments are not ${parsed.problem}`;
  return { id, name, arguments: {}, argumentsError: `${reason}. Received: ${snippet(text)}.` };
}

type ParsedArguments = { value: Record<string, unknown> } | { problem: string } | { tooLarge: string };

function parseArguments(raw: unknown): ParsedArguments {
  if (raw === undefined || raw === null) return { value: {} };
  let value: unknown = raw;
  if (typeof raw === "string") {
    // Providers send "" for a call without arguments (Anthropic streams, some compatible servers).
    if (raw.trim() === "") return { value: {} };
    const tooLarge = checkText(raw);
    if (tooLarge) return { tooLarge };
    try {
      value = JSON.parse(raw);
    } catch (error) {
      return { problem: `valid JSON (${(error as Error).message})` };
    }
  } else {
    const tooLarge = checkValue(raw);
    if (tooLarge) return { tooLarge };
  }
  if (typeof value === "object" && value !== null && !Array.isArray(value)) return { value: value as Record<string, unknown> };
  return { problem: "a JSON object" };
}

const tooDeep = `the arguments are nested more than ${maxArgumentsDepth} levels deep. Send flatter arguments.`;
const limit = maxArgumentsLength.toLocaleString("en-US");
const tooLong = (length: number | undefined) =>
  `the arguments are ${length === undefined ? `over ${limit}` : length.toLocaleString("en-US")} characters long; at most ${limit} are accepted. Send shorter arguments.`;

/** Why JSON text is too large to accept (too long, or brackets nested too deep outside strings), or undefined. */
function checkText(text: string): string | undefined {
  if (text.length > maxArgumentsLength) return tooLong(text.length);
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
      if (++depth > maxArgumentsDepth) return tooDeep;
    } else if (code === 0x7d || code === 0x5d) depth--;
  }
  return undefined;
}

/** Why an already parsed value is too large to accept, or undefined. Walks without recursion, and stops at the first excess. */
function checkValue(value: unknown): string | undefined {
  const pending: [unknown, number][] = [[value, 0]];
  let length = 0;
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [item, depth] = next;
    if (typeof item === "string") length += item.length + 2;
    else if (typeof item !== "object" || item === null) length += 8;
    else {
      if (depth + 1 > maxArgumentsDepth) return tooDeep;
      const entries = Array.isArray(item) ? item : Object.entries(item);
      for (const entry of entries) {
        if (Array.isArray(item)) pending.push([entry, depth + 1]);
        else {
          const [key, child] = entry as [string, unknown];
          length += key.length + 4;
          pending.push([child, depth + 1]);
        }
      }
      length += 2;
    }
    if (length > maxArgumentsLength) return tooLong(undefined);
  }
  return undefined;
}

function snippet(text: string): string {
  return text.length <= snippetLength ? text : `${text.slice(0, snippetLength)}… (${text.length} characters)`;
}
