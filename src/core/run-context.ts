import type { AgentEvent, AgentEventListener } from "./events.js";
import type { Message, Model, RunStatus, Usage } from "./types.js";
import { addUsage, emptyUsage } from "./usage.js";

/** Where a run starts: under a parent run, directly or through one of the parent's tool calls. */
export type RunParent = RunContext | { run: RunContext; toolCallId: string; signal?: AbortSignal | undefined };

/** Settings of a {@link RunContext}. */
export type RunContextOptions = {
  /** The run (or the tool call's context) this run is a child of. */
  parent?: RunParent | undefined;
  /** Aborts this run; a child is also aborted with its parent. */
  signal?: AbortSignal | undefined;
  /** This run's own listeners; a child's events also reach every ancestor's. */
  listeners?: readonly (AgentEventListener | undefined)[] | undefined;
  /**
   * The run's id, when its starter must know it in advance (a durable run derives it from its workflow's id, so
   * that a run recovered after a crash keeps it). Default: a new random id.
   */
  runId?: string | undefined;
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
  /**
   * Who hears this run's events, in order: its own listeners, then each ancestor's, every listener once (one
   * listener on a run and on its child hears a child's event once). Listeners are fixed when a run is made, so the
   * list is made once, not per event.
   */
  readonly #audience: AgentEventListener[];
  /** Callbacks waiting for this run's abort, behind one listener on its signal (removed when the run settles). */
  #abortCallbacks: Set<() => void> | undefined;
  readonly #onAbort = () => {
    for (const callback of this.#abortCallbacks ?? []) callback();
  };

  constructor(options: RunContextOptions = {}) {
    const { parent } = options;
    this.runId = options.runId ?? createRunId();
    this.parent = parent instanceof RunContext ? parent : parent?.run;
    this.parentToolCallId = parent instanceof RunContext ? undefined : parent?.toolCallId;
    // Under a tool call, its own signal: aborted with the run, and also when the call times out.
    const parentSignal = parent instanceof RunContext ? parent.signal : (parent?.signal ?? parent?.run.signal);
    this.signal = combineSignals(parentSignal, options.signal);
    const own = (options.listeners ?? []).filter((listener) => listener !== undefined);
    const inherited = this.parent ? this.parent.#audience : [];
    this.#audience = [...new Set([...own, ...inherited])];
  }

  /**
   * Delivers an event of this run (or of a descendant) to this run's listeners, then to its ancestors'. A listener
   * that throws does not stop the run, nor the other listeners: its error is reported as a process warning
   * (`MinagentListenerWarning`) and the run goes on, so no tool is left running behind a failed run.
   */
  emit(event: AgentEvent): void {
    // An index, not for…of: code not yet optimised (a short run's) would make an iterator per event.
    const audience = this.#audience;
    for (let index = 0; index < audience.length; index++) {
      const listener = audience[index] as AgentEventListener;
      try {
        listener(event);
      } catch (error) {
        reportListenerError(error, event);
      }
    }
  }

  /**
   * Calls `callback` when this run's signal aborts; returns a function that stops waiting. All callbacks share one
   * listener on the signal, however many tools wait at once.
   */
  onAbort(callback: () => void): () => void {
    const signal = this.signal;
    if (!signal) return () => {};
    if (!this.#abortCallbacks) {
      this.#abortCallbacks = new Set();
      signal.addEventListener("abort", this.#onAbort, { once: true });
    }
    this.#abortCallbacks.add(callback);
    return () => this.#abortCallbacks?.delete(callback);
  }

  /**
   * Reports the run's start (`run-start`, with its parent's ids when it has a parent, and the starter's
   * `attributes` for traces, e.g. a durable run's workflow id).
   */
  start(
    input: string,
    messages: readonly Message[],
    model: Pick<Model, "provider" | "modelId">,
    name?: string,
    attributes?: Readonly<Record<string, string>>,
  ): void {
    const { provider, modelId } = model;
    this.emit({
      type: "run-start",
      runId: this.runId,
      ...(this.parent && { parentRunId: this.parent.runId }),
      ...(this.parentToolCallId !== undefined && { parentToolCallId: this.parentToolCallId }),
      ...(name !== undefined && { name }),
      ...(attributes !== undefined && { attributes }),
      input,
      messages,
      model: { ...(provider !== undefined && { provider }), ...(modelId !== undefined && { modelId }) },
    });
  }

  /** Reports how the run ended (`run-end`) and adds its usage to its parent's. */
  end(outcome: { status: RunStatus; final: string; output?: unknown; turns: number; usage: Usage }): void {
    this.emit({ type: "run-end", runId: this.runId, ...outcome });
    this.#settle();
  }

  /** Reports that the run is about to reject (`run-error`) and adds what it used to its parent's usage. */
  fail(error: unknown): void {
    this.emit({ type: "run-error", runId: this.runId, error });
    this.#settle();
  }

  #settle(): void {
    if (this.parent) addUsage(this.parent.usage, this.usage);
    // The signal may be an agent's, shared by many runs: leave no listener on it.
    if (this.#abortCallbacks) this.signal?.removeEventListener("abort", this.#onAbort);
  }
}

function reportListenerError(error: unknown, event: AgentEvent): void {
  const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  process.emitWarning(`An event listener threw on "${event.type}" (the run goes on): ${message}`, { type: "MinagentListenerWarning" });
}

/** Runs this process has given an id to: part of every id, so that ids stay unique even where Math.random is stubbed. */
let runsNamed = 0;

/**
 * A run id: unique, not secret, laid out as a version-4 UUID (`run_xxxxxxxx-xxxx-4xxx-[89ab]xxx-xxxxxxxxxxxx`). Made
 * with Math.random (which V8 seeds per process from the system's entropy) and this process's count of runs, not with
 * Web Crypto: the first use of `globalThis.crypto` loads Node's Web Crypto modules, about 5 ms, which a process's first
 * run paid (a 10-step run in a fresh process spent more on it than on its steps).
 */
export function createRunId(): string {
  runsNamed = (runsNamed + 1) % 0x10000;
  const count = runsNamed.toString(16).padStart(4, "0");
  const variant = (8 + Math.floor(Math.random() * 4)).toString(16);
  return `run_${randomHex(8)}-${randomHex(4)}-4${randomHex(3)}-${variant}${randomHex(3)}-${count}${randomHex(8)}`;
}

/** `digits` random hexadecimal digits (at most 13: a double's 52 random bits). */
function randomHex(digits: number): string {
  return Math.floor(Math.random() * 16 ** digits)
    .toString(16)
    .padStart(digits, "0");
}

/** One signal that aborts when any of the given ones does. */
export function combineSignals(...signals: (AbortSignal | undefined)[]): AbortSignal | undefined {
  const present = signals.filter((signal) => signal !== undefined);
  return present.length > 1 ? AbortSignal.any(present) : present[0];
}
