import type { Usage } from "../../../core/types.js";
import type { ResponsesUsage } from "./responses-wire-types.js";

/**
 * Maps Responses usage to ours. `input_tokens` already includes the cached tokens, and `output_tokens`
 * the reasoning tokens, which are also reported apart as `reasoningTokens`. No usage gives undefined.
 * @see https://platform.openai.com/docs/api-reference/responses/object#responses/object-usage
 */
export function mapResponsesUsage(usage: ResponsesUsage | null | undefined): Usage | undefined {
  if (!usage || (usage.input_tokens === undefined && usage.output_tokens === undefined)) return undefined;
  const cached = usage.input_tokens_details?.cached_tokens;
  const reasoning = usage.output_tokens_details?.reasoning_tokens;
  return {
    inputTokens: usage.input_tokens ?? 0,
    outputTokens: usage.output_tokens ?? 0,
    ...(typeof cached === "number" && { cacheReadTokens: cached }),
    ...(typeof reasoning === "number" && { reasoningTokens: reasoning }),
  };
}
