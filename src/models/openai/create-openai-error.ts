import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from "openai";
import { toAbortError } from "../../errors.js";
import { createMalformedResponseError, createTransportError, isNetworkError, ProviderError } from "../provider-error.js";
import { isRetryableStatus, parseRetryAfter } from "../retry-hints.js";

/** Error types that mean "try again later" when they arrive inside a stream, where there is no HTTP status. */
const retryableTypes = new Set(["server_error", "rate_limit_exceeded", "overloaded_error"]);

/**
 * The one place where failures of a Chat Completions call become minagent errors (see
 * createAnthropicError). A 429 is retryable unless retrying cannot fix it: an exhausted quota
 * (`insufficient_quota`), or a single request larger than the tokens-per-minute limit.
 * @see https://platform.openai.com/docs/guides/error-codes
 */
export function createOpenAIError(error: unknown, provider: string, signal?: AbortSignal): Error {
  if (signal?.aborted) return toAbortError(signal);
  if (error instanceof ProviderError) return error;
  if (error instanceof APIUserAbortError) return toAbortError(AbortSignal.abort(error));
  if (error instanceof APIConnectionTimeoutError) return createTransportError(provider, "timeout", error);
  if (error instanceof APIConnectionError) return createTransportError(provider, "connection", error);
  if (error instanceof APIError) return fromApiError(error, provider);
  if (error instanceof SyntaxError) return createMalformedResponseError(provider, `the body is not valid JSON (${error.message})`, error);
  if (isNetworkError(error)) return createTransportError(provider, "connection", error);
  return error instanceof Error ? error : new Error(String(error));
}

type ErrorBody = { message?: unknown; type?: unknown; code?: unknown; metadata?: { raw?: unknown } };

function fromApiError(error: APIError, provider: string): ProviderError {
  const body = (error.error ?? {}) as ErrorBody;
  // `code` is the precise one ("insufficient_quota", "rate_limit_exceeded"); some servers send a number there.
  const errorType = typeof body.code === "string" ? body.code : typeof body.type === "string" ? body.type : undefined;
  let providerMessage = typeof body.message === "string" ? body.message : error.message;
  // Gateways (OpenRouter) put the upstream provider's explanation in metadata.raw.
  if (typeof body.metadata?.raw === "string") providerMessage += `: ${body.metadata.raw}`;
  const status = error.status;
  const retryable =
    error.headers?.get("x-should-retry") === "false"
      ? false
      : status !== undefined
        ? isRetryableStatus(status) && !(status === 429 && cannotSucceedLater(body, providerMessage))
        : retryableTypes.has(errorType ?? "") || retryableTypes.has(String(body.type));
  return new ProviderError(
    {
      provider,
      status,
      errorType,
      providerMessage,
      retryable,
      retryAfterMs: parseRetryAfter(error.headers),
      requestId: error.requestID ?? undefined,
    },
    { cause: error },
  );
}

/**
 * The error of a Responses API response that failed after an HTTP 200: a stream's `response.failed` event
 * (when no `error` event came before it), or a response received whole with status `failed`. There is no
 * status, so the error's code decides, as for an error event inside a stream: a server error or a rate
 * limit may pass on retry; anything else (an exhausted quota, an invalid prompt) will not.
 * @see https://platform.openai.com/docs/api-reference/responses-streaming/response/failed
 */
export function createOpenAIResponseFailure(error: unknown, provider: string): ProviderError {
  const body = (typeof error === "object" && error !== null ? error : {}) as ErrorBody;
  const errorType = typeof body.code === "string" ? body.code : typeof body.type === "string" ? body.type : undefined;
  const providerMessage = typeof body.message === "string" && body.message !== "" ? body.message : "the response failed";
  const retryable = retryableTypes.has(errorType ?? "") || retryableTypes.has(String(body.type));
  return new ProviderError({ provider, errorType, providerMessage, retryable });
}

/** A 429 that waiting cannot fix: no quota left, or one request larger than the per-minute limit. */
function cannotSucceedLater(body: ErrorBody, message: string): boolean {
  if (body.code === "insufficient_quota" || body.type === "insufficient_quota") return true;
  if (/request too large/i.test(message)) return true;
  const sizes = /Limit ([\d,]+), Requested ([\d,]+)/.exec(message);
  return sizes !== null && toNumber(sizes[2]) > toNumber(sizes[1]);
}

function toNumber(text: string | undefined): number {
  return Number((text ?? "").replaceAll(",", ""));
}
