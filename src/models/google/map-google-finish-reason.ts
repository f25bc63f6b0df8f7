import type { StopReason } from "../../core/types.js";

/** Finish reasons that mean Google's filters withheld the answer (or part of it). */
const blockingReasons = new Set([
  "SAFETY",
  "RECITATION",
  "BLOCKLIST",
  "PROHIBITED_CONTENT",
  "SPII",
  "IMAGE_SAFETY",
  "IMAGE_PROHIBITED_CONTENT",
  "IMAGE_RECITATION",
]);

/** True when `finishReason` says the response was blocked by a filter rather than finished by the model. */
export function isBlockingFinishReason(finishReason: string | undefined): boolean {
  return finishReason !== undefined && blockingReasons.has(finishReason);
}

/**
 * Maps Gemini's `finishReason` to ours. Gemini says `STOP` even when the model asks for tools, so the
 * calls decide between `tool_use` and `end_turn`; a filter's block is a `refusal`; hitting
 * `maxOutputTokens` is `max_tokens`. Other reasons (`MALFORMED_FUNCTION_CALL`, `OTHER`…) are read from the content.
 * @see https://ai.google.dev/api/generate-content#FinishReason
 */
export function mapGoogleFinishReason(finishReason: string | undefined, hasToolCalls: boolean): StopReason {
  if (finishReason === "MAX_TOKENS") return "max_tokens";
  if (isBlockingFinishReason(finishReason)) return "refusal";
  return hasToolCalls ? "tool_use" : "end_turn";
}
