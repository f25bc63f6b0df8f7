import type { Usage } from "../../core/types.js";
import type { AnthropicUsage } from "./anthropic-wire-types.js";

/**
 * Maps Anthropic's usage to ours. Anthropic's `input_tokens` excludes tokens read from or written to
 * the prompt cache; our `inputTokens` counts every input token, as OpenAI's `prompt_tokens` does,
 * so totals mean the same for every provider (the cache counts say how many of them were cached).
 * @see https://docs.claude.com/en/docs/build-with-claude/prompt-caching#tracking-cache-performance
 */
export function mapAnthropicUsage(usage: AnthropicUsage | null | undefined): Usage | undefined {
  if (!usage) return undefined;
  const cacheReadTokens = usage.cache_read_input_tokens ?? 0;
  const cacheWriteTokens = usage.cache_creation_input_tokens ?? 0;
  return {
    inputTokens: (usage.input_tokens ?? 0) + cacheReadTokens + cacheWriteTokens,
    outputTokens: usage.output_tokens ?? 0,
    ...(usage.cache_read_input_tokens != null && { cacheReadTokens }),
    ...(usage.cache_creation_input_tokens != null && { cacheWriteTokens }),
  };
}
