import type { ToolCall } from "../core/types.js";
import { checkArgumentText, checkArgumentValue } from "../tools/argument-bounds.js";

const snippetLength = 200;

/**
 * Builds a ToolCall from the arguments a provider sent: a JSON string (the wire format), an object
 * (some OpenAI-compatible servers, Anthropic), or nothing (a tool without parameters). Arguments that
 * are not a JSON object, or are larger than the default bounds (`defaultArgumentBounds`, the registry's too),
 * become {@link ToolCall.argumentsError} with `arguments: {}`, so the model reads what went wrong and the
 * conversation can still be sent back (`JSON.stringify` of a few thousand levels throws a RangeError).
 * `truncated` says the response was cut off (max_tokens) while the arguments were written.
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
    const tooLarge = checkArgumentText(raw);
    if (tooLarge) return { tooLarge };
    try {
      value = JSON.parse(raw);
    } catch (error) {
      return { problem: `valid JSON (${(error as Error).message})` };
    }
  } else {
    const tooLarge = checkArgumentValue(raw);
    if (tooLarge) return { tooLarge };
  }
  if (typeof value === "object" && value !== null && !Array.isArray(value)) return { value: value as Record<string, unknown> };
  return { problem: "a JSON object" };
}

function snippet(text: string): string {
  return text.length <= snippetLength ? text : `${text.slice(0, snippetLength)}… (${text.length} characters)`;
}
