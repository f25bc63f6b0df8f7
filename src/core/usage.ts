import type { Usage } from "./types.js";

/** A zeroed usage record. */
export function emptyUsage(): Usage {
  return { inputTokens: 0, outputTokens: 0 };
}

const optionalKeys = ["cacheReadTokens", "cacheWriteTokens", "reasoningTokens"] as const;

/** Adds `usage` into `total` in place (optional counters appear once any call reports them). */
export function addUsage(total: Usage, usage: Usage | undefined): void {
  if (!usage) return;
  total.inputTokens += usage.inputTokens;
  total.outputTokens += usage.outputTokens;
  for (const key of optionalKeys) {
    const value = usage[key];
    if (value !== undefined) total[key] = (total[key] ?? 0) + value;
  }
}
