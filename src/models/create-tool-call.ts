import type { ToolCall } from "../core/types.js";

const snippetLength = 200;

/**
 * Builds a ToolCall from the arguments a provider sent: a JSON string (the wire format), an object
 * (some OpenAI-compatible servers), or nothing (a tool without parameters). Arguments that are not a
 * JSON object become {@link ToolCall.argumentsError}, so the model reads what went wrong instead of
 * the run crashing. `truncated` says the response was cut off (max_tokens) while the arguments were written.
 */
export function createToolCall(
  id: string,
  name: string,
  rawArguments: unknown,
  options: { truncated?: boolean | undefined } = {},
): ToolCall {
  const parsed = parseArguments(rawArguments);
  if ("value" in parsed) return { id, name, arguments: parsed.value };
  const text = typeof rawArguments === "string" ? rawArguments : String(JSON.stringify(rawArguments));
  const reason = options.truncated
    ? "the response hit the output token limit (max_tokens) before the arguments were complete, so they are cut off"
    : `the arguments are not ${parsed.problem}`;
  return { id, name, arguments: {}, argumentsError: `${reason}. Received: ${snippet(text)}.` };
}

function parseArguments(raw: unknown): { value: Record<string, unknown> } | { problem: string } {
  if (raw === undefined || raw === null) return { value: {} };
  let value: unknown = raw;
  if (typeof raw === "string") {
    // Providers send "" for a call without arguments (Anthropic streams, some compatible servers).
    if (raw.trim() === "") return { value: {} };
    try {
      value = JSON.parse(raw);
    } catch (error) {
      return { problem: `valid JSON (${(error as Error).message})` };
    }
  }
  if (typeof value === "object" && value !== null && !Array.isArray(value)) return { value: value as Record<string, unknown> };
  return { problem: "a JSON object" };
}

function snippet(text: string): string {
  return text.length <= snippetLength ? text : `${text.slice(0, snippetLength)}… (${text.length} characters)`;
}
