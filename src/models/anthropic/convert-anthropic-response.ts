import type { ModelResponse, ReasoningPart, ToolCall } from "../../core/types.js";
import { createToolCall } from "../create-tool-call.js";
import { describeReceived } from "../provider-error.js";
import { createToolCallIds, type UsedToolCallIds } from "../tool-call-ids.js";
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
 * that the turn can be sent back exactly as received (see convertToAnthropicMessages), with two
 * changes that make it safe to send: a tool-call id repeated within the response or from `usedIds` (the
 * conversation's; a proxy or an imitating server may repeat one) is replaced by a fresh one, in the block
 * too; and tool input that cannot be used (not an object, nested too deep, too long: see createToolCall)
 * is `{}` in the block as in the call.
 */
export function convertAnthropicResponse(response: unknown, context: AnthropicConversionContext = {}): ModelResponse {
  const message = checkResponse(response);
  const text: string[] = [];
  const reasoning: ReasoningPart[] = [];
  const toolCalls: ToolCall[] = [];
  const received: AnthropicContentBlock[] = [];
  const cutOff = message.stop_reason === "max_tokens" || message.stop_reason === "model_context_window_exceeded";
  const uniqueId = createToolCallIds(context.usedIds, "toolu_");
  for (const block of message.content) {
    if (block.type === "tool_use") {
      const call = createToolCall(uniqueId(block.id), String(block.name ?? ""), block.input, { truncated: cutOff });
      toolCalls.push(call);
      received.push({ ...block, id: call.id, input: call.arguments });
      continue;
    }
    received.push(withInputObject(block));
    if (block.type === "text") text.push(String(block.text ?? ""));
    else if (block.type === "thinking") {
      reasoning.push({ text: String(block.thinking ?? ""), signature: String(block.signature ?? ""), provider: "anthropic" });
    } else if (block.type === "redacted_thinking") {
      reasoning.push({ text: "", redactedData: String(block.data ?? ""), provider: "anthropic" });
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

/** Context of a conversion. */
export type AnthropicConversionContext = {
  /** Tool-call ids already used in the conversation: a response that repeats one gets a fresh id instead. */
  usedIds?: UsedToolCallIds | undefined;
};

/**
 * The block as the API takes it back. A streamed `server_tool_use` block holds its input as the JSON text
 * received; the API wants the object (`{}` when the text is cut off or cannot be used, as for tool calls).
 */
function withInputObject(block: AnthropicContentBlock): AnthropicContentBlock {
  if (block.input === undefined) return block;
  const { arguments: input } = createToolCall(String(block.id ?? ""), String(block.name ?? ""), block.input);
  return input === block.input ? block : { ...block, input };
}

function checkResponse(response: unknown): AnthropicResponse {
  const candidate = response as Partial<AnthropicResponse> | null;
  if (typeof candidate !== "object" || candidate === null || !Array.isArray(candidate.content)) {
    throw createMalformedResponseError(`expected a message object with a "content" array, got ${describeReceived(response)}`);
  }
  if (!candidate.content.every((block) => typeof block === "object" && block !== null && typeof block.type === "string")) {
    throw createMalformedResponseError(`every content block needs a "type"`);
  }
  return candidate as AnthropicResponse;
}
