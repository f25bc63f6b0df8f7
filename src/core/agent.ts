import { UsageError } from "../errors.js";
import { type AgentStream, streamEvents } from "./event-stream.js";
import type { AgentEvent, AgentEventListener } from "./events.js";
import { runLoop } from "./loop.js";
import type { ToolExecutor } from "./loop-types.js";
import { StepRecorder } from "./step-recorder.js";
import type { Message, Model, RunResult } from "./types.js";

/** Settings of an agent. */
export type AgentOptions = {
  /** System prompt, sent first in every new conversation. */
  system?: string;
  /** Model calls allowed per run (default 8, the book's max_steps). A run that reaches it ends with an `error` step and `final: ""`. */
  maxSteps?: number;
  /** Aborts every run of this agent. */
  signal?: AbortSignal;
  /** Tool calls of one turn that may run at once (default 8). */
  toolConcurrency?: number;
  /** Receives every event of every run, synchronously. */
  onEvent?: AgentEventListener;
  /** Ask the model to stream, so listeners also get text, reasoning and tool-input deltas as they arrive (default false). */
  stream?: boolean;
};

/** Options of one run. */
export type RunOptions = {
  /** A previous result's `messages`: the run continues that conversation (its system prompt is not repeated). */
  history?: readonly Message[];
  /** Aborts this run (in addition to the agent's signal). */
  signal?: AbortSignal;
  /** Receives this run's events. */
  onEvent?: AgentEventListener;
  /** Ask the model to stream for this run (default: the agent's `stream` option; `agent.stream()` turns it on). */
  stream?: boolean;
};

/**
 * The plain tool-use loop (book ch. 3): it records actions, observations and the final answer.
 * @example
 * const agent = new Agent(model, new ToolRegistry().add(weather), { system: "You are a weather assistant." });
 * const { final, steps } = await agent.run("Compare the weather in Beijing and Shanghai");
 */
export class Agent {
  readonly model: Model;
  readonly registry: ToolExecutor;
  readonly options: Readonly<AgentOptions>;
  readonly #maxSteps: number;
  readonly #toolConcurrency: number;

  constructor(model: Model, registry: ToolExecutor, options: AgentOptions = {}) {
    if (typeof model?.complete !== "function") throw new UsageError("Agent needs a model with a complete() method as its first argument.");
    if (typeof registry?.schemas !== "function")
      throw new UsageError("Agent needs a ToolRegistry as its second argument (an empty one is fine).");
    this.model = model;
    this.registry = registry;
    this.options = options;
    this.#maxSteps = positiveInteger("maxSteps", options.maxSteps ?? 8);
    this.#toolConcurrency = positiveInteger("toolConcurrency", options.toolConcurrency ?? 8);
  }

  /** Runs the loop on `input` until the model answers without tool calls, or maxSteps is reached. */
  async run(input: string, options: RunOptions = {}): Promise<RunResult> {
    if (typeof input !== "string") throw new UsageError(`Agent.run expects the user's input as a string, got ${typeof input}.`);
    const messages = this.initialMessages(options.history);
    messages.push({ role: "user", content: input });
    const recorder = this.createRecorder();
    const listeners = [recorder.listen, this.options.onEvent, options.onEvent].filter((listener) => listener !== undefined);
    const emit = (event: AgentEvent) => {
      for (const listener of listeners) listener(event);
    };
    const signal = combineSignals(this.options.signal, options.signal);
    const { provider, modelId } = this.model;
    emit({
      type: "run-start",
      input,
      messages,
      model: { ...(provider !== undefined && { provider }), ...(modelId !== undefined && { modelId }) },
    });
    try {
      const outcome = await runLoop(messages, {
        model: this.model,
        tools: this.registry,
        maxSteps: this.#maxSteps,
        toolConcurrency: this.#toolConcurrency,
        signal,
        stream: options.stream ?? this.options.stream ?? false,
        emit,
      });
      if (!outcome.converged) recorder.recordError(this.#maxSteps, `Did not converge within maxSteps (${this.#maxSteps} model calls).`);
      emit({ type: "run-end", final: outcome.final, converged: outcome.converged, turns: outcome.turns });
      return { messages, steps: recorder.steps, final: outcome.final, usage: outcome.usage };
    } catch (error) {
      emit({ type: "run-error", error });
      throw error;
    }
  }

  /**
   * Runs like {@link run} and yields every event as it happens: streamed text and reasoning deltas,
   * tool calls and their results, the run's end. `stream.result` is the RunResult.
   * @example for await (const event of agent.stream("…")) if (event.type === "text-delta") process.stdout.write(event.text);
   */
  stream(input: string, options: Omit<RunOptions, "onEvent"> = {}): AgentStream {
    return streamEvents((onEvent) => this.run(input, { stream: true, ...options, onEvent }));
  }

  /** The recorder that turns events into steps; ReActAgent records thoughts too. */
  protected createRecorder(): StepRecorder {
    return new StepRecorder();
  }

  private initialMessages(history: readonly Message[] | undefined): Message[] {
    if (history && history.length > 0) return [...history];
    return this.options.system ? [{ role: "system", content: this.options.system }] : [];
  }
}

function combineSignals(...signals: (AbortSignal | undefined)[]): AbortSignal | undefined {
  const present = signals.filter((signal) => signal !== undefined);
  return present.length > 1 ? AbortSignal.any(present) : present[0];
}

function positiveInteger(option: string, value: number): number {
  if (!Number.isInteger(value) || value < 1) throw new UsageError(`Agent option ${option} must be a positive integer, got ${value}.`);
  return value;
}
