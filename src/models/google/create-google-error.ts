import { toAbortError } from "../../errors.js";
import {
  createIncompleteStreamError,
  createMalformedResponseError,
  createTransportError,
  isNetworkError,
  ProviderError,
} from "../provider-error.js";
import { isRetryableStatus } from "../retry-hints.js";

const provider = "google";

/** Google's error envelope: `{ error: { code, message, status: "RESOURCE_EXHAUSTED", details } }`. */
type GoogleErrorBody = {
  error?: { code?: unknown; message?: unknown; status?: unknown; details?: { "@type"?: unknown; retryDelay?: unknown }[] };
};

/**
 * The one place where failures of a Gemini call become minagent errors: an aborted signal gives an
 * AbortError; the SDK's `ApiError` (an HTTP error status, or an error object inside a stream) a
 * ProviderError with the status, Google's canonical code as `errorType` (`INVALID_ARGUMENT`,
 * `RESOURCE_EXHAUSTED`…), its message, and the wait a `google.rpc.RetryInfo` detail asks for; network
 * failures and cut streams the transport kinds. Errors that are not the provider's (a bug) come back unchanged.
 * The SDK is recognised by the error's name, so that this module needs no SDK at load time.
 * @see https://ai.google.dev/gemini-api/docs/troubleshooting#error-codes
 */
export function createGoogleError(error: unknown, signal?: AbortSignal): Error {
  if (signal?.aborted) return toAbortError(signal);
  if (error instanceof ProviderError) return error;
  if (error instanceof Error && error.name === "AbortError") return toAbortError(AbortSignal.abort(error));
  if (isApiError(error)) return fromApiError(error);
  if (isCredentialsError(error)) return fromCredentialsError(error);
  if (error instanceof SyntaxError) return createMalformedResponseError(provider, `the body is not valid JSON (${error.message})`, error);
  if (isNetworkError(error)) return createTransportError(provider, "connection", error);
  // The SDK's words for a stream whose last event has no terminating blank line (cut in the middle).
  if (error instanceof Error && error.message === "Incomplete JSON segment at the end")
    return createIncompleteStreamError(provider, "the stream ended in the middle of an event");
  return error instanceof Error ? error : new Error(String(error));
}

type ApiError = Error & { status: number };

function isApiError(error: unknown): error is ApiError {
  return error instanceof Error && error.name === "ApiError" && typeof (error as Partial<ApiError>).status === "number";
}

function fromApiError(error: ApiError): ProviderError {
  // The SDK's message is the error body as JSON, after "got status: …. " for an error inside a stream.
  const body = parseBody(error.message);
  const status = error.status;
  const errorType = typeof body?.error?.status === "string" ? body.error.status : undefined;
  const providerMessage = typeof body?.error?.message === "string" ? body.error.message : error.message;
  return new ProviderError(
    { provider, status, errorType, providerMessage, retryable: isRetryableStatus(status), retryAfterMs: retryDelay(body) },
    { cause: error },
  );
}

function parseBody(message: string): GoogleErrorBody | undefined {
  const start = message.indexOf("{");
  if (start === -1) return undefined;
  try {
    const parsed: unknown = JSON.parse(message.slice(start));
    return typeof parsed === "object" && parsed !== null ? (parsed as GoogleErrorBody) : undefined;
  } catch {
    return undefined;
  }
}

/** The wait a `google.rpc.RetryInfo` detail asks for ("37s", "1.5s"), in milliseconds. */
function retryDelay(body: GoogleErrorBody | undefined): number | undefined {
  const details = Array.isArray(body?.error?.details) ? body.error.details : [];
  const info = details.find((detail) => typeof detail?.["@type"] === "string" && detail["@type"].endsWith("google.rpc.RetryInfo"));
  const match = typeof info?.retryDelay === "string" ? /^(\d+(?:\.\d+)?)s$/.exec(info.retryDelay) : null;
  return match ? Number(match[1]) * 1000 : undefined;
}

/** google-auth-library's HTTP failure (gaxios's error), recognised by its class name: the SDK does not export it. */
function isCredentialsError(error: unknown): error is Error {
  return error instanceof Error && (error.name === "GaxiosError" || error.constructor?.name === "GaxiosError");
}

/**
 * google-auth-library failed to get a Vertex AI access token (its own HTTP, before the model's request): said
 * so, rather than as a failure to reach the model's address; retryable when the network failed or the token
 * endpoint answered 429 or 5xx.
 */
function fromCredentialsError(error: Error): ProviderError {
  const status = (error as { status?: unknown; response?: { status?: unknown } }).response?.status;
  const httpStatus = typeof status === "number" ? status : undefined;
  return new ProviderError(
    {
      provider,
      kind: httpStatus === undefined ? "connection" : "api",
      errorType: "credentials",
      providerMessage: `could not get a Google Cloud access token: ${error.message}`,
      retryable: httpStatus === undefined ? isNetworkError(error) : isRetryableStatus(httpStatus),
    },
    { cause: error },
  );
}
