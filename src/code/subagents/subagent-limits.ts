import { throwIfAborted, toAbortError, UsageError } from "../../errors.js";

/** How far subagents may go. A subagent that reaches a limit ends with an observation saying so, never a crash. */
export type SubagentLimits = {
  /** Levels of subagents under the main agent (default 3): a subagent at the last level is not given the Agent tool. */
  maxDepth: number;
  /**
   * Subagents running at once, across the whole session and every level (default 4). A call from the main agent
   * waits for a free slot; a call from a subagent is refused at once (it would wait for a slot its own ancestors hold).
   */
  maxConcurrent: number;
  /**
   * The share of the session's remaining budget one subagent may spend (default 0.5): with $2 left when it starts, a
   * subagent stops before a model call that would take it past $1. Needs a `budget`.
   */
  budgetShare: number;
  /** Tokens (input and output, its own subagents' included) one subagent may use; undefined: no limit (the default). */
  maxTokens: number | undefined;
  /** Model calls one subagent may make (default 30). */
  maxSteps: number;
  /** Milliseconds one subagent may run before it is stopped (default 30 minutes). */
  timeoutMs: number;
};

/** The defaults of {@link SubagentLimits}. */
export const defaultSubagentLimits: Readonly<SubagentLimits> = Object.freeze({
  maxDepth: 3,
  maxConcurrent: 4,
  budgetShare: 0.5,
  maxTokens: undefined,
  maxSteps: 30,
  timeoutMs: 30 * 60_000,
});

/** The limits with defaults filled in; throws a UsageError for an invalid one. */
export function readSubagentLimits(given: Partial<SubagentLimits> | undefined): SubagentLimits {
  const limits: SubagentLimits = { ...defaultSubagentLimits };
  for (const [key, value] of Object.entries(given ?? {}) as [keyof SubagentLimits, number | undefined][]) {
    if (value === undefined) continue;
    if (!(key in defaultSubagentLimits))
      throw new UsageError(`Unknown subagent limit "${key}"; the limits are ${Object.keys(defaultSubagentLimits).join(", ")}.`);
    const valid = key === "budgetShare" ? value > 0 && value <= 1 : Number.isInteger(value) && value >= (key === "maxDepth" ? 0 : 1);
    if (!valid)
      throw new UsageError(
        `Subagent limit ${key} must be ${key === "budgetShare" ? "a share above 0 and at most 1" : key === "maxDepth" ? "an integer ≥ 0" : "a positive integer"}, got ${value}.`,
      );
    limits[key] = value;
  }
  return limits;
}

/** The session's slots for running subagents. */
export type SubagentSlots = {
  /** Subagents running now. */
  readonly running: number;
  /** Subagents waiting for a slot. */
  readonly waiting: number;
  /**
   * Takes a slot and returns the function that gives it back. When none is free: with `wait`, waits its turn (first
   * come, first served; rejects with an AbortError if `signal` aborts first); without, returns undefined.
   */
  acquire(wait: boolean, signal: AbortSignal | undefined): Promise<(() => void) | undefined>;
};

/** Slots for at most `limit` subagents at once. */
export function createSubagentSlots(limit: number): SubagentSlots {
  let running = 0;
  const queue: (() => void)[] = [];
  const release = () => {
    const next = queue.shift();
    if (next)
      next(); // the slot passes to the next in line
    else running--;
  };
  const once = () => {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      release();
    };
  };
  return {
    get running() {
      return running;
    },
    get waiting() {
      return queue.length;
    },
    async acquire(wait, signal) {
      throwIfAborted(signal);
      if (running < limit) {
        running++;
        return once();
      }
      if (!wait) return undefined;
      return new Promise((resolve, reject) => {
        const onAbort = () => {
          queue.splice(queue.indexOf(take), 1);
          reject(toAbortError(signal as AbortSignal));
        };
        const take = () => {
          signal?.removeEventListener("abort", onAbort);
          resolve(once());
        };
        queue.push(take);
        signal?.addEventListener("abort", onAbort, { once: true });
      });
    },
  };
}
