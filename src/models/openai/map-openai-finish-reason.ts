import type { StopReason } from "../../core/types.js";

/**
 * Maps a Chat Completions `finish_reason` to our stop reason. Compatible servers also send "", null
 * or nothing, even with tool calls (Snowflake, vLLM): then the tool calls decide.
 * @see https://platform.openai.com/docs/api-reference/chat/object#chat/object-choices
 */
export function mapOpenAIFinishReason(finishReason: string | null | undefined, hasToolCalls: boolean): StopReason {
  switch (finishReason) {
    case "stop":
      // Some servers say "stop" even when they called tools; the calls must still run.
      return hasToolCalls ? "tool_use" : "end_turn";
    case "tool_calls":
    case "function_call":
      return "tool_use";
    case "length":
      return "max_tokens";
    case "content_filter":
      return "refusal";
    default:
      return hasToolCalls ? "tool_use" : "end_turn";
  }
}
