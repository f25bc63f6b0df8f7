import { UsageError } from "../errors.js";
import { createTransportError, type ProviderError } from "./provider-error.js";

/** The signal of one attempt at a model call: the caller's, plus the call's deadline. */
export type AttemptSignal = {
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
export function createAttemptSignal(provider: string, signal: AbortSignal | undefined, timeoutMs: number | undefined): AttemptSignal {
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
export function checkTimeouts<T extends { timeoutMs?: number | undefined; idleTimeoutMs?: number | undefined }>(
  owner: string,
  options: T,
): T {
  const { timeoutMs, idleTimeoutMs } = options;
  if (timeoutMs !== undefined && !(timeoutMs > 0 && Number.isFinite(timeoutMs)))
    throw new UsageError(`${owner} timeoutMs must be a number of milliseconds > 0, got ${timeoutMs}.`);
  if (idleTimeoutMs !== undefined && !(idleTimeoutMs >= 0))
    throw new UsageError(`${owner} idleTimeoutMs must be a number of milliseconds ≥ 0 (0 turns it off), got ${idleTimeoutMs}.`);
  return options;
}
