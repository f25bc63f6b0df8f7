import { UsageError } from "../errors.js";
import { ConversationSoFar } from "./conversation-so-far.js";
import { type AgentStream, streamEvents } from "./event-stream.js";
import type { AgentEventListener } from "./events.js";
import { createAnswerCheck, offerFinalAnswer, withFinalAnswerTool } from "./final-answer.js";
import { answerWithoutCalls, appendToolResults, deferInTurn, executeInTurn, runLoop } from "./loop.js";
import type { ConcludeTurn, LoopOptions, LoopOutcome, PrepareTurn, RunAnswer, ToolExecutor, TurnEnd } from "./loop-types.js";
import { compileOutputContract, finalAnswerName, type OutputContract, type OutputSchema } from "./output-contract.js";
import type { CanUseTool } from "./permission.js";
import { combineSignals, createRunId, RunContext, type RunParent } from "./run-context.js";
import { type ApprovalDecisions, closeUnansweredCalls, type InterruptedState, readInterruptedState } from "./run-state.js";
import { scheduleToolCalls } from "./schedule-tool-calls.js";
import { StepRecorder } from "./step-recorder.js";
import type { ContentPart, Message, Model, RunResult } from "./types.js";
import { addUsage, emptyUsage } from "./usage.js";

/** Settings of an agent; `Output` is the type of its results' `output`, inferred from the `output` schema. */
export type AgentOptions<Output = unknown> = {
  /** System prompt, sent first in every new conversation. */
  system?: string | undefined;
  /** Model calls allowed per run (default 8, the book's max_steps). A run that reaches it ends with status `max_steps`. */
  maxSteps?: number | undefined;
  /** Aborts every run of this agent. */
  signal?: AbortSignal | undefined;
  /** Tool calls of one turn that may run at once (default 8). */
  toolConcurrency?: number | undefined;
  /** Receives every event of every run (and of their child runs), synchronously. */
  onEvent?: AgentEventListener | undefined;
  /** Ask the model to stream, so listeners also get text, reasoning and tool-input deltas as they arrive (default false). */
  stream?: boolean | undefined;
  /**
   * Called before every model call: may replace the conversation (compaction), choose which tools are offered,
   * and how the model may use them (see {@link TurnPlan}).
   */
  prepareTurn?: PrepareTurn | undefined;
  /**
   * Decides whether each tool call may run: allow (perhaps with rewritten arguments), deny with a message the
   * model reads, or ask, which ends the run `interrupted` until {@link Agent.resume}. Its word is final over
   * a tool's `needsApproval`; a registry's own checks (`addCheck`, plan mode) are consulted first.
   */
  canUseTool?: CanUseTool | undefined;
  /**
   * What the run's answer must be: a Standard Schema that converts itself to JSON Schema (zod 4) or a JSON Schema.
   * A model with native structured output (`supportsResponseFormat`) is asked for JSON matching it; any other model
   * is given a `final_answer` tool whose arguments are the answer. The validated answer is the result's `output`
   * (typed from a zod schema), and `final` is its JSON text. A wrong answer (not JSON, breaking the schema, text
   * where the tool was expected) is sent back to the model with what was wrong, at most `outputRetries` times per
   * run; then the run rejects with an OutputValidationError.
   * @example
   * const agent = new Agent(model, registry, { output: z.object({ city: z.string(), celsius: z.number() }) });
   * const { output } = await agent.run("How warm is it in Vienna?"); // output?: { city: string; celsius: number }
   */
  output?: OutputSchema<Output> | undefined;
  /** Times a wrong answer is sent back to the model before the run fails (default 2). Needs `output`. */
  outputRetries?: number | undefined;
};

