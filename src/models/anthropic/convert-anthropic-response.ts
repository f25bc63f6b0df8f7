import type { ModelResponse, ReasoningPart, ToolCall } from "../../core/types.js";
import { createToolCall } from "../create-tool-call.js";
import type { AnthropicContentBlock, AnthropicMessageMetadata, AnthropicResponse } from "./anthropic-wire-types.js";
import { createMalformedResponseError } from "./create-anthropic-error.js";
import { mapAnthropicStopReason } from "./map-anthropic-stop-reason.js";
import { mapAnthropicUsage } from "./map-anthropic-usage.js";

/**
 * Converts an Anthropic response message (received whole, or collected from a stream) to ours:
 * text blocks become `content`, `thinking` / `redacted_thinking` blocks become `reasoning` (kept with
 * their signatures, never mixed into the text), `tool_use` blocks become tool calls. The content
 * blocks themselves, in their order and including those minagent does not model (server tools'
 * `server_tool_use`, `web_search_tool_result`…), are kept in `providerMetadata.anthropic.content`, so
 * that the turn can be sent back exactly as received (see convertToAnthropicMessages).
 */
export function convertAnthropicResponse(response: unknown): ModelResponse {
  const message = checkResponse(response);
  const text: string[] = [];
  const reasoning: ReasoningPart[] = [];
  const toolCalls: ToolCall[] = [];
  const received: AnthropicContentBlock[] = [];
  const cutOff = message.stop_reason === "max_tokens" || message.stop_reason === "model_context_window_exceeded";
  for (const block of message.content) {
    received.push(withInputObject(block));
    if (block.type === "text") text.push(String(block.text ?? ""));
    else if (block.type === "thinking") {
      reasoning.push({ text: String(block.thinking ?? ""), signature: String(block.signature ?? ""), provider: "anthropic" });
    } else if (block.type === "redacted_thinking") {
      reasoning.push({ text: "", redactedData: String(block.data ?? ""), provider: "anthropic" });
    } else if (block.type === "tool_use") {
      toolCalls.push(createToolCall(String(block.id ?? ""), String(block.name ?? ""), block.input, { truncated: cutOff }));
    }
  }
  const usage = mapAnthropicUsage(message.usage);
  return {
    message: {
      role: "assistant",
      content: text.join(""),
      ...(toolCalls.length > 0 && { toolCalls }),
      ...(reasoning.length > 0 && { reasoning }),
      providerMetadata: { anthropic: { content: received } satisfies AnthropicMessageMetadata },
    },
    stopReason: mapAnthropicStopReason(message.stop_reason, toolCalls.length > 0),
    ...(usage && { usage }),
  };
}

/**
 * The block as the API takes it back. A streamed `tool_use` / `server_tool_use` block holds its input as
 * the JSON text received; the API wants the object (`{}` when the text is cut off, as the call's arguments are).
 */
function withInputObject(block: AnthropicContentBlock): AnthropicContentBlock {
  if (typeof block.input !== "string") return block;
  const { arguments: input } = createToolCall(String(block.id ?? ""), String(block.name ?? ""), block.input);
  return { ...block, input };
}

function checkResponse(response: unknown): AnthropicResponse {
  const candidate = response as Partial<AnthropicResponse> | null;
  if (typeof candidate !== "object" || candidate === null || !Array.isArray(candidate.content)) {
    throw createMalformedResponseError(`expected a message object with a "content" array, got ${describe(response)}`);
  }
  if (!candidate.content.every((block) => typeof block === "object" && block !== null && typeof block.type === "string")) {
    throw createMalformedResponseError(`every content block needs a "type"`);
  }
  return candidate as AnthropicResponse;
}

function describe(value: unknown): string {
  const text = typeof value === "string" ? JSON.stringify(value) : (JSON.stringify(value) ?? String(value));
  return text.length > 120 ? `${text.slice(0, 120)}…` : text;
}
