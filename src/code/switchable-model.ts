import type { Message, Model, ModelCallOptions, ModelResponse, ToolSchema } from "../engine.js";

/**
 * A model that stands for another, which can be swapped for the length of one piece of work: the engine's Agent is
 * given it once, and a custom command with `model: haiku` runs its turn on Haiku through {@link using}, the
 * session's model answering again afterwards. `complete` is the current model's (signal, streaming and tool choice
 * reach it unchanged), and so are `provider` and `modelId`, read when a run starts, so that a run's `run-start`
 * event — the session file's `model` line, traces, the spending's prices — names the model that really answers it.
 * Parts that follow the session's model but never a command's (the compactor's window, subagents' `inherit`) are
 * given {@link session} instead: itself a SwitchableModel, whose {@link replace} switches the session to another model
 * (the CLI's `/model`), both for them and, from the next run, for the engine's Agent.
 */
export class SwitchableModel implements Model {
  /** The model the session was made with: the one answering whenever no {@link using} is under way. */
  readonly session: Model;
  #current: Model;

  constructor(session: Model) {
    this.session = session;
    this.#current = session;
  }

  /**
   * Makes `model` the one answering from now on: the next call is its, and so are `provider` and `modelId`. A
   * {@link using} under way keeps its model until it settles, and then leaves `model` answering, not the one before.
   */
  replace(model: Model): void {
    this.#current = model;
  }

  /** The model answering now. */
  get current(): Model {
    return this.#current;
  }

  // Model's fields are optional, which a getter cannot be under exactOptionalPropertyTypes: the cast types the
  // getter as present; it reads undefined when the current model names none, as an absent field would.
  get provider(): string {
    return this.#current.provider as string;
  }

  get modelId(): string {
    return this.#current.modelId as string;
  }

  /** The current model's: an agent with an output schema asks it when each run starts. */
  get supportsResponseFormat(): boolean {
    return this.#current.supportsResponseFormat === true;
  }

  complete(messages: Message[], tools: ToolSchema[], options?: ModelCallOptions): Promise<ModelResponse> {
    return this.#current.complete(messages, tools, options);
  }

  /**
   * Runs `work` with `model` answering (the session's own, or undefined, changes nothing), and puts back the model
   * that answered before once it settles, however it ends: answered, interrupted, rejected or aborted. One piece of
   * work at a time: runs of one agent are sequential, and a run started meanwhile would be answered by `model` too.
   */
  async using<T>(model: Model | undefined, work: () => Promise<T>): Promise<T> {
    if (model === undefined || model === this.#current) return work();
    const previous = this.#current;
    this.#current = model;
    try {
      return await work();
    } finally {
      // A replace() meanwhile wins: its model stays.
      if (this.#current === model) this.#current = previous;
    }
  }
}
