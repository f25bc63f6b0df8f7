import type { ModelResponse, ReasoningPart, ToolCall } from "../../../core/types.js";
import { createToolCall } from "../../create-tool-call.js";
import { createMalformedResponseError, describeReceived } from "../../provider-error.js";
import { createToolCallIds, type UsedToolCallIds } from "../../tool-call-ids.js";
import { createOpenAIResponseFailure } from "../create-openai-error.js";
import { mapResponsesStopReason } from "./map-responses-stop-reason.js";
import { mapResponsesUsage } from "./map-responses-usage.js";
import type { ResponsesMessageMetadata, ResponsesOutputItem, ResponsesResponse } from "./responses-wire-types.js";

/** Context of a conversion. */
export type ResponsesConversionContext = {
  /** Provider name for errors, reasoning parts and the key of `providerMetadata` (e.g. "openai"). */
  provider: string;
  /** Tool-call ids already used in the conversation: a server that repeats one gets a fresh id instead. */
  usedIds?: UsedToolCallIds | undefined;
  /**
   * The id of the function call at `position` in the output, when a stream already announced one
   * (`tool-input-start`); by default the call's `call_id`, or a fresh id when that is missing or repeated.
   */
  toolCallId?: ((callId: unknown, position: number) => string) | undefined;
};

/**
 * Converts a Responses API response (received whole, or collected from a stream) to our response. Text
 * is the `output_text` parts of the `message` items, and a `refusal` part's words (the answer, with stop
 * reason `refusal`). A `function_call` item is a tool call whose id is its `call_id` (what the tool result
 * answers), not its item `id`. A `reasoning` item's summary becomes a reasoning part (never content). The
 * output items themselves are kept in `providerMetadata[provider].output`, exactly as received and in their
 * order, so the next turn sends them back unchanged (see convertToResponsesInput).
 * @see https://platform.openai.com/docs/api-reference/responses/object
 */
export function convertResponsesResponse(response: unknown, context: ResponsesConversionContext): ModelResponse {
  const received = checkResponse(response, context.provider);
  const output = received.output ?? [];
  const cutOff = received.status === "incomplete";
  const uniqueId = createToolCallIds(context.usedIds, "call_");
  const idOf = context.toolCallId ?? uniqueId;
  const visible: string[] = [];
  const toolCalls: ToolCall[] = [];
  const reasoning: ReasoningPart[] = [];
  let refused = false;
  for (const [position, item] of output.entries()) {
    if (item.type === "message") {
      for (const part of item.content ?? []) {
        if (part.type === "output_text" && typeof part.text === "string") visible.push(part.text);
        else if (part.type === "refusal" && typeof part.refusal === "string") {
          refused = true;
          visible.push(part.refusal);
        }
      }
    } else if (item.type === "function_call") {
      toolCalls.push(createToolCall(idOf(item.call_id, position), item.name ?? "", item.arguments, { truncated: cutOff }));
    } else if (item.type === "reasoning") {
      reasoning.push({ text: reasoningText(item), provider: context.provider });
    }
  }
  const usage = mapResponsesUsage(received.usage);
  return {
    message: {
      role: "assistant",
      content: visible.join(""),
      ...(toolCalls.length > 0 && { toolCalls }),
      ...(reasoning.length > 0 && { reasoning }),
      ...(output.length > 0 && { providerMetadata: { [context.provider]: { output } satisfies ResponsesMessageMetadata } }),
    },
    stopReason: mapResponsesStopReason(received, { refused, hasToolCalls: toolCalls.length > 0 }),
    ...(usage && { usage }),
  };
}

/** A reasoning item's readable text: its summaries, or (open-weight models on compatible servers) its reasoning text. */
export function reasoningText(item: ResponsesOutputItem): string {
  const summaries = (item.summary ?? []).flatMap((part) => (typeof part?.text === "string" ? [part.text] : []));
  if (summaries.length > 0) return summaries.join("\n\n");
  const content = (item.content ?? []).flatMap((part) =>
    part?.type === "reasoning_text" && typeof part.text === "string" ? [part.text] : [],
  );
  return content.join("");
}

function checkResponse(response: unknown, provider: string): ResponsesResponse {
  const output = (response as ResponsesResponse | null)?.output;
  if (typeof response !== "object" || response === null || (output != null && !Array.isArray(output)))
    throw createMalformedResponseError(provider, `expected a response with an output array, got ${describeReceived(response)}`);
  const received = response as ResponsesResponse;
  if (received.status === "failed") throw createOpenAIResponseFailure(received.error, provider);
  if (output == null)
    throw createMalformedResponseError(provider, `expected a response with an output array, got ${describeReceived(response)}`);
  if (!output.every((item) => typeof item === "object" && item !== null))
    throw createMalformedResponseError(provider, "an output item is not an object");
  return received;
}
