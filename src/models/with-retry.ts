import type { Model, ModelCallOptions, ModelResponse, ModelStreamEvent } from "../core/types.js";
import { abortPromise, throwIfAborted, UsageError } from "../errors.js";
import { ProviderError } from "./provider-error.js";
import { searchesWeb, type WebSearchOptions } from "./web-search.js";

/** How a model call is retried when the provider reports a retryable failure. */
export type RetryOptions = {
  /** Retries after the first attempt (default 2): `maxRetries: 0` makes exactly one attempt. */
  maxRetries?: number | undefined;
  /** Delay before the first retry in milliseconds (default 500); it doubles with each retry, with jitter. */
  baseDelayMs?: number | undefined;
  /**
   * Longest wait between attempts in milliseconds (default 60,000). A provider asking to wait longer
   * (`retry-after`) gets no retry: the error is thrown at once rather than blocking the run.
   */
  maxDelayMs?: number | undefined;
  /**
   * Called before each wait, e.g. to tell a user "rate limited, retrying in 2 s". (A streaming call's
   * listener also gets a `model-call-retry` event at that moment.)
   */
  onRetry?: ((retry: RetryEvent) => void) | undefined;
};

/** One retry about to happen. */
export type RetryEvent = {
  /** The attempt that failed (1 for the first call). */
  attempt: number;
  /** How long the retry waits, in milliseconds. */
  delayMs: number;
  /** Why the attempt failed. */
  error: ProviderError;
};

/**
 * Wraps a model so that retryable provider failures (rate limits, overload, server errors, dropped
 * connections: {@link ProviderError.retryable}) are tried again with exponential backoff and jitter,
 * honouring the provider's `retry-after`. Past the budget the last ProviderError is thrown, with
 * `attempts` set. Only the model call is repeated; tools run after it returns, so never twice.
 * A streamed attempt is retried too, even one that already streamed text: before waiting, the call's
 * listener gets a `model-call-retry` event, which says that what was streamed so far is void and that
 * the next attempt streams the response from the start (the response itself is always the last attempt's).
 *
 * Retry policies do not multiply: wrapped around a model that retries by itself (an `AnthropicModel`,
 * an `OpenAIModel`, another `withRetry`), this policy replaces the inner one, so a run of failures
 * sends at most `maxRetries + 1` requests per call, `maxRetries` being this (the outermost) wrapper's.
 * @example const model = withRetry(myModel, { maxRetries: 4 });
 */
export function withRetry(model: Model, options: RetryOptions = {}): Model {
  const policy = resolveRetryOptions(options);
  return {
    ...(model.provider !== undefined && { provider: model.provider }),
    ...(model.modelId !== undefined && { modelId: model.modelId }),
    ...(model.supportsResponseFormat !== undefined && { supportsResponseFormat: model.supportsResponseFormat }),
    complete: (messages, tools, callOptions = {}) =>
      completeWithRetries((attemptOptions) => model.complete(messages, tools, attemptOptions), callOptions, policy),
    // A model that searches the web still does, wrapped (its own calls retry with its own policy).
    ...(searchesWeb(model) && { searchWeb: (query: string, options?: WebSearchOptions) => model.searchWeb(query, options) }),
  };
}

/** Retry settings with defaults applied. */
export type RetryPolicy = {
  maxRetries: number;
  baseDelayMs: number;
  maxDelayMs: number;
  onRetry?: (retry: RetryEvent) => void;
};

/** Applies defaults and checks the values (a misuse is thrown early). */
export function resolveRetryOptions(options: RetryOptions = {}): RetryPolicy {
  const policy = { maxRetries: options.maxRetries ?? 2, baseDelayMs: options.baseDelayMs ?? 500, maxDelayMs: options.maxDelayMs ?? 60_000 };
  if (!Number.isInteger(policy.maxRetries) || policy.maxRetries < 0)
    throw new UsageError(`maxRetries must be a whole number ≥ 0, got ${policy.maxRetries}.`);
  for (const key of ["baseDelayMs", "maxDelayMs"] as const) {
    if (!(policy[key] >= 0)) throw new UsageError(`${key} must be a number of milliseconds ≥ 0, got ${policy[key]}.`);
  }
  return { ...policy, ...(options.onRetry && { onRetry: options.onRetry }) };
}

