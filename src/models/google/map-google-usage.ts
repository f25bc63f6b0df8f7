import type { Usage } from "../../core/types.js";
import type { GoogleUsage } from "./google-wire-types.js";

/**
 * Maps Gemini's `usageMetadata` to ours. Gemini counts thought tokens apart (`thoughtsTokenCount` is not
 * part of `candidatesTokenCount`); our `outputTokens` includes them, as every adapter's does, and
 * `reasoningTokens` repeats their share. `cachedContentTokenCount` is part of `promptTokenCount`.
 * @see https://ai.google.dev/api/generate-content#UsageMetadata
 */
export function mapGoogleUsage(usage: GoogleUsage | null | undefined): Usage | undefined {
  if (!usage) return undefined;
  const thoughts = usage.thoughtsTokenCount;
  return {
    inputTokens: usage.promptTokenCount ?? 0,
    outputTokens: (usage.candidatesTokenCount ?? 0) + (thoughts ?? 0),
    ...(usage.cachedContentTokenCount != null && { cacheReadTokens: usage.cachedContentTokenCount }),
    ...(thoughts != null && { reasoningTokens: thoughts }),
  };
}