/** Options of one run. */
export type RunOptions = {
  /** A previous result's `messages`: the run continues that conversation (its system prompt is not repeated). */
  history?: readonly Message[] | undefined;
  /** Images and documents that go with the input (a pasted screenshot, a PDF): the user message carries them. */
  parts?: readonly ContentPart[] | undefined;
  /** Aborts this run (in addition to the agent's signal). */
  signal?: AbortSignal | undefined;
  /** Receives this run's events (and its child runs'). */
  onEvent?: AgentEventListener | undefined;
  /** Ask the model to stream for this run (default: the agent's `stream` option; `agent.stream()` turns it on). */
  stream?: boolean | undefined;
  /**
   * Makes this run a child of another: pass a tool's `context` (or a {@link RunContext}). The child's events reach
   * the parent's listeners tagged with the child's `runId`, aborting the parent aborts it, and its usage is added
   * to the parent's.
   */
  parent?: RunParent | undefined;
  /** What this run is, for traces and listeners (`run-start`'s `name`): a sub-agent's role, a trial's number. */
  name?: string | undefined;
  /**
   * This run's id (`RunResult.runId`, every event's `runId`), when the caller must fix it: a durable run derives it
   * from its workflow id, so that the run keeps it when it is recovered after a crash. Default: a new random id.
   * Tools' idempotency keys are made from it (see `ToolContext.idempotencyKey`).
   */
  runId?: string | undefined;
  /** Attributes for the run's trace (`run-start`'s `attributes`; the tracer puts them on the run span), e.g. a workflow id. */
  attributes?: Readonly<Record<string, string>> | undefined;
};

/**
 * The plain tool-use loop (book ch. 3): it records actions, observations and the final answer.
 * @example
 * const agent = new Agent(model, new ToolRegistry().add(weather), { system: "You are a weather assistant." });
 * const { final, steps } = await agent.run("Compare the weather in Beijing and Shanghai");
 */
export class Agent<Output = unknown> {
  readonly model: Model;
  readonly registry: ToolExecutor;
  readonly options: Readonly<AgentOptions<Output>>;
  readonly #maxSteps: number;
  readonly #toolConcurrency: number;
  readonly #output: OutputContract | undefined;

  constructor(model: Model, registry: ToolExecutor, options: AgentOptions<Output> = {}) {
    if (typeof model?.complete !== "function") throw new UsageError("Agent needs a model with a complete() method as its first argument.");
    if (typeof registry?.schemas !== "function")
      throw new UsageError("Agent needs a ToolRegistry as its second argument (an empty one is fine).");
    this.model = model;
    this.registry = registry;
    this.options = options;
    this.#maxSteps = positiveInteger("maxSteps", options.maxSteps ?? 8);
    this.#toolConcurrency = positiveInteger("toolConcurrency", options.toolConcurrency ?? 8);
    this.#output = compileOutput(options, registry);
  }

  /** Runs the loop on `input` until the model answers without tool calls, a call needs approval, or maxSteps is reached. */
  async run(input: string, options: RunOptions = {}): Promise<RunResult<Output>> {
    if (typeof input !== "string") throw new UsageError(`Agent.run expects the user's input as a string, got ${typeof input}.`);
    const messages = this.#startMessages(options.history);
    messages.push({ role: "user", content: input, ...(options.parts?.length && { parts: [...options.parts] }) });
    return this.#run(input, messages, options, undefined);
  }

  /**
   * Goes on with an interrupted run once its pending calls are decided: `state` is the interrupted RunResult or
   * its `JSON.stringify` text (from this process or another), `decisions` maps each pending call's id to
   * `{ behavior: "allow", arguments? }` or `{ behavior: "deny", message }`. The pending calls are answered first
   * (an allowed one runs now; the calls that ran before the interruption are not run again), then the loop goes on.
   * Throws a UsageError for a state that is not interrupted or was changed, or for a missing decision.
   * @example
   * const result = await agent.run("Delete the build folder");
   * if (result.status === "interrupted") {
   *   const decisions = Object.fromEntries(result.pending.map(({ toolCall }) => [toolCall.id, { behavior: "allow" }]));
   *   await agent.resume(result, decisions);
   * }
   */
  async resume(
    state: RunResult | string,
    decisions: ApprovalDecisions,
    options: Omit<RunOptions, "history"> = {},
  ): Promise<RunResult<Output>> {
    const interrupted = readInterruptedState(state, decisions);
    return this.#run("", interrupted.result.messages.slice(), options, { ...interrupted, decisions });
  }

