import type { ModelResponse, ReasoningPart, ToolCall } from "../../core/types.js";
import { createToolCall } from "../create-tool-call.js";
import { describeReceived } from "../provider-error.js";
import { createToolCallIds, type UsedToolCallIds } from "../tool-call-ids.js";
import type { BedrockContentBlock, BedrockMessageMetadata, BedrockResponse, BedrockStoredBlock } from "./bedrock-wire-types.js";
import { createMalformedResponseError } from "./create-bedrock-error.js";
import { mapBedrockStopReason } from "./map-bedrock-stop-reason.js";
import { mapBedrockUsage } from "./map-bedrock-usage.js";

/** Context of a conversion. */
export type BedrockConversionContext = {
  /** Tool-call ids already used in the conversation: a response that repeats one gets a fresh id instead. */
  usedIds?: UsedToolCallIds | undefined;
};

/**
 * Converts a Converse response (the SDK's ConverseCommandOutput, or the message collected from a stream)
 * to ours: `text` blocks become `content`; `reasoningContent` blocks become `reasoning` (provider
 * "bedrock": `reasoningText` with its `signature`, `redactedContent` as base64 in `redactedData`), never
 * text; `toolUse` blocks become tool calls whose id is the `toolUseId` (a repeated one is replaced).
 * The text, reasoning and toolUse blocks are kept in their order in `providerMetadata.bedrock.content`
 * (JSON: the redacted bytes as base64; a toolUse with only `toolUseId`, `name` and `input`, so that members
 * the API added to the response are not echoed back), and the next request sends exactly those.
 * @see https://docs.aws.amazon.com/bedrock/latest/userguide/conversation-inference-call.html
 */
export function convertBedrockResponse(response: unknown, context: BedrockConversionContext = {}): ModelResponse {
  const message = readResponse(response);
  const text: string[] = [];
  const reasoning: ReasoningPart[] = [];
  const toolCalls: ToolCall[] = [];
  const received: BedrockStoredBlock[] = [];
  const uniqueId = createToolCallIds(context.usedIds, "tooluse_");
  const cutOff = message.stopReason === "max_tokens" || message.stopReason === "model_context_window_exceeded";
  for (const block of message.content) {
    if (typeof block.text === "string") {
      text.push(block.text);
      received.push({ text: block.text });
    } else if (isObject(block.toolUse)) {
      const { toolUseId, name, input } = block.toolUse;
      const call = createToolCall(uniqueId(toolUseId), String(name ?? ""), input, { truncated: cutOff });
      toolCalls.push(call);
      received.push({ toolUse: { toolUseId: call.id, name: call.name, input: call.arguments } });
    } else if (isObject(block.reasoningContent)) {
      const part = readReasoning(block.reasoningContent);
      if (!part) continue;
      reasoning.push(part);
      received.push({
        reasoningContent:
          part.redactedData !== undefined
            ? { redactedContent: part.redactedData }
            : { reasoningText: { text: part.text, ...(part.signature !== undefined && { signature: part.signature }) } },
      });
    }
  }
  const usage = mapBedrockUsage(message.usage);
  return {
    message: {
      role: "assistant",
      content: text.join(""),
      ...(toolCalls.length > 0 && { toolCalls }),
      ...(reasoning.length > 0 && { reasoning }),
      providerMetadata: { bedrock: { content: received } satisfies BedrockMessageMetadata },
    },
    stopReason: mapBedrockStopReason(message.stopReason, toolCalls.length > 0),
    ...(usage && { usage }),
  };
}

function readReasoning(content: Record<string, unknown>): ReasoningPart | undefined {
  const { reasoningText, redactedContent } = content;
  if (redactedContent !== undefined) return { text: "", redactedData: toBase64(redactedContent), provider: "bedrock" };
  if (!isObject(reasoningText)) return undefined;
  const { text, signature } = reasoningText;
  return { text: String(text ?? ""), ...(typeof signature === "string" && { signature }), provider: "bedrock" };
}

/** The SDK decodes `redactedContent` to bytes; a message must stay JSON, so it is kept as the base64 text the wire carried. */
function toBase64(bytes: unknown): string {
  if (typeof bytes === "string") return bytes;
  return bytes instanceof Uint8Array ? Buffer.from(bytes).toString("base64") : "";
}

/** The response's message, from the SDK's ConverseCommandOutput (`output.message`) or a collected stream (`content`). */
function readResponse(response: unknown): BedrockResponse {
  const candidate = response as { output?: { message?: { content?: unknown } }; content?: unknown } | null;
  const content = candidate?.content ?? candidate?.output?.message?.content;
  if (!Array.isArray(content) || !content.every(isObject)) {
    throw createMalformedResponseError(`expected an output message with a "content" array, got ${describeReceived(response)}`);
  }
  const { stopReason, usage } = candidate as BedrockResponse;
  return { content: content as BedrockContentBlock[], stopReason, usage };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
