import type { AgentEvent } from "./events.js";
import type { RunResult } from "./types.js";

/** A run's events as an async iterable, and its result. Iterating is optional; `result` settles either way. */
export type AgentStream = AsyncIterable<AgentEvent> & {
  /** The run's result; rejects as the run does. */
  result: Promise<RunResult>;
};

/**
 * Starts `run` with a listener that queues events, and returns them as an async iterable.
 * Events are buffered, so a slow consumer misses none; the iterator ends after the run settles
 * (throwing the run's error, if any).
 */
export function streamEvents(run: (listener: (event: AgentEvent) => void) => Promise<RunResult>): AgentStream {
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
  });
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
    await result; // rethrows the run's error at the end of iteration
  }
  return { result, [Symbol.asyncIterator]: iterate };
}