  /**
   * Runs like {@link run} and yields every event as it happens: streamed text and reasoning deltas,
   * tool calls and their results, the run's end. `stream.result` is the RunResult. Leaving the loop early
   * (break, return, throw) cancels the run: no model call or tool starts afterwards.
   * @example for await (const event of agent.stream("…")) if (event.type === "text-delta") process.stdout.write(event.text);
   */
  stream(input: string, options: Omit<RunOptions, "onEvent"> = {}): AgentStream<Output> {
    return streamEvents((onEvent, signal) =>
      this.run(input, { stream: true, ...options, onEvent, signal: combineSignals(options.signal, signal) }),
    );
  }

  /** The recorder that turns events into steps; ReActAgent records thoughts too. */
  protected createRecorder(): StepRecorder {
    return new StepRecorder();
  }

  /**
   * Decides whether a finished turn ends the run (see {@link ConcludeTurn}); `conclude` is the agent's own decision:
   * its output schema's check, or else "a turn without tool calls is the answer". A pattern may decide first:
   * Plan-and-Solve takes the text of a planning turn as the plan and goes on to solve.
   */
  protected concludeTurn(end: TurnEnd, conclude: ConcludeTurn): RunAnswer | undefined | Promise<RunAnswer | undefined> {
    return conclude(end);
  }

