import { AbortError } from "../errors.js";
import type { AgentEvent } from "./events.js";
import type { RunResult } from "./types.js";

/** A run's events as an async iterable, and its result. Iterating is optional; `result` settles either way. */
export type AgentStream<Output = unknown> = AsyncIterable<AgentEvent> & {
  /** The run's result; rejects as the run does. */
  result: Promise<RunResult<Output>>;
};

/**
 * Starts `run` with a listener that queues events, and returns them as an async iterable.
 * Events are buffered, so a slow consumer misses none; the iterator ends after the run settles
 * (throwing the run's error, if any). A consumer that stops iterating early aborts the run through `signal`.
 */
export function streamEvents<Output>(
  run: (listener: (event: AgentEvent) => void, signal: AbortSignal) => Promise<RunResult<Output>>,
): AgentStream<Output> {
  const controller = new AbortController();
  const queue: AgentEvent[] = [];
  let wake: (() => void) | undefined;
  let settled = false;
  const notify = () => {
    wake?.();
    wake = undefined;
  };
  const result = run((event) => {
    queue.push(event);
    notify();
  }, controller.signal);
  result
    .then(
      () => {},
      () => {},
    )
    .finally(() => {
      settled = true;
      notify();
    });
  async function* iterate(): AsyncGenerator<AgentEvent> {
    let next = 0;
    try {
      while (true) {
        if (next < queue.length) {
          yield queue[next++] as AgentEvent;
          continue;
        }
        if (settled) break;
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
      }
    } finally {
      // break, return or a throw in the consumer's loop: nobody is listening, so the run stops here.
      if (!settled) controller.abort(new AbortError("The run was cancelled: its event stream was closed before the run ended."));
    }
    await result; // rethrows the run's error at the end of iteration
  }
  return { result, [Symbol.asyncIterator]: iterate };
}
