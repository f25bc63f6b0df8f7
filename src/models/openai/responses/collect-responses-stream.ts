import type { ModelResponse, ModelStreamEvent } from "../../../core/types.js";
import { createIncompleteStreamError } from "../../provider-error.js";
import { createToolCallIds } from "../../tool-call-ids.js";
import { createOpenAIResponseFailure } from "../create-openai-error.js";
import { convertResponsesResponse, type ResponsesConversionContext } from "./convert-responses-response.js";
import type { ResponsesOutputItem, ResponsesResponse, ResponsesStreamEvent } from "./responses-wire-types.js";

/** A function call announced by `response.output_item.added`: its place among the calls, and its id. */
type CallSlot = { index: number; id: string };

/**
 * Collects a Responses stream into the response it describes, reporting deltas as they arrive (text and
 * refusal text, reasoning summaries, function-call arguments), then converts it exactly as a response
 * received whole. The output is the items of `response.output_item.done`, in output order: those are final
 * (a reasoning item's `encrypted_content` at `output_item.added` is not the one to send back). The closing
 * `response.completed` or `response.incomplete` gives status and usage (and the output, when no item was
 * streamed). `response.failed` is a ProviderError; an `error` event is one already (the SDK throws it).
 * @see https://platform.openai.com/docs/api-reference/responses-streaming
 */
export async function collectResponsesStream(
  events: AsyncIterable<ResponsesStreamEvent>,
  onEvent: (event: ModelStreamEvent) => void,
  context: ResponsesConversionContext,
): Promise<ModelResponse> {
  const uniqueId = createToolCallIds(context.usedIds, "call_");
  const calls = new Map<number, CallSlot>();
  const callsByItem = new Map<string, CallSlot>();
  const done = new Map<number, ResponsesOutputItem>();
  let closing: ResponsesResponse | undefined;
  let received = false;
  for await (const event of events) {
    received = true;
    const outputIndex = typeof event.output_index === "number" ? event.output_index : -1;
    switch (event.type) {
      case "response.output_text.delta":
      case "response.refusal.delta":
        if (event.delta) onEvent({ type: "text-delta", text: event.delta });
        break;
      case "response.reasoning_summary_part.added":
        // Summaries are joined by a blank line in the response's reasoning text; the deltas say so too.
        if ((event.summary_index ?? 0) > 0) onEvent({ type: "reasoning-delta", text: "\n\n" });
        break;
      case "response.reasoning_summary_text.delta":
      case "response.reasoning_text.delta":
        if (event.delta) onEvent({ type: "reasoning-delta", text: event.delta });
        break;
      case "response.output_item.added":
        if (event.item?.type === "function_call") {
          const slot = { index: calls.size, id: uniqueId(event.item.call_id) };
          calls.set(outputIndex, slot);
          if (event.item.id) callsByItem.set(event.item.id, slot);
          onEvent({ type: "tool-input-start", index: slot.index, id: slot.id, name: event.item.name ?? "" });
        }
        break;
      case "response.function_call_arguments.delta": {
        const slot = calls.get(outputIndex) ?? callsByItem.get(event.item_id ?? "");
        if (slot && event.delta) onEvent({ type: "tool-input-delta", index: slot.index, argumentsDelta: event.delta });
        break;
      }
      case "response.output_item.done":
        if (event.item) done.set(outputIndex, event.item);
        break;
      case "response.completed":
      case "response.incomplete":
        closing = event.response ?? {};
        break;
      case "response.failed":
        throw createOpenAIResponseFailure(event.response?.error, context.provider);
      case "error":
        throw createOpenAIResponseFailure(event.error ?? event, context.provider);
    }
  }
  if (!received) throw createIncompleteStreamError(context.provider, "the stream ended without sending anything");
  if (!closing) throw createIncompleteStreamError(context.provider, "the stream ended before response.completed");
  const streamed = [...done.entries()].sort(([left], [right]) => left - right);
  const output = streamed.length > 0 ? streamed.map(([, item]) => item) : (closing.output ?? []);
  const outputIndexes = streamed.length > 0 ? streamed.map(([index]) => index) : output.map((_, index) => index);
  const response = convertResponsesResponse(
    { ...closing, output },
    { ...context, toolCallId: (callId, position) => calls.get(outputIndexes[position] ?? -1)?.id ?? uniqueId(callId) },
  );
  for (const [index, toolCall] of (response.message.toolCalls ?? []).entries()) onEvent({ type: "tool-input-end", index, toolCall });
  if (response.usage) onEvent({ type: "usage", usage: response.usage });
  return response;
}
