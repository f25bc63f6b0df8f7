import type { ModelResponse, ModelStreamEvent } from "../../core/types.js";
import { createToolCallIds } from "../tool-call-ids.js";
import type { AnthropicContentBlock, AnthropicResponse, AnthropicStreamEvent } from "./anthropic-wire-types.js";
import { type AnthropicConversionContext, convertAnthropicResponse } from "./convert-anthropic-response.js";
import { createIncompleteStreamError } from "./create-anthropic-error.js";

/**
 * Rebuilds the response message from a stream of Anthropic events, reporting deltas as they arrive,
 * then converts it exactly as a response received whole. Tool calls are reported complete once the
 * message is, so the events carry the very calls the response holds. A repeated tool-call id is
 * replaced as the call starts (see convertAnthropicResponse), so `tool-input-start` carries the final id.
 * @see https://docs.claude.com/en/docs/build-with-claude/streaming
 */
export async function collectAnthropicStream(
  events: AsyncIterable<AnthropicStreamEvent>,
  onEvent: (event: ModelStreamEvent) => void,
  context: AnthropicConversionContext = {},
): Promise<ModelResponse> {
  let message: AnthropicResponse | undefined;
  let stopped = false;
  const uniqueId = createToolCallIds(context.usedIds, "toolu_");
  const toolIndexes = new Map<number, number>(); // content block index → tool call index
  for await (const event of events) {
    if (event.type === "message_start") {
      message = { ...(event.message as unknown as AnthropicResponse), content: [] };
      continue;
    }
    if (!message) throw createIncompleteStreamError(`the stream sent "${event.type}" before "message_start"`);
    if (event.type === "content_block_start") {
      const block: AnthropicContentBlock = { ...(event.content_block as unknown as AnthropicContentBlock) };
      // Streamed input arrives as JSON text in pieces; it is parsed once, when the message is complete.
      if (block.type === "tool_use" || block.type === "server_tool_use") block.input = "";
      message.content[event.index] = block;
      if (block.type === "tool_use") {
        block.id = uniqueId(block.id);
        toolIndexes.set(event.index, toolIndexes.size);
        onEvent({ type: "tool-input-start", index: toolIndexes.size - 1, id: String(block.id), name: String(block.name) });
      }
      if (block.type === "text" && block.text) onEvent({ type: "text-delta", text: String(block.text) });
      if (block.type === "thinking" && block.thinking) onEvent({ type: "reasoning-delta", text: String(block.thinking) });
    } else if (event.type === "content_block_delta") {
      applyDelta(message.content[event.index], event.delta, toolIndexes.get(event.index), onEvent);
    } else if (event.type === "message_delta") {
      message.stop_reason = event.delta.stop_reason;
      message.stop_sequence = event.delta.stop_sequence;
      // message_delta carries cumulative counts; fields it leaves out keep their message_start value.
      const usage = Object.entries(event.usage ?? {}).filter(([, value]) => value !== null && value !== undefined);
      message.usage = { ...message.usage, ...Object.fromEntries(usage) };
    } else if (event.type === "message_stop") {
      stopped = true;
    }
  }
  if (!message) throw createIncompleteStreamError("the stream ended without a message");
  if (!stopped && message.stop_reason === null) throw createIncompleteStreamError("the stream ended before the message was complete");
  const response = convertAnthropicResponse({ ...message, content: message.content.filter(Boolean) }, context);
  for (const [index, toolCall] of (response.message.toolCalls ?? []).entries()) onEvent({ type: "tool-input-end", index, toolCall });
  if (response.usage) onEvent({ type: "usage", usage: response.usage });
  return response;
}

function applyDelta(
  block: AnthropicContentBlock | undefined,
  delta: Extract<AnthropicStreamEvent, { type: "content_block_delta" }>["delta"],
  toolIndex: number | undefined,
  onEvent: (event: ModelStreamEvent) => void,
): void {
  if (!block) throw createIncompleteStreamError(`a "${delta.type}" arrived for a content block that was never started`);
  switch (delta.type) {
    case "text_delta":
      block.text = String(block.text ?? "") + delta.text;
      onEvent({ type: "text-delta", text: delta.text });
      break;
    case "thinking_delta":
      block.thinking = String(block.thinking ?? "") + delta.thinking;
      onEvent({ type: "reasoning-delta", text: delta.thinking });
      break;
    case "signature_delta":
      block.signature = String(block.signature ?? "") + delta.signature;
      break;
    case "input_json_delta":
      block.input = String(block.input ?? "") + delta.partial_json;
      if (toolIndex !== undefined && delta.partial_json !== "")
        onEvent({ type: "tool-input-delta", index: toolIndex, argumentsDelta: delta.partial_json });
      break;
    case "citations_delta":
      // Kept so that the block goes back as received; minagent itself does not read citations.
      block.citations = [...(Array.isArray(block.citations) ? block.citations : []), delta.citation];
      break;
    default:
      break; // future delta types do not change what minagent reads
  }
}
