import type { Usage } from "../core/types.js";

/** List prices in US dollars per million tokens. */
type Price = { input: number; output: number; cacheRead: number; cacheWrite?: number };

/**
 * Published list prices (USD per million tokens, standard tier) as of late 2025 (Claude Sonnet 4.6: February 2026,
 * Sonnet 4.5's prices), for the cost estimates of the
 * CLI and the trace viewer only (this file is in trace/, which cli/ imports, so that both can read it). A model
 * matches its own id or a dated snapshot of it (`gpt-4o-2024-08-06`); newer models get no estimate rather than a
 * guess. Anthropic cache writes cost 1.25× input.
 */
const prices: Record<string, Price> = {
  "claude-opus-4-5": { input: 5, output: 25, cacheRead: 0.5, cacheWrite: 6.25 },
  "claude-opus-4-1": { input: 15, output: 75, cacheRead: 1.5, cacheWrite: 18.75 },
  "claude-opus-4": { input: 15, output: 75, cacheRead: 1.5, cacheWrite: 18.75 },
  "claude-sonnet-4-6": { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
  "claude-sonnet-4-5": { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
  "claude-sonnet-4": { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
  "claude-3-7-sonnet": { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
  "claude-haiku-4-5": { input: 1, output: 5, cacheRead: 0.1, cacheWrite: 1.25 },
  "claude-3-5-haiku": { input: 0.8, output: 4, cacheRead: 0.08, cacheWrite: 1 },
  "gpt-5-nano": { input: 0.05, output: 0.4, cacheRead: 0.005 },
  "gpt-5-mini": { input: 0.25, output: 2, cacheRead: 0.025 },
  "gpt-5": { input: 1.25, output: 10, cacheRead: 0.125 },
  "gpt-4.1-nano": { input: 0.1, output: 0.4, cacheRead: 0.025 },
  "gpt-4.1-mini": { input: 0.4, output: 1.6, cacheRead: 0.1 },
  "gpt-4.1": { input: 2, output: 8, cacheRead: 0.5 },
  "gpt-4o-mini": { input: 0.15, output: 0.6, cacheRead: 0.075 },
  "gpt-4o": { input: 2.5, output: 10, cacheRead: 1.25 },
  "o4-mini": { input: 1.1, output: 4.4, cacheRead: 0.275 },
  o3: { input: 2, output: 8, cacheRead: 0.5 },
};

/**
 * Estimated cost in US dollars of `usage` on `modelId`, or undefined for a model without a known price.
 * `inputTokens` counts cached tokens too (minagent's convention), so they are priced apart.
 */
export function estimateCost(modelId: string, usage: Usage): number | undefined {
  const family = modelId.replace(/-(\d{8}|\d{4}-\d{2}-\d{2}|0|latest)$/, "");
  const price = Object.hasOwn(prices, family) ? prices[family] : undefined;
  if (!price) return undefined;
  const cacheRead = usage.cacheReadTokens ?? 0;
  const cacheWrite = usage.cacheWriteTokens ?? 0;
  const uncached = Math.max(0, usage.inputTokens - cacheRead - cacheWrite);
  const dollars =
    uncached * price.input +
    cacheRead * price.cacheRead +
    cacheWrite * (price.cacheWrite ?? price.input) +
    usage.outputTokens * price.output;
  return dollars / 1_000_000;
}
