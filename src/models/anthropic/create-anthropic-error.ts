// The error classes alone (the SDK's own entry point is loaded with its first call: see AnthropicModel).
import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from "@anthropic-ai/sdk/error";
import { toAbortError } from "../../errors.js";
import {
  createIncompleteStreamError as createProviderIncompleteStreamError,
  createMalformedResponseError as createProviderMalformedResponseError,
  createTransportError,
  isNetworkError,
  ProviderError,
} from "../provider-error.js";
import { isRetryableStatus, parseRetryAfter } from "../retry-hints.js";

const provider = "anthropic";

/** Error types that mean "try again later" when they arrive inside a stream, where there is no HTTP status. */
const retryableTypes = new Set(["overloaded_error", "api_error", "rate_limit_error"]);

/**
 * The one place where failures of an Anthropic call become minagent errors: an aborted signal gives
 * an AbortError, everything the API or the network did gives a {@link ProviderError}. Errors that are
 * not the provider's (a bug) are returned unchanged. The SDK's error keeps only response headers and
 * body; the adapter removes its key from both, in case the server echoed it (see hideSecretsInError).
 * @see https://docs.claude.com/en/api/errors
 */
export function createAnthropicError(error: unknown, signal?: AbortSignal): Error {
  if (signal?.aborted) return toAbortError(signal);
  if (error instanceof ProviderError) return error;
  if (error instanceof APIUserAbortError) return toAbortError(AbortSignal.abort(error));
  if (error instanceof APIConnectionTimeoutError) return createTransportError(provider, "timeout", error);
  if (error instanceof APIConnectionError) return createTransportError(provider, "connection", error);
  if (error instanceof APIError) return fromApiError(error);
  if (error instanceof SyntaxError) return createMalformedResponseError(`the body is not valid JSON (${error.message})`, error);
  if (isNetworkError(error)) return createTransportError(provider, "connection", error);
  return error instanceof Error ? error : new Error(String(error));
}

function fromApiError(error: APIError): ProviderError {
  const body = error.error as { error?: { type?: unknown; message?: unknown }; request_id?: unknown } | undefined;
  const errorType = error.type ?? (typeof body?.error?.type === "string" ? body.error.type : undefined);
  const providerMessage = error.apiMessage ?? (typeof body?.error?.message === "string" ? body.error.message : error.message);
  const requestId = error.requestID ?? (typeof body?.request_id === "string" ? body.request_id : undefined);
  const status = error.status;
  // The API can say outright whether a retry may succeed; otherwise judge by status (or, in a stream, by type).
  const hint = error.headers?.get("x-should-retry");
  const retryable = hint === "false" ? false : status !== undefined ? isRetryableStatus(status) : retryableTypes.has(errorType ?? "");
  return new ProviderError(
    { provider, status, errorType, providerMessage, retryable, retryAfterMs: parseRetryAfter(error.headers), requestId },
    { cause: error },
  );
}

/** The response is not what the Messages API promises (not JSON, no content array…). */
export function createMalformedResponseError(problem: string, cause?: unknown): ProviderError {
  return createProviderMalformedResponseError(provider, problem, cause);
}

/** The stream stopped or went wrong before the message was complete (e.g. the connection dropped). */
export function createIncompleteStreamError(problem: string): ProviderError {
  return createProviderIncompleteStreamError(provider, problem);
}
