/** Base class of every error minagent throws: sets `name` and keeps `cause`. */
export class MinagentError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** Thrown when a run (or a model call) is aborted through its `signal`. Its `name` is "AbortError". */
export class AbortError extends MinagentError {}

/**
 * Throw from a tool's `execute` to choose the exact text the model reads as the observation
 * (without the generic "Error:" prefix). The observation is still marked as an error.
 */
export class ToolError extends MinagentError {}

/** Thrown for misuse of the API: a duplicate tool name, an invalid option, a script that ran out. */
export class UsageError extends MinagentError {}

/**
 * Thrown when a run with an output schema (`AgentOptions.output`) ends without a valid answer: the model's answer
 * broke the schema (or was not JSON, or was text where the final-answer tool was expected) once more than
 * `outputRetries` allow. `problems` says what was wrong with the last answer, `answer` is that answer as text.
 * Like any error a top-level run rejects with, it carries the conversation (`conversationOf(error)`).
 */
export class OutputValidationError extends MinagentError {
  readonly problems: readonly string[];
  readonly answer: string;

  constructor(message: string, details: { problems: readonly string[]; answer: string }) {
    super(message);
    this.problems = details.problems;
    this.answer = details.answer;
  }
}

/** Throws an AbortError if `signal` is aborted. */
export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw toAbortError(signal);
}

/** The error a run rejects with when its signal aborts. */
export function toAbortError(signal: AbortSignal): AbortError {
  const reason: unknown = signal.reason;
  if (reason instanceof AbortError) return reason;
  const detail = reason instanceof Error && reason.name !== "AbortError" ? `: ${reason.message}` : "";
  return new AbortError(`The operation was aborted${detail}`, { cause: reason });
}

/** A promise that rejects with an AbortError when `signal` aborts, and a function to stop listening. */
export function abortPromise(signal: AbortSignal): { promise: Promise<never>; dispose: () => void } {
  let onAbort: () => void = () => {};
  const promise = new Promise<never>((_, reject) => {
    onAbort = () => reject(toAbortError(signal));
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
  });
  promise.catch(() => {}); // observed by the race; never an unhandled rejection
  return { promise, dispose: () => signal.removeEventListener("abort", onAbort) };
}

/** Resolves like `promise`, but rejects with an AbortError as soon as `signal` aborts, even if `promise` never settles. */
export function abortable<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  // Without a signal there is nothing to race: hand the promise back untouched (no extra async step per turn).
  return signal ? raceAbort(promise, signal) : promise;
}

async function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  const abort = abortPromise(signal);
  try {
    return await Promise.race([promise, abort.promise]);
  } finally {
    abort.dispose();
  }
}
