import type { StopReason } from "../../core/types.js";

/**
 * Maps Converse's `stopReason` to ours. A guardrail or a content filter that stopped the answer is a
 * refusal; hitting the context window is running out of tokens; an unknown or missing reason is read
 * from the content.
 * @see https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html#API_runtime_Converse_ResponseSyntax
 */
export function mapBedrockStopReason(stopReason: string | undefined, hasToolCalls: boolean): StopReason {
  switch (stopReason) {
    case "end_turn":
    case "tool_use":
    case "max_tokens":
    case "stop_sequence":
      return stopReason;
    case "guardrail_intervened":
    case "content_filtered":
      return "refusal";
    case "model_context_window_exceeded":
      return "max_tokens";
    default:
      return hasToolCalls ? "tool_use" : "end_turn";
  }
}
