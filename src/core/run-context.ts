import type { AgentEvent, AgentEventListener } from "./events.js";
import type { Usage } from "./types.js";
import { emptyUsage } from "./usage.js";

/** Where a run starts: under a parent run, directly or through one of the parent's tool calls. */
export type RunParent = RunContext | { run: RunContext; toolCallId: string };

/** Settings of a {@link RunContext}. */
export type RunContextOptions = {
  /** The run (or the tool call's context) this run is a child of. */
  parent?: RunParent | undefined;
  /** Aborts this run; a child is also aborted with its parent. */
  signal?: AbortSignal | undefined;
  /** This run's own listeners; a child's events also reach every ancestor's. */
  listeners?: readonly (AgentEventListener | undefined)[] | undefined;
};

/**
 * One run as its parts see it: its id, its signal, the usage it has paid for, and where its events go.
 * `Agent.run` makes one per run; a tool receives it as `context.run`, and a pattern that runs several agents
 * as one (Reflexion) makes one and passes it as their `parent`, so the whole is one run with child runs.
 */
export class RunContext {
  readonly runId: string;
  readonly parent: RunContext | undefined;
  /** The parent's tool call that started this run, if a tool did. */
  readonly parentToolCallId: string | undefined;
  readonly signal: AbortSignal | undefined;
  /** Tokens this run has used so far, its finished child runs' included. */
  readonly usage: Usage = emptyUsage();
  readonly #listeners: AgentEventListener[];

  constructor(options: RunContextOptions = {}) {
    const { parent } = options;
    this.runId = createRunId();
    this.parent = parent instanceof RunContext ? parent : parent?.run;
    this.parentToolCallId = parent instanceof RunContext ? undefined : parent?.toolCallId;
    this.signal = combineSignals(this.parent?.signal, options.signal);
    this.#listeners = (options.listeners ?? []).filter((listener) => listener !== undefined);
  }

  /** Delivers an event of this run (or of a descendant) to this run's listeners, then to its ancestors'. */
  emit(event: AgentEvent): void {
    for (const listener of this.#listeners) listener(event);
    this.parent?.emit(event);
  }

  /** `parentRunId` and `parentToolCallId` as a run-start event carries them (absent on a top-level run). */
  parentIds(): { parentRunId?: string; parentToolCallId?: string } {
    if (!this.parent) return {};
    return this.parentToolCallId === undefined
      ? { parentRunId: this.parent.runId }
      : { parentRunId: this.parent.runId, parentToolCallId: this.parentToolCallId };
  }
}

/** A run id: unique, not secret (the global Web Crypto needs no import). */
function createRunId(): string {
  return `run_${globalThis.crypto.randomUUID()}`;
}

/** One signal that aborts when any of the given ones does. */
export function combineSignals(...signals: (AbortSignal | undefined)[]): AbortSignal | undefined {
  const present = signals.filter((signal) => signal !== undefined);
  return present.length > 1 ? AbortSignal.any(present) : present[0];
}
