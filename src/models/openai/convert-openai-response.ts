import type { ModelResponse, ReasoningPart, ToolCall } from "../../core/types.js";
import { createToolCall } from "../create-tool-call.js";
import { createMalformedResponseError, describeReceived } from "../provider-error.js";
import { createToolCallIds, type UsedToolCallIds } from "../tool-call-ids.js";
import { mapOpenAIFinishReason } from "./map-openai-finish-reason.js";
import { mapOpenAIUsage } from "./map-openai-usage.js";
import type { OpenAIResponse, OpenAIResponseMessage } from "./openai-wire-types.js";

/** Context of a conversion. */
export type OpenAIConversionContext = {
  /** Provider name for errors and reasoning parts (e.g. "openai", "ollama"). */
  provider: string;
  /**
   * Tool-call ids already used in the conversation: a server that repeats one gets a fresh id instead.
   * A function is called only if the response has a tool call with an id to check.
   */
  usedIds?: UsedToolCallIds | undefined;
};

/**
 * Converts a chat completion (received whole, or collected from a stream) to our response. Tolerates
 * compatible servers: `content` null, "" or absent; reasoning in `reasoning_content` or `reasoning`
 * (kept apart from the text); tool calls without `type`, with arguments as an object, or with a
 * missing, empty or repeated id (a unique one is generated); no usage.
 */
export function convertOpenAIResponse(response: unknown, context: OpenAIConversionContext): ModelResponse {
  const { choice, message } = checkResponse(response, context.provider);
  const cutOff = choice.finish_reason === "length";
  const uniqueId = createToolCallIds(context.usedIds, "call_");
  const toolCalls: ToolCall[] = (message.tool_calls ?? []).map((call) => {
    const id = uniqueId(call.id);
    return createToolCall(id, call.function?.name ?? "", call.function?.arguments, { truncated: cutOff });
  });
  const refusal = typeof message.refusal === "string" && message.refusal !== "" ? message.refusal : undefined;
  const reasoningText = message.reasoning_content || message.reasoning;
  const reasoning: ReasoningPart[] = reasoningText ? [{ text: reasoningText, provider: context.provider }] : [];
  const usage = mapOpenAIUsage((response as OpenAIResponse).usage);
  return {
    message: {
      role: "assistant",
      // A refusal is the model's answer: show its words rather than an empty reply.
      content: textOf(message.content) || (refusal ?? ""),
      ...(toolCalls.length > 0 && { toolCalls }),
      ...(reasoning.length > 0 && { reasoning }),
    },
    stopReason: refusal !== undefined ? "refusal" : mapOpenAIFinishReason(choice.finish_reason, toolCalls.length > 0),
    ...(usage && { usage }),
  };
}

function textOf(content: OpenAIResponseMessage["content"]): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map((part) => (typeof part?.text === "string" ? part.text : "")).join("");
  return "";
}

function checkResponse(response: unknown, provider: string) {
  const choices = (response as Partial<OpenAIResponse> | null)?.choices;
  const choice = Array.isArray(choices) ? choices[0] : undefined;
  if (typeof response !== "object" || response === null || !choice || typeof choice.message !== "object" || choice.message === null) {
    throw createMalformedResponseError(provider, `expected a chat completion with choices[0].message, got ${describeReceived(response)}`);
  }
  if (choice.message.tool_calls != null && !Array.isArray(choice.message.tool_calls)) {
    throw createMalformedResponseError(provider, "choices[0].message.tool_calls is not an array");
  }
  return { choice, message: choice.message };
}
