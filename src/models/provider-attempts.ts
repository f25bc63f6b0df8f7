import type { ModelCallOptions, ModelResponse } from "../core/types.js";
import { UsageError } from "../errors.js";
import { createGuardedFetch } from "./create-guarded-fetch.js";
import { nameEndpoint, type ProviderEndpoint, resolveEndpoint } from "./describe-connection-failure.js";
import { hideSecretsInError } from "./hide-secrets-in-error.js";
import { createTransportError, type ProviderError } from "./provider-error.js";
import { completeWithRetries, type RetryOptions, type RetryPolicy, resolveRetryOptions } from "./with-retry.js";

/** Options every provider adapter (AnthropicModel, OpenAIModel) takes, about how its calls are attempted. */
export type ProviderModelOptions = {
  /**
   * Retries of a failed call (default 2): rate limits, overload, server errors, dropped connections.
   * Wrapped in {@link withRetry}, the wrapper's policy replaces this one (they do not multiply).
   */
  maxRetries?: number | undefined;
  /** Backoff settings of those retries. */
  retry?: Omit<RetryOptions, "maxRetries"> | undefined;
  /**
   * Milliseconds one attempt may take, from sending the request to the last byte of the response or
   * stream, before it fails with a retryable `timeout` ProviderError (default: none, beyond the SDK's
   * 10 minutes for the response headers). Each retry gets the full time again.
   */
  timeoutMs?: number | undefined;
  /**
   * Milliseconds the server may stay silent once it has sent the response headers — between two chunks
   * of a stream, or before the body — before the attempt fails with a retryable `timeout` ProviderError
   * (0 turns it off). Default 120,000; 300,000 for an OpenAIModel with a `baseURL`, because a local server
   * (llama.cpp, vLLM) may send its headers at once and then read a long prompt for minutes in silence, and for a
   * GoogleModel, because a Gemini model streams nothing while it thinks unless its thoughts are included.
   * Anthropic and OpenAI stream text as it is written.
   */
  idleTimeoutMs?: number | undefined;
  /** Extra HTTP headers sent with every request (e.g. an `anthropic-beta` flag). */
  headers?: Record<string, string> | undefined;
  /** A fetch implementation, e.g. to record traffic. Default: the global fetch. */
  fetch?: typeof fetch | undefined;
  /**
   * What set `baseURL`, named when the connection fails ("could not connect to … (set by OPENAI_BASE_URL)").
   * Default "the baseURL option"; {@link resolveModel} passes the variable or model string it read the URL from.
   */
  baseURLSource?: string | undefined;
};

/** What {@link ProviderAttempts} reads of an adapter's options. */
type AttemptOptions = ProviderModelOptions & { model: string; apiKey?: string | undefined; baseURL?: string | undefined };

/** What differs between two adapters' attempts: names, defaults, and how the SDK's failures become minagent errors. */
export type ProviderAttemptSettings = {
  /** The adapter's class name, opening every misuse message: "AnthropicModel". */
  owner: string;
  /** Provider name in errors and traces. */
  provider: string;
  /** A model id for the "needs a model id" message: "claude-sonnet-4-6". */
  exampleModel: string;
  /** The environment variable holding the API key: "ANTHROPIC_API_KEY". */
  keyVariable: string;
  /** Whether the key may come from {@link keyVariable} and must be there (false for a server of one's own). */
  officialKey: boolean;
  /** The SDK's logging variable ("ANTHROPIC_LOG"): its console logging stays off unless that is set. */
  logVariable: string;
  /** Milliseconds of silence a response may have when `idleTimeoutMs` is not given. */
  idleTimeoutMs: number;
  /** The one mapping of a failed SDK call to a minagent error (an AbortError when `signal` aborted, a ProviderError). */
  toError(error: unknown, signal: AbortSignal | undefined): Error;
  /**
   * Where requests go without a `baseURL` option: the provider's address, and the SDK's own variable that
   * overrides it ("ANTHROPIC_BASE_URL"). A connection error names the address and what set it.
   */
  defaultEndpoint?: { url: string; variable?: string | undefined } | undefined;
};

/** The SDK client options both adapters set the same way. */
export type ProviderClientOptions = {
  maxRetries: 0;
  baseURL?: string;
  fetch: typeof fetch;
  logLevel?: "off";
};

/** The call options an adapter's request body depends on (`createRequest`'s). */
export type RequestOptions = Pick<ModelCallOptions, "toolChoice" | "responseFormat">;

/** One attempt at a model call: `requestOptions` go to the SDK (the attempt's signal), `options` are the attempt's call options. */
export type SendAttempt = (requestOptions: { signal?: AbortSignal }, options: ModelCallOptions) => Promise<ModelResponse>;

/**
 * How a provider adapter attempts its calls, made once in its constructor: the checked options (model id, API
 * key, timeouts, retry policy; a misuse is thrown there, early), the SDK client options that hand retries and
 * timeouts to minagent, and {@link complete}, which runs the attempts. Both adapters are this plus their wire format.
 */
export class ProviderAttempts {
  /** The API key the adapter sends (undefined for a keyless server); hidden from every error. */
  readonly apiKey: string | undefined;
  /** Options for the SDK's client: no SDK retries, the guarded fetch, quiet logging. */
  readonly clientOptions: ProviderClientOptions;
  readonly #settings: ProviderAttemptSettings;
  readonly #retry: RetryPolicy;
  readonly #timeoutMs: number | undefined;
  readonly #endpoint: ProviderEndpoint | undefined;

