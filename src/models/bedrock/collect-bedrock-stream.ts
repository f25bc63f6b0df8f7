import type { ModelResponse, ModelStreamEvent } from "../../core/types.js";
import { createToolCallIds } from "../tool-call-ids.js";
import type { BedrockContentBlock, BedrockResponse, BedrockStreamEvent } from "./bedrock-wire-types.js";
import { type BedrockConversionContext, convertBedrockResponse } from "./convert-bedrock-response.js";
import { createBedrockError, createIncompleteStreamError } from "./create-bedrock-error.js";

type Delta = { text?: unknown; reasoningContent?: Record<string, unknown>; toolUse?: { input?: unknown } };

/**
 * Rebuilds the response message from ConverseStream's events, reporting deltas as they arrive, then
 * converts it exactly as a Converse response (so the two agree). Text blocks have no `contentBlockStart`;
 * a `toolUse` block starts with its id and name and streams its input as JSON text; reasoning streams its
 * text, then its signature, or arrives as one `redactedContent`. Usage comes last, in `metadata`. An
 * exception event (a throttle, a model stream error) mid-stream fails the call like an HTTP error.
 * @see https://docs.aws.amazon.com/bedrock/latest/userguide/conversation-inference-call.html#conversation-inference-call-response-converse-stream
 */
export async function collectBedrockStream(
  events: AsyncIterable<BedrockStreamEvent>,
  onEvent: (event: ModelStreamEvent) => void,
  context: BedrockConversionContext = {},
): Promise<ModelResponse> {
  const message: BedrockResponse = { content: [] };
  let started = false;
  let stopped = false;
  const uniqueId = createToolCallIds(context.usedIds, "tooluse_");
  const toolIndexes = new Map<number, number>(); // content block index → tool call index
  for await (const event of events as AsyncIterable<Record<string, Record<string, unknown> | undefined>>) {
    const [kind, body = {}] = Object.entries(event).find(([, value]) => value !== undefined) ?? [];
    if (kind === undefined) continue;
    if (kind.endsWith("Exception")) throw createBedrockError(streamException(kind, body));
    if (kind === "messageStart") started = true;
    else if (!started) throw createIncompleteStreamError(`the stream sent "${kind}" before "messageStart"`);
    const index = Number(body.contentBlockIndex ?? 0);
    if (kind === "contentBlockStart") {
      const toolUse = (body.start as { toolUse?: { toolUseId?: unknown; name?: unknown } } | undefined)?.toolUse;
      if (!toolUse) continue;
      const id = uniqueId(toolUse.toolUseId);
      message.content[index] = { toolUse: { toolUseId: id, name: String(toolUse.name ?? ""), input: "" } };
      toolIndexes.set(index, toolIndexes.size);
      onEvent({ type: "tool-input-start", index: toolIndexes.size - 1, id, name: String(toolUse.name ?? "") });
    } else if (kind === "contentBlockDelta") {
      applyDelta(message.content, index, (body.delta ?? {}) as Delta, toolIndexes.get(index), onEvent);
    } else if (kind === "messageStop") {
      stopped = true;
      message.stopReason = typeof body.stopReason === "string" ? body.stopReason : undefined;
    } else if (kind === "metadata") {
      message.usage = body.usage as BedrockResponse["usage"];
    }
  }
  if (!stopped) throw createIncompleteStreamError("the stream ended before the message was complete (no messageStop)");
  const response = convertBedrockResponse({ ...message, content: message.content.filter(Boolean) }, context);
  for (const [index, toolCall] of (response.message.toolCalls ?? []).entries()) onEvent({ type: "tool-input-end", index, toolCall });
  if (response.usage) onEvent({ type: "usage", usage: response.usage });
  return response;
}

function applyDelta(
  content: BedrockContentBlock[],
  index: number,
  delta: Delta,
  toolIndex: number | undefined,
  onEvent: (event: ModelStreamEvent) => void,
): void {
  if (typeof delta.text === "string") {
    const block = blockAt(content, index, { text: "" });
    block.text = String(block.text ?? "") + delta.text;
    if (delta.text !== "") onEvent({ type: "text-delta", text: delta.text });
  } else if (delta.reasoningContent) {
    const block = blockAt(content, index, { reasoningContent: {} });
    const reasoning = block.reasoningContent as { reasoningText?: { text: string; signature?: string }; redactedContent?: Uint8Array };
    const { text, signature, redactedContent } = delta.reasoningContent;
    if (redactedContent instanceof Uint8Array) {
      reasoning.redactedContent = reasoning.redactedContent ? Buffer.concat([reasoning.redactedContent, redactedContent]) : redactedContent;
      return;
    }
    reasoning.reasoningText ??= { text: "" };
    if (typeof text === "string") {
      reasoning.reasoningText.text += text;
      if (text !== "") onEvent({ type: "reasoning-delta", text });
    }
    if (typeof signature === "string") reasoning.reasoningText.signature = (reasoning.reasoningText.signature ?? "") + signature;
  } else if (delta.toolUse) {
    const toolUse = content[index]?.toolUse as { input: string } | undefined;
    if (!toolUse) throw createIncompleteStreamError("a toolUse delta arrived for a block that was never started");
    const piece = String(delta.toolUse.input ?? "");
    toolUse.input += piece;
    if (toolIndex !== undefined && piece !== "") onEvent({ type: "tool-input-delta", index: toolIndex, argumentsDelta: piece });
  }
}

/** The block at `index`, started as `initial` by its first delta (text and reasoning blocks have no start event). */
function blockAt(content: BedrockContentBlock[], index: number, initial: BedrockContentBlock): BedrockContentBlock {
  const block = content[index] ?? initial;
  content[index] = block;
  return block;
}

/** An exception event the SDK passed on as an event (`throttlingException: { message }`) as the SDK's error shape. */
function streamException(kind: string, body: Record<string, unknown>): Error {
  const error = new Error(String(body.message ?? kind));
  error.name = kind.charAt(0).toUpperCase() + kind.slice(1);
  return error;
}
