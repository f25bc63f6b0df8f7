import { toAbortError } from "../../errors.js";
import {
  createIncompleteStreamError as createProviderIncompleteStreamError,
  createMalformedResponseError as createProviderMalformedResponseError,
  createTransportError,
  isNetworkError,
  ProviderError,
} from "../provider-error.js";
import { isRetryableStatus } from "../retry-hints.js";

const provider = "bedrock";

/**
 * Bedrock's exceptions with the HTTP status AWS documents for them, for the ones that arrive as an
 * exception event inside a stream (no HTTP status of their own), and whether a retry may succeed.
 * @see https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ConverseStream.html#API_runtime_ConverseStream_Errors
 */
const exceptions: Record<string, { status: number; retryable: boolean }> = {
  ThrottlingException: { status: 429, retryable: true },
  ServiceUnavailableException: { status: 503, retryable: true },
  InternalServerException: { status: 500, retryable: true },
  ModelNotReadyException: { status: 429, retryable: true },
  ModelTimeoutException: { status: 408, retryable: true },
  ModelStreamErrorException: { status: 424, retryable: true },
  ModelErrorException: { status: 424, retryable: false },
  ValidationException: { status: 400, retryable: false },
  AccessDeniedException: { status: 403, retryable: false },
  ResourceNotFoundException: { status: 404, retryable: false },
  ServiceQuotaExceededException: { status: 400, retryable: false },
  ConflictException: { status: 400, retryable: false },
};

/** The fields of the SDK's service exceptions (and of errors it builds from an exception frame) that are read here. */
type ServiceFailure = Error & {
  $fault?: "client" | "server";
  $metadata?: { httpStatusCode?: number; requestId?: string };
  code?: unknown;
};

/**
 * The one place where failures of a Bedrock call become minagent errors: an aborted signal gives an
 * AbortError; an exception AWS sent (an HTTP error, or an exception event inside a stream) gives an `api`
 * {@link ProviderError} with its HTTP status, the exception's name as `errorType` and whether a retry may
 * succeed (throttling, unavailable, internal and timed-out model errors: yes; validation, access,
 * not-found: no); a refused or dropped connection and the HTTP handler's socket timeout give `connection`
 * and `timeout` errors (`idleTimeoutMs`, the socket timeout the model set, for the message). Other errors (a bug, a missing region) come back unchanged. The SDK is not imported:
 * its exceptions are read by their fields, so that this file loads without it.
 * @see https://docs.aws.amazon.com/bedrock/latest/APIReference/CommonErrors.html
 */
export function createBedrockError(error: unknown, signal?: AbortSignal, options: { idleTimeoutMs?: number | undefined } = {}): Error {
  if (signal?.aborted) return toAbortError(signal);
  if (error instanceof ProviderError) return error;
  if (!(error instanceof Error)) return new Error(String(error));
  const failure = error as ServiceFailure;
  if (failure.name === "AbortError") return toAbortError(AbortSignal.abort(error));
  // The HTTP handler names a reset or a broken pipe "TimeoutError" too; only ETIMEDOUT or no code is a timeout.
  if (failure.name === "TimeoutError" && (failure.code === undefined || failure.code === "ETIMEDOUT"))
    return createTransportError(provider, "timeout", error, describeSilence(options.idleTimeoutMs));
  if (isNetworkError(error)) return createTransportError(provider, "connection", error);
  if (failure.$fault !== undefined || failure.$metadata !== undefined || failure.name in exceptions) return fromServiceFailure(failure);
  if (failure instanceof SyntaxError) return createMalformedResponseError(`the body is not valid JSON (${failure.message})`, failure);
  return error;
}

function describeSilence(idleTimeoutMs: number | undefined): string {
  if (idleTimeoutMs === undefined) return "the server sent nothing for too long";
  return `the server sent nothing for ${idleTimeoutMs / 1000} s (idleTimeoutMs: ${idleTimeoutMs})`;
}

function fromServiceFailure(failure: ServiceFailure): ProviderError {
  const known = exceptions[failure.name];
  const status = failure.$metadata?.httpStatusCode ?? known?.status;
  // "Unknown": the response named no exception (no x-amzn-errortype header); its status says what it is.
  const errorType = failure.name === "Unknown" ? undefined : failure.name;
  const retryable = known?.retryable ?? (status !== undefined ? isRetryableStatus(status) : failure.$fault === "server");
  const requestId = failure.$metadata?.requestId;
  return new ProviderError(
    { provider, status, errorType, providerMessage: failure.message, retryable, ...(requestId && { requestId }) },
    { cause: failure },
  );
}

/** The response is not what the Converse API promises (no output message…). */
export function createMalformedResponseError(problem: string, cause?: unknown): ProviderError {
  return createProviderMalformedResponseError(provider, problem, cause);
}

/** The stream stopped or went wrong before the message was complete. */
export function createIncompleteStreamError(problem: string): ProviderError {
  return createProviderIncompleteStreamError(provider, problem);
}