  constructor(options: AttemptOptions, settings: ProviderAttemptSettings) {
    const { owner } = settings;
    if (typeof options?.model !== "string" || options.model === "")
      throw new UsageError(`${owner} needs a model id, e.g. { model: "${settings.exampleModel}" }.`);
    const apiKey = options.apiKey ?? (settings.officialKey ? process.env[settings.keyVariable] : undefined);
    if (!apiKey && settings.officialKey)
      throw new UsageError(`${owner} needs an API key: set the ${settings.keyVariable} environment variable or pass { apiKey }.`);
    this.apiKey = apiKey || undefined;
    this.#settings = settings;
    this.#retry = resolveRetryOptions({ ...options.retry, maxRetries: options.maxRetries ?? 2 });
    const { timeoutMs, idleTimeoutMs = settings.idleTimeoutMs } = checkTimeouts(owner, options);
    this.#timeoutMs = timeoutMs;
    this.#endpoint = settings.defaultEndpoint && resolveEndpoint(options, settings.defaultEndpoint);
    this.clientOptions = {
      // The SDKs' retries cannot be tuned, and they retry what should not be (a 409, an exhausted quota): ours are in completeWithRetries.
      maxRetries: 0,
      ...(options.baseURL !== undefined && { baseURL: options.baseURL }),
      // No SDK timeout: the attempt signal bounds the whole attempt (headers, body, stream) and names it; two timers racing gave two messages.
      fetch: createGuardedFetch({ provider: settings.provider, fetch: options.fetch, idleTimeoutMs }),
      // Failures come back as typed errors; the SDK's console logging (a stream's unparsable data) stays off unless asked for.
      ...(process.env[settings.logVariable] === undefined && { logLevel: "off" }),
    };
  }

  /**
   * Runs `send` under the retry policy (or once, when a retrying caller wraps the model), each attempt with its
   * own signal: the caller's, aborted too at the attempt's deadline. A failure becomes the settings' error (or the
   * deadline's timeout), with the API key hidden.
   */
  complete(options: ModelCallOptions, send: SendAttempt): Promise<ModelResponse> {
    return completeWithRetries((attemptOptions) => this.#attempt(attemptOptions, send), options, this.#retry);
  }

  async #attempt(options: ModelCallOptions, send: SendAttempt): Promise<ModelResponse> {
    const { provider, toError } = this.#settings;
    const attempt = createAttemptSignal(provider, options.signal, this.#timeoutMs);
    try {
      const response = await send(attempt.signal ? { signal: attempt.signal } : {}, options);
      attempt.signal?.throwIfAborted(); // the SDK ends an aborted stream quietly; the call must not look complete
      return response;
    } catch (error) {
      throw hideSecretsInError(attempt.timedOut() ?? nameEndpoint(toError(error, options.signal), this.#endpoint), [this.apiKey]);
    } finally {
      attempt.dispose();
    }
  }
}

/** The signal of one attempt at a model call: the caller's, plus the call's deadline. */
type AttemptSignal = {
  /** Pass this to the SDK; undefined when there is neither a caller's signal nor a deadline. */
  signal: AbortSignal | undefined;
  /** The timeout error once the deadline has passed (the SDK then saw an abort), else undefined. */
  timedOut(): ProviderError | undefined;
  /** Stops the deadline's timer and stops listening to the caller's signal. Call it when the attempt ends. */
  dispose(): void;
};

/**
 * The SDKs' `timeout` stops at the response headers; a body or a stream that stalls after them would
 * hang. This signal aborts the whole attempt, headers, body and stream, `timeoutMs` after it starts
 * (and whenever the caller's own signal aborts); `timedOut()` then says it was the deadline, so the
 * adapter reports a retryable `timeout` ProviderError rather than an abort.
 */
function createAttemptSignal(provider: string, signal: AbortSignal | undefined, timeoutMs: number | undefined): AttemptSignal {
  if (timeoutMs === undefined) return { signal, timedOut: () => undefined, dispose: () => {} };
  const controller = new AbortController();
  let timeout: ProviderError | undefined;
  const timer = setTimeout(() => {
    const problem = `the model call took longer than its ${timeoutMs / 1000} s timeout (timeoutMs: ${timeoutMs})`;
    timeout = createTransportError(provider, "timeout", undefined, problem);
    controller.abort(timeout);
  }, timeoutMs);
  const onAbort = () => controller.abort(signal?.reason);
  if (signal?.aborted) onAbort();
  else signal?.addEventListener("abort", onAbort, { once: true });
  return {
    signal: controller.signal,
    timedOut: () => (signal?.aborted ? undefined : timeout),
    dispose: () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
    },
  };
}

/** Checks an adapter's timeout options (a misuse is thrown early) and gives them back. */
function checkTimeouts<T extends { timeoutMs?: number | undefined; idleTimeoutMs?: number | undefined }>(owner: string, options: T): T {
  const { timeoutMs, idleTimeoutMs } = options;
  if (timeoutMs !== undefined && !(timeoutMs > 0 && Number.isFinite(timeoutMs)))
    throw new UsageError(`${owner} timeoutMs must be a number of milliseconds > 0, got ${timeoutMs}.`);
  if (idleTimeoutMs !== undefined && !(idleTimeoutMs >= 0))
    throw new UsageError(`${owner} idleTimeoutMs must be a number of milliseconds ≥ 0 (0 turns it off), got ${idleTimeoutMs}.`);
  return options;
}
