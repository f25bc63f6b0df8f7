import { MinagentError } from "../errors.js";

/** What went wrong in a call to a model provider's API. */
export type ProviderErrorDetails = {
  /** Provider name, e.g. "anthropic", "openai". */
  provider: string;
  /** HTTP status of the failed response; undefined when there was none (connection failure, an error inside a stream). */
  status?: number | undefined;
  /** The provider's own error type or code, e.g. "overloaded_error", "insufficient_quota", "connection_error". */
  errorType?: string | undefined;
  /** The provider's error message, as sent. */
  providerMessage: string;
  /** True when trying again later may succeed (rate limits, overload, server errors, dropped connections). */
  retryable: boolean;
  /** How long the provider asked us to wait before retrying (from `retry-after-ms` / `retry-after`). */
  retryAfterMs?: number | undefined;
  /** The provider's request id, for support tickets. */
  requestId?: string | undefined;
  /** How many attempts were made before giving up (1 when the call was not retried). */
  attempts?: number | undefined;
};

/**
 * A model provider's API failed: an HTTP error, a dropped connection, an error event inside a stream
 * or a response that is not what the API promises. Created in one place per adapter; never carries
 * an API key or request headers.
 * @example
 * catch (error) { if (error instanceof ProviderError && error.status === 429) … }
 */
export class ProviderError extends MinagentError {
  /** Provider name, e.g. "anthropic". */
  readonly provider: string;
  /** HTTP status, or undefined when no HTTP error status was received. */
  readonly status: number | undefined;
  /** The provider's error type or code. */
  readonly errorType: string | undefined;
  /** The provider's error message, as sent. */
  readonly providerMessage: string;
  /** True when trying again later may succeed. */
  readonly retryable: boolean;
  /** How long the provider asked us to wait before retrying, in milliseconds. */
  readonly retryAfterMs: number | undefined;
  /** The provider's request id. */
  readonly requestId: string | undefined;
  /** How many attempts were made. */
  readonly attempts: number;

  constructor(details: ProviderErrorDetails, options?: { cause?: unknown }) {
    super(describe(details), options);
    this.provider = details.provider;
    this.status = details.status;
    this.errorType = details.errorType;
    this.providerMessage = details.providerMessage;
    this.retryable = details.retryable;
    this.retryAfterMs = details.retryAfterMs;
    this.requestId = details.requestId;
    this.attempts = details.attempts ?? 1;
  }

  /** The same error, saying how many attempts were made (the retry wrapper's final report). */
  withAttempts(attempts: number): ProviderError {
    return new ProviderError({ ...this.details(), attempts }, { cause: this.cause });
  }

  /** The fields this error was created from. */
  details(): ProviderErrorDetails {
    const { provider, status, errorType, providerMessage, retryable, retryAfterMs, requestId, attempts } = this;
    return { provider, status, errorType, providerMessage, retryable, retryAfterMs, requestId, attempts };
  }
}

function describe(details: ProviderErrorDetails): string {
  const head = [details.provider, details.status, details.errorType].filter((part) => part !== undefined).join(" ");
  const attempts = details.attempts ?? 1;
  const tail = attempts > 1 ? ` (gave up after ${attempts} attempts)` : "";
  const request = details.requestId ? ` [request ${details.requestId}]` : "";
  return `${head}: ${details.providerMessage}${tail}${request}`;
}

/** The error for a request that never got an HTTP answer: it timed out, or the connection failed. Both are retryable. */
export function createTransportError(provider: string, kind: "timeout" | "connection", cause: unknown): ProviderError {
  const reason = kind === "connection" && cause instanceof Error && cause.cause instanceof Error ? `: ${cause.cause.message}` : "";
  const providerMessage = kind === "timeout" ? "the request timed out" : `the connection failed${reason}`;
  return new ProviderError(
    { provider, errorType: kind === "timeout" ? "timeout" : "connection_error", providerMessage, retryable: true },
    { cause },
  );
}
