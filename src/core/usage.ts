import type { Usage } from "./types.js";

/** A zeroed usage record. */
export function emptyUsage(): Usage {
  return { inputTokens: 0, outputTokens: 0 };
}

/** Adds `usage` into `total` in place (optional counters appear once any call reports them). */
export function addUsage(total: Usage, usage: Usage | undefined): void {
  if (!usage) return;
  total.inputTokens += usage.inputTokens;
  total.outputTokens += usage.outputTokens;
  // Written out rather than a loop over the keys: it runs at every model call, mostly in code not yet optimised.
  if (usage.cacheReadTokens !== undefined) total.cacheReadTokens = (total.cacheReadTokens ?? 0) + usage.cacheReadTokens;
  if (usage.cacheWriteTokens !== undefined) total.cacheWriteTokens = (total.cacheWriteTokens ?? 0) + usage.cacheWriteTokens;
  if (usage.reasoningTokens !== undefined) total.reasoningTokens = (total.reasoningTokens ?? 0) + usage.reasoningTokens;
}
