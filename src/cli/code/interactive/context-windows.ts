/**
 * Context windows (input tokens) of models whose size is published, for the status line's context use. A model
 * matches its own id or a dated snapshot of it; others get no percentage rather than a guess.
 */
const windows: ReadonlyArray<readonly [RegExp, number]> = [
  [/^claude-(opus|sonnet|haiku)-4/, 200_000],
  [/^claude-3/, 200_000],
  [/^gpt-5/, 400_000],
  [/^gpt-4\.1/, 1_047_576],
  [/^gpt-4o/, 128_000],
  [/^o[34](-mini)?(-|$)/, 200_000],
];

/** The context window of `modelId` in tokens, if known. */
export function contextWindowOf(modelId: string): number | undefined {
  return windows.find(([pattern]) => pattern.test(modelId))?.[1];
}
