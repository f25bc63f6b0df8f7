import type { ModelResponse, ModelStreamEvent } from "../../core/types.js";
import { createIncompleteStreamError } from "../provider-error.js";
import { createToolCallIds } from "../tool-call-ids.js";
import { convertOpenAIResponse, type OpenAIConversionContext } from "./convert-openai-response.js";
import type { OpenAIChunk, OpenAIResponse, OpenAIToolCall, OpenAIUsage } from "./openai-wire-types.js";

/** A tool call being reassembled from deltas. */
type ToolCallSlot = { id: string; name: string; arguments: unknown };

/**
 * Rebuilds a chat completion from streamed chunks, reporting deltas as they arrive, then converts it
 * exactly as a completion received whole. Argument fragments are concatenated per call; a call is
 * found by its `index` or, on servers that send none, by its id, or else continues the last call.
 * Chunks without choices (Azure's first chunk, the usage chunk) only contribute usage.
 * @see https://platform.openai.com/docs/api-reference/chat-streaming
 */
export async function collectOpenAIStream(
  chunks: AsyncIterable<OpenAIChunk>,
  onEvent: (event: ModelStreamEvent) => void,
  context: OpenAIConversionContext,
): Promise<ModelResponse> {
  let text = "";
  let refusal = "";
  let reasoning = "";
  let finishReason: string | null | undefined;
  let usage: OpenAIUsage | null | undefined;
  let received = false;
  const slots = new Map<string, ToolCallSlot>();
  const uniqueId = createToolCallIds(context.usedIds, "call_");
  for await (const chunk of chunks) {
    received = true;
    if (chunk.usage) usage = chunk.usage;
    const choice = chunk.choices?.[0];
    if (!choice) continue;
    const delta = choice.delta ?? {};
    if (typeof delta.content === "string" && delta.content !== "") {
      text += delta.content;
      onEvent({ type: "text-delta", text: delta.content });
    }
    if (typeof delta.refusal === "string" && delta.refusal !== "") {
      refusal += delta.refusal;
      onEvent({ type: "text-delta", text: delta.refusal });
    }
    const thought = delta.reasoning_content || delta.reasoning;
    if (thought) {
      reasoning += thought;
      onEvent({ type: "reasoning-delta", text: thought });
    }
    for (const call of delta.tool_calls ?? []) applyToolCallDelta(slots, call, uniqueId, onEvent);
    if (choice.finish_reason != null) finishReason = choice.finish_reason;
  }
  if (!received) throw createIncompleteStreamError(context.provider, "the stream ended without sending anything");
  if (finishReason === undefined) throw createIncompleteStreamError(context.provider, "the stream ended before a finish_reason");
  const completion: OpenAIResponse = {
    choices: [
      {
        finish_reason: finishReason,
        message: {
          role: "assistant",
          content: text,
          refusal: refusal || null,
          reasoning_content: reasoning || null,
          tool_calls: [...slots.values()].map((slot) => ({
            id: slot.id,
            type: "function",
            function: { name: slot.name, arguments: slot.arguments },
          })),
        },
      },
    ],
    usage: usage ?? null,
  };
  const response = convertOpenAIResponse(completion, context);
  for (const [index, toolCall] of (response.message.toolCalls ?? []).entries()) onEvent({ type: "tool-input-end", index, toolCall });
  if (response.usage) onEvent({ type: "usage", usage: response.usage });
  return response;
}

function applyToolCallDelta(
  slots: Map<string, ToolCallSlot>,
  call: OpenAIToolCall,
  uniqueId: (id: unknown) => string,
  onEvent: (event: ModelStreamEvent) => void,
): void {
  const key = slotKey(slots, call);
  let slot = slots.get(key);
  if (!slot) {
    slot = { id: uniqueId(call.id), name: call.function?.name ?? "", arguments: "" };
    slots.set(key, slot);
    onEvent({ type: "tool-input-start", index: slots.size - 1, id: slot.id, name: slot.name });
  } else if (!slot.name && call.function?.name) {
    slot.name = call.function.name;
  }
  const index = [...slots.values()].indexOf(slot);
  const fragment = call.function?.arguments;
  if (typeof fragment === "string") {
    if (fragment === "") return;
    slot.arguments = `${typeof slot.arguments === "string" ? slot.arguments : ""}${fragment}`;
    onEvent({ type: "tool-input-delta", index, argumentsDelta: fragment });
  } else if (fragment !== undefined && fragment !== null) {
    // Some servers send the arguments whole, as an object (too deep to write as JSON, it is refused later by createToolCall).
    slot.arguments = fragment;
    onEvent({ type: "tool-input-delta", index, argumentsDelta: writeJson(fragment) });
  }
}

/** Which call a delta belongs to: by `index`; without one, by a known id; a named delta starts a new call; else the last call. */
function slotKey(slots: Map<string, ToolCallSlot>, call: OpenAIToolCall): string {
  if (typeof call.index === "number") return `index:${call.index}`;
  const id = typeof call.id === "string" && call.id !== "" ? call.id : undefined;
  for (const [key, slot] of slots) if (id !== undefined && slot.id === id) return key;
  const last = [...slots.keys()].at(-1);
  if (last !== undefined && !call.function?.name && id === undefined) return last;
  return `position:${slots.size}`;
}

function writeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? "";
  } catch {
    return "";
  }
}
