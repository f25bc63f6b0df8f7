import type { ToolOutcome } from "./events.js";
import type { CanUseTool, PermissionDecision } from "./permission.js";
import type { RunContext } from "./run-context.js";
import type { Message, Model, PendingToolCall, ResponseFormat, RunStatus, ToolCall, ToolChoice, ToolSchema, Usage } from "./types.js";

/** How one tool call is to be executed: the run it belongs to and who decides whether it may run. */
export type ToolExecuteOptions = {
  /** The run's signal: aborting it rejects the call with an AbortError. */
  signal?: AbortSignal | undefined;
  /** The calling run, handed to the tool as `context.run`. */
  run?: RunContext | undefined;
  /** The agent's permission check (see {@link CanUseTool}). */
  canUseTool?: CanUseTool | undefined;
  /** Names of the tools offered this turn; a call to any other is refused with an observation. Default: all. */
  offeredTools?: ReadonlySet<string> | undefined;
  /** A decision already taken (a resumed run's): no check is consulted. */
  decision?: PermissionDecision | undefined;
};

/** What the loop needs of a tool registry: the schemas to send, and a way to run one call. */
export interface ToolExecutor {
  schemas(): ToolSchema[];
  execute(toolCall: ToolCall, options: ToolExecuteOptions): Promise<ToolOutcome>;
  /**
   * True for a call that must not overlap with others: it waits for the calls before it and holds back those
   * after it. Absent (the default), all of a turn's calls may run at once.
   */
  runsAlone?: ((toolCall: ToolCall) => boolean) | undefined;
}

/** What the run looks like before a model call: handed to `prepareTurn`. */
export type TurnContext = {
  runId: string;
  /**
   * The run itself: its signal (a model call made here, such as a compaction's summary, should honour it), its
   * usage (add what such a call used), and `emit` for events of its own (a `compaction` event).
   */
  run: RunContext;
  /** The 0-based model call about to be made. */
  turn: number;
  /** The conversation as it stands (do not change it: return `messages` instead). */
  messages: readonly Message[];
  /** Tokens used so far by this run. */
  usage: Readonly<Usage>;
};

/** What a turn should look like; every field is optional, and what is absent stays as it is. */
export type TurnPlan = {
  /**
   * The conversation to use from this turn on: it replaces the run's history (what later turns send and the
   * result's `messages`). Compaction and pruning are written here.
   */
  messages?: Message[] | undefined;
  /** Names of the registry's tools offered this turn; the others are not sent, and a call to one is refused. */
  tools?: readonly string[] | undefined;
  /** How the model may use the tools this turn. */
  toolChoice?: ToolChoice | undefined;
};

/** Called before every model call; returns how the turn should differ from the default, or nothing. */
// biome-ignore lint/suspicious/noConfusingVoidType: void lets a function that returns nothing on some paths be passed as it is.
export type PrepareTurn = (context: TurnContext) => TurnPlan | undefined | void | Promise<TurnPlan | undefined | void>;

/** A turn that ended without a call waiting for a decision (its tool results appended): handed to `concludeTurn`. */
export type TurnEnd = {
  run: RunContext;
  /** The 0-based model call that just ended. */
  turn: number;
  /** The model's message of this turn. */
  message: Message;
  /** The conversation, this turn's message and tool results included. Append to it what the model should read next. */
  messages: Message[];
};

/** A run's answer: its final text and, for a run with an output schema, the validated value. */
export type RunAnswer = { final: string; output?: unknown };

/**
 * Decides whether a finished turn ends the run: returns the answer, or nothing to go on (after appending to
 * `messages` what the model should read next, if anything); it may throw to fail the run. Without one, a turn
 * without tool calls ends the run with its text. An agent's output schema is checked here.
 */
export type ConcludeTurn = (end: TurnEnd) => RunAnswer | undefined | Promise<RunAnswer | undefined>;

/** Settings of one loop run. */
export type LoopOptions = {
  model: Model;
  tools: ToolExecutor;
  /** The run: its id, signal, usage, and where its events go. */
  run: RunContext;
  /** Model calls allowed, counted from turn 0, before the run stops with `max_steps`. */
  maxSteps: number;
  /** The turn to start at (a resumed run goes on counting). Default 0. */
  firstTurn?: number | undefined;
  /** Tool calls of one turn that may run at once. */
  toolConcurrency: number;
  /** Ask the model to stream, and forward its deltas as events. */
  stream?: boolean | undefined;
  /** Shapes each turn (see {@link TurnPlan}). */
  prepareTurn?: PrepareTurn | undefined;
  /** Decides whether each tool call may run. */
  canUseTool?: CanUseTool | undefined;
  /** Sent with every model call: the model's final answer must be JSON matching this schema (native structured output). */
  responseFormat?: ResponseFormat | undefined;
  /** Decides whether a finished turn ends the run (see {@link ConcludeTurn}). */
  concludeTurn?: ConcludeTurn | undefined;
};

/** How a loop run ended. `messages` is the conversation: the array passed in, appended to, unless `prepareTurn` replaced it. */
export type LoopOutcome = {
  messages: Message[];
  status: RunStatus;
  final: string;
  /** The validated answer of a completed run whose `concludeTurn` gave one (an output schema's). */
  output?: unknown;
  turns: number;
  pending: PendingToolCall[];
};