/**
 * Marks the call options a retrying caller passes to the model it wraps: "I retry; make one attempt".
 * This is how retry policies compose instead of multiplying (3 attempts × 3 attempts = 9 requests):
 * `completeWithRetries` sets it on the options of each attempt, and every `completeWithRetries` that
 * receives it (an adapter's own, an inner `withRetry`'s) makes exactly one attempt, so the outermost
 * policy alone decides. It travels inside `ModelCallOptions` because that is what every wrapper in
 * between (recording, token counting, a user's own) already passes on; a symbol key keeps it out of
 * the public type, out of JSON (cassettes, traces) and away from any user field. A wrapper that builds
 * new options instead drops it, and the policies multiply again there. `Symbol.for`,
 * so that two copies of minagent in one process (e.g. the ESM build and a bundled one) still agree.
 */
const callerRetries = Symbol.for("minagent.callerRetries");

/** Call options that may carry the {@link callerRetries} mark. */
type MarkedCallOptions = ModelCallOptions & { [callerRetries]?: true };

/**
 * Runs `attempt` until it succeeds, fails with a non-retryable error, or the policy's budget is spent.
 * When a retrying caller wraps this model (its options carry the mark), it makes one attempt only.
 */
export async function completeWithRetries(
  attempt: (options: ModelCallOptions) => Promise<ModelResponse>,
  options: ModelCallOptions,
  policy: RetryPolicy,
): Promise<ModelResponse> {
  if ((options as MarkedCallOptions)[callerRetries]) return attempt(options);
  const { onEvent } = options;
  for (let attemptNumber = 1; ; attemptNumber++) {
    let streamed = false;
    const onAttemptEvent: ModelCallOptions["onEvent"] = (event) => {
      streamed = true;
      onEvent?.(event);
    };
    const attemptOptions: MarkedCallOptions = { ...options, ...(onEvent && { onEvent: onAttemptEvent }), [callerRetries]: true };
    try {
      return await attempt(attemptOptions);
    } catch (error) {
      if (!(error instanceof ProviderError)) throw error;
      const failed = error.attempts === attemptNumber ? error : error.withAttempts(attemptNumber);
      const delayMs = retryDelay(failed, attemptNumber, policy);
      if (delayMs === undefined) throw failed;
      policy.onRetry?.({ attempt: attemptNumber, delayMs, error: failed });
      onEvent?.({ type: "model-call-retry", attempt: attemptNumber, delayMs, streamed, error: describeFailure(failed) });
      await sleep(delayMs, options.signal);
    }
  }
}

/** A failure as a retry event carries it: plain data, no cause, no headers. */
function describeFailure(error: ProviderError): Extract<ModelStreamEvent, { type: "model-call-retry" }>["error"] {
  return {
    provider: error.provider,
    kind: error.kind,
    ...(error.status !== undefined && { status: error.status }),
    ...(error.errorType !== undefined && { errorType: error.errorType }),
    message: error.providerMessage,
  };
}

/** How long to wait before retrying after `attempt` failed, or undefined when it must not be retried. */
function retryDelay(error: ProviderError, attempt: number, policy: RetryPolicy): number | undefined {
  if (!error.retryable || attempt > policy.maxRetries) return undefined;
  if (error.retryAfterMs !== undefined) return error.retryAfterMs <= policy.maxDelayMs ? error.retryAfterMs : undefined;
  const backoff = Math.min(policy.baseDelayMs * 2 ** (attempt - 1), policy.maxDelayMs);
  // Jitter spreads out clients that failed together, so they do not all come back at the same instant.
  return backoff * (1 - Math.random() * 0.25);
}

async function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  throwIfAborted(signal);
  let timer: NodeJS.Timeout | undefined;
  const wait = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  const abort = signal && abortPromise(signal);
  try {
    await (abort ? Promise.race([wait, abort.promise]) : wait);
  } finally {
    clearTimeout(timer);
    abort?.dispose();
  }
}
