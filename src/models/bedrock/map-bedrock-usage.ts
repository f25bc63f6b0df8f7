import type { Usage } from "../../core/types.js";
import type { BedrockUsage } from "./bedrock-wire-types.js";

/**
 * Maps Converse's usage to ours. Bedrock's `inputTokens`, like Anthropic's, leaves out the tokens read
 * from or written to the prompt cache; our `inputTokens` counts every input token, so that totals mean
 * the same for every provider (the cache counts say how many of them were cached). Converse does not
 * report reasoning tokens apart: they are in `outputTokens`.
 * @see https://docs.aws.amazon.com/bedrock/latest/userguide/prompt-caching.html
 */
export function mapBedrockUsage(usage: BedrockUsage | null | undefined): Usage | undefined {
  if (!usage) return undefined;
  const cacheReadTokens = usage.cacheReadInputTokens ?? 0;
  const cacheWriteTokens = usage.cacheWriteInputTokens ?? 0;
  return {
    inputTokens: (usage.inputTokens ?? 0) + cacheReadTokens + cacheWriteTokens,
    outputTokens: usage.outputTokens ?? 0,
    ...(usage.cacheReadInputTokens != null && { cacheReadTokens }),
    ...(usage.cacheWriteInputTokens != null && { cacheWriteTokens }),
  };
}
