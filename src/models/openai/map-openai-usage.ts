import type { Usage } from "../../core/types.js";
import type { OpenAIUsage } from "./openai-wire-types.js";

/**
 * Maps Chat Completions usage to ours. `prompt_tokens` already includes the cached tokens, and
 * `completion_tokens` the reasoning tokens. Servers that report no usage give undefined.
 * @see https://platform.openai.com/docs/api-reference/chat/object#chat/object-usage
 */
export function mapOpenAIUsage(usage: OpenAIUsage | null | undefined): Usage | undefined {
  if (!usage || (usage.prompt_tokens === undefined && usage.completion_tokens === undefined)) return undefined;
  const cached = usage.prompt_tokens_details?.cached_tokens;
  const reasoning = usage.completion_tokens_details?.reasoning_tokens;
  return {
    inputTokens: usage.prompt_tokens ?? 0,
    outputTokens: usage.completion_tokens ?? 0,
    ...(typeof cached === "number" && { cacheReadTokens: cached }),
    ...(typeof reasoning === "number" && { reasoningTokens: reasoning }),
  };
}
