import type { StopReason } from "../../core/types.js";

/**
 * Maps Anthropic's `stop_reason` to ours. They share names, except that hitting the context window
 * is reported as running out of tokens; an unknown or missing reason is read from the content.
 * @see https://docs.claude.com/en/api/handling-stop-reasons
 */
export function mapAnthropicStopReason(stopReason: string | null | undefined, hasToolCalls: boolean): StopReason {
  switch (stopReason) {
    case "end_turn":
    case "tool_use":
    case "max_tokens":
    case "stop_sequence":
    case "pause_turn":
    case "refusal":
      return stopReason;
    case "model_context_window_exceeded":
      return "max_tokens";
    default:
      return hasToolCalls ? "tool_use" : "end_turn";
  }
}
