import { MinagentError } from "../errors.js";

/**
 * What kind of failure a {@link ProviderError} is, whatever the provider calls it:
 * - `api`: the provider answered with an error (an HTTP error status, or an error event inside a stream);
 * - `connection`: the connection failed or dropped, before the response or in the middle of its body or stream;
 * - `timeout`: the call ran past `timeoutMs`, or the server sent nothing for `idleTimeoutMs` while sending its response;
 * - `incomplete_stream`: a stream ended before the response was complete;
 * - `malformed_response`: the response is not what the API promises (not JSON, no content…).
 */
export type ProviderErrorKind = "api" | "connection" | "timeout" | "incomplete_stream" | "malformed_response";

/** What went wrong in a call to a model provider's API. */
export type ProviderErrorDetails = {
  /** Provider name, e.g. "anthropic", "openai". */
  provider: string;
  /** What kind of failure it is (default `api`). */
  kind?: ProviderErrorKind | undefined;
  /** HTTP status of the failed response; undefined when there was none (connection failure, an error inside a stream). */
  status?: number | undefined;
  /**
   * The provider's own error type or code, e.g. "overloaded_error", "insufficient_quota"; for failures the
   * provider did not report, minagent's: "connection_error", "timeout", "incomplete_stream", "malformed_response".
   */
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
 * A model provider's API failed: an HTTP error, a dropped connection, a timeout, an error event inside
 * a stream, a stream cut short, or a response that is not what the API promises. Created in one place
 * per adapter; never carries an API key (the adapter removes its own key wherever a server echoed it)
 * or request headers.
 * @example
 * catch (error) { if (error instanceof ProviderError && (error.status === 429 || error.kind === "timeout")) … }
 */
export class ProviderError extends MinagentError {
  /** Provider name, e.g. "anthropic". */
  readonly provider: string;
  /** What kind of failure it is: the provider's error, a connection failure, a timeout, an incomplete stream or a malformed response. */
  readonly kind: ProviderErrorKind;
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
    this.kind = details.kind ?? "api";
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
    const { provider, kind, status, errorType, providerMessage, retryable, retryAfterMs, requestId, attempts } = this;
    return { provider, kind, status, errorType, providerMessage, retryable, retryAfterMs, requestId, attempts };
  }
}

function describe(details: ProviderErrorDetails): string {
  const head = [details.provider, details.status, details.errorType].filter((part) => part !== undefined).join(" ");
  const attempts = details.attempts ?? 1;
  const tail = attempts > 1 ? ` (gave up after ${attempts} attempts)` : "";
  const request = details.requestId ? ` [request ${details.requestId}]` : "";
  return `${head}: ${details.providerMessage}${tail}${request}`;
}

/**
 * The error for a call that failed on the way rather than at the provider: it timed out, or the connection
 * failed or dropped (before the response, or in the middle of its body or stream). Both are retryable.
 * `problem` says what happened in words; without it, a connection error names the network's own reason.
 */
export function createTransportError(provider: string, kind: "timeout" | "connection", cause: unknown, problem?: string): ProviderError {
  const providerMessage = problem ?? (kind === "timeout" ? "the request timed out" : `the connection failed${networkReason(cause)}`);
  return new ProviderError(
    { provider, kind, errorType: kind === "timeout" ? "timeout" : "connection_error", providerMessage, retryable: true },
    { cause },
  );
}

/** The response is not what the provider's API promises (not JSON, no content…); not retryable. */
export function createMalformedResponseError(provider: string, problem: string, cause?: unknown): ProviderError {
  return new ProviderError(
    {
      provider,
      kind: "malformed_response",
      errorType: "malformed_response",
      providerMessage: `malformed response: ${problem}`,
      retryable: false,
    },
    cause === undefined ? undefined : { cause },
  );
}

/** What a provider sent instead of a response, for a malformed-response message: its JSON, cut to 120 characters. */
export function describeReceived(value: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value); // nested too deep to write
  }
  return text.length > 120 ? `${text.slice(0, 120)}…` : text;
}

/** A stream stopped or went wrong before the response was complete (e.g. the connection dropped); retryable. */
export function createIncompleteStreamError(provider: string, problem: string): ProviderError {
  return new ProviderError({
    provider,
    kind: "incomplete_stream",
    errorType: "incomplete_stream",
    providerMessage: problem,
    retryable: true,
  });
}

/** ": other side closed" for fetch's `TypeError: fetch failed` / `terminated`, whose reason is in `cause`. */
function networkReason(error: unknown): string {
  for (let current = error, depth = 0; current instanceof Error && depth < 4; current = current.cause, depth++) {
    if (current.cause instanceof Error && current.cause.message !== "") return `: ${current.cause.message}`;
  }
  return "";
}

/**
 * True for the errors fetch (undici) gives when the network fails under a request: `TypeError: fetch failed`
 * before the response, `TypeError: terminated` when the connection drops while the body is read, and the
 * socket errors (ECONNRESET, EPIPE…) found in their causes.
 */
export function isNetworkError(error: unknown): boolean {
  for (let current = error, depth = 0; current instanceof Error && depth < 4; current = current.cause, depth++) {
    if (current instanceof TypeError && (current.message === "terminated" || current.message === "fetch failed")) return true;
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string" && (networkErrorCodes.has(code) || code.startsWith("UND_ERR_"))) return true;
  }
  return false;
}

const networkErrorCodes = new Set([
  "ECONNRESET",
  "ECONNREFUSED",
  "ECONNABORTED",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EAI_AGAIN",
]);