  async #run(input: string, messages: Message[], options: RunOptions, resumed: Resumption | undefined): Promise<RunResult<Output>> {
    const recorder = this.createRecorder();
    const runId = options.runId ?? createRunId();
    // A top-level run that rejects hands back its conversation on the error (see conversationOf).
    const soFar = options.parent ? undefined : new ConversationSoFar(runId, messages);
    const run = new RunContext({
      parent: options.parent,
      signal: combineSignals(this.options.signal, options.signal),
      listeners: [recorder.listen, soFar?.listen, this.options.onEvent, options.onEvent],
      runId,
    });
    run.start(input, messages, this.model, options.name, options.attributes);
    const answers = this.#answers(recorder);
    try {
      const outcome =
        (resumed && (await this.#answerPending(run, messages, resumed, answers))) ||
        (await this.#loop(run, messages, resumed, options, answers));
      if (outcome.status === "max_steps")
        recorder.recordError(this.#maxSteps, `Did not converge within maxSteps (${this.#maxSteps} model calls).`);
      const usage = emptyUsage();
      addUsage(usage, resumed?.result.usage);
      addUsage(usage, run.usage);
      const output = "output" in outcome ? { output: outcome.output as Output } : {};
      run.end({ status: outcome.status, final: outcome.final, ...output, turns: outcome.turns, usage });
      const steps = resumed ? [...resumed.result.steps, ...recorder.steps] : recorder.steps;
      return {
        runId: run.runId,
        status: outcome.status,
        messages: outcome.messages,
        steps,
        final: outcome.final,
        ...output,
        usage,
        turns: outcome.turns,
        pending: outcome.pending,
      };
    } catch (error) {
      soFar?.attachTo(error);
      run.fail(error);
      throw error;
    }
  }

  #loop(
    run: RunContext,
    messages: Message[],
    resumed: Resumption | undefined,
    options: RunOptions,
    answers: Answers,
  ): Promise<LoopOutcome> {
    return runLoop(messages, {
      model: this.model,
      tools: answers.tools,
      run,
      maxSteps: this.#maxSteps,
      firstTurn: resumed?.result.turns ?? 0,
      toolConcurrency: this.#toolConcurrency,
      stream: options.stream ?? this.options.stream ?? false,
      prepareTurn: answers.prepareTurn,
      canUseTool: this.options.canUseTool,
      responseFormat: answers.responseFormat,
      concludeTurn: answers.concludeTurn,
    });
  }

  /**
   * How this run reaches its answer. Without an output schema: the registry, and a turn without calls is the answer.
   * With one, decided per run (a model may be switched between runs): a model with native structured output is sent
   * the schema as its response format; any other is given the final-answer tool, offered on every turn.
   */
  #answers(recorder: StepRecorder): Answers {
    const contract = this.#output;
    const { prepareTurn } = this.options;
    if (!contract)
      return { tools: this.registry, prepareTurn, responseFormat: undefined, concludeTurn: this.#concluder(answerWithoutCalls) };
    const native = this.model.supportsResponseFormat === true;
    return {
      tools: native ? this.registry : withFinalAnswerTool(this.registry, contract),
      prepareTurn: native ? prepareTurn : offerFinalAnswer(prepareTurn),
      responseFormat: native ? contract.responseFormat : undefined,
      concludeTurn: this.#concluder(createAnswerCheck({ contract, native, recorder })),
    };
  }

  #concluder(conclude: ConcludeTurn): ConcludeTurn {
    // Without a pattern's own word, the loop is handed the agent's decision itself (a plain run's costs no extra call).
    if (this.concludeTurn === Agent.prototype.concludeTurn) return conclude;
    return (end) => this.concludeTurn(end, conclude);
  }

  /**
   * Carries out the decisions on an interrupted run's pending calls and puts every result of that turn in call
   * order. Returns an outcome only if the run must stop again (a call is still pending).
   */
  async #answerPending(run: RunContext, messages: Message[], resumed: Resumption, answers: Answers): Promise<LoopOutcome | undefined> {
    const { result, turnIndex, decisions } = resumed;
    const turn = result.turns - 1;
    const calls = result.pending.map(({ toolCall }) => toolCall);
    const offered = new Map(result.pending.map(({ toolCall, offeredTools }) => [toolCall.id, offeredTools && new Set(offeredTools)]));
    const { canUseTool } = this.options;
    // In the model's order when the registry orders effects; a deferred call without a decision meets the usual checks.
    const outcomes = await scheduleToolCalls(calls, this.#toolConcurrency, answers.tools, {
      execute: (toolCall) =>
        executeInTurn(
          toolCall,
          turn,
          { run, signal: run.signal, canUseTool, decision: decisions[toolCall.id], offeredTools: offered.get(toolCall.id) },
          answers.tools,
          run,
        ),
      defer: (toolCall) => deferInTurn(toolCall, turn, run, offered.get(toolCall.id)),
    });
    // The turn's results: those from before the interruption and the new ones, in the order of the calls.
    const results = messages.splice(turnIndex + 1);
    const pending = appendToolResults(results, calls, outcomes);
    const order = new Map((messages[turnIndex]?.toolCalls ?? []).map((call, index) => [call.id, index]));
    results.sort((a, b) => (order.get(a.toolCallId ?? "") ?? 0) - (order.get(b.toolCallId ?? "") ?? 0));
    messages.push(...results);
    if (pending.length > 0) return { messages, status: "interrupted", final: "", turns: result.turns, pending };
    // The interrupted turn may have brought the answer (a final-answer call beside the call that waited).
    const end = { run, turn, message: messages[turnIndex] as Message, messages };
    const answer = await answers.concludeTurn(end);
    return answer && { messages, status: "completed", ...answer, turns: result.turns, pending: [] };
  }

  #startMessages(history: readonly Message[] | undefined): Message[] {
    if (history !== undefined && !Array.isArray(history))
      throw new UsageError(`RunOptions.history must be an array of messages (a previous result's messages), got ${typeof history}.`);
    // A conversation cut short (a crash, a Ctrl-C) may end in calls that never got results: answer them first.
    if (history && history.length > 0) return closeUnansweredCalls(history);
    return this.options.system ? [{ role: "system", content: this.options.system }] : [];
  }
}

type Resumption = InterruptedState & { decisions: ApprovalDecisions };

/** What one run's loop is given to reach its answer (see `#answers`). */
type Answers = Pick<LoopOptions, "tools" | "prepareTurn" | "responseFormat"> & { concludeTurn: ConcludeTurn };

function compileOutput(options: AgentOptions<unknown>, registry: ToolExecutor): OutputContract | undefined {
  if (options.output === undefined) {
    if (options.outputRetries !== undefined) throw new UsageError("Agent option outputRetries needs an output schema (option output).");
    return undefined;
  }
  const retries = options.outputRetries ?? 2;
  if (!Number.isInteger(retries) || retries < 0)
    throw new UsageError(`Agent option outputRetries must be a whole number ≥ 0, got ${retries}.`);
  if (registry.schemas().some((schema) => schema.name === finalAnswerName))
    throw new UsageError(
      `The registry has a tool named "${finalAnswerName}", the name an agent with an output schema gives its answer tool; rename it.`,
    );
  return compileOutputContract(options.output, retries);
}

function positiveInteger(option: string, value: number): number {
  if (!Number.isInteger(value) || value < 1) throw new UsageError(`Agent option ${option} must be a positive integer, got ${value}.`);
  return value;
}
