/**
 * Context windows of known models, in input tokens: what one request may hold. A model id matches an entry when it
 * starts with the entry's prefix, after any routing prefix (`anthropic/`, `openrouter/…/`) is dropped and letters
 * are lowered; the longest matching prefix wins, so `gpt-4o-mini` and `gpt-4.1` find their own entries before
 * `gpt-4`. Local model ids are Ollama's (`qwen2.5-coder:7b`): the figure is the model's trained context, not the
 * server's setting (Ollama runs with a few thousand tokens unless `num_ctx` says otherwise; give `contextWindow`).
 */
export const knownContextWindows: Readonly<Record<string, number>> = {
  // Anthropic: every current model has 200k (Sonnet's 1M window is a beta that must be asked for).
  "claude-": 200_000,
  // OpenAI. GPT-5's window is 400k with up to 128k of output: 272k of input.
  "gpt-5": 272_000,
  "gpt-4.1": 1_047_576,
  "gpt-4o": 128_000,
  "gpt-4-turbo": 128_000,
  "gpt-4": 8_192,
  "gpt-3.5-turbo": 16_385,
  "gpt-oss": 131_072,
  o1: 200_000,
  "o1-mini": 128_000,
  o3: 200_000,
  "o4-mini": 200_000,
  // Google.
  "gemini-1.5-pro": 2_097_152,
  "gemini-1.5-flash": 1_048_576,
  "gemini-2": 1_048_576,
  "gemini-3": 1_048_576,
  // Local models (Ollama's names).
  "llama3.1": 131_072,
  "llama3.2": 131_072,
  "llama3.3": 131_072,
  llama3: 8_192,
  llama4: 1_048_576,
  "qwen2.5": 32_768,
  "qwen2.5-coder": 32_768,
  qwen3: 40_960,
  "qwen3-coder": 262_144,
  mistral: 32_768,
  "mistral-nemo": 131_072,
  "mistral-small": 131_072,
  mixtral: 32_768,
  codestral: 32_768,
  devstral: 131_072,
  gemma2: 8_192,
  gemma3: 131_072,
  phi3: 4_096,
  phi4: 16_384,
  "deepseek-r1": 131_072,
  "deepseek-v3": 131_072,
  "deepseek-coder-v2": 163_840,
};

/**
 * Assumed for a model the table does not know: small enough for most local models, so that an unknown model is
 * compacted too early rather than sent more than it holds. Give `contextWindow` for such a model.
 */
export const defaultContextWindow = 32_768;

/**
 * The context window of `modelId` in tokens: from `windows` (id prefixes, checked first), else the table of known
 * models, else {@link defaultContextWindow}.
 * @example contextWindowOf("claude-sonnet-4-5-20250929") // 200_000
 */
export function contextWindowOf(modelId: string | undefined, windows?: Readonly<Record<string, number>> | undefined): number {
  const id = (modelId ?? "").toLowerCase().replace(/^.*\//, "");
  return longestPrefixMatch(id, windows ?? {}) ?? longestPrefixMatch(id, knownContextWindows) ?? defaultContextWindow;
}

/**
 * The context window of `modelId` in tokens when the table of known models has it (or `windows`), else undefined:
 * for a display that would rather say nothing than guess (the CLI's status line).
 * @example knownContextWindowOf("gemini-2.5-pro") // 1_048_576
 */
export function knownContextWindowOf(
  modelId: string | undefined,
  windows?: Readonly<Record<string, number>> | undefined,
): number | undefined {
  const id = (modelId ?? "").toLowerCase().replace(/^.*\//, "");
  return longestPrefixMatch(id, windows ?? {}) ?? longestPrefixMatch(id, knownContextWindows);
}

function longestPrefixMatch(id: string, windows: Readonly<Record<string, number>>): number | undefined {
  let best: string | undefined;
  for (const prefix of Object.keys(windows))
    if (id.startsWith(prefix.toLowerCase()) && (best === undefined || prefix.length > best.length)) best = prefix;
  return best === undefined ? undefined : windows[best];
}
