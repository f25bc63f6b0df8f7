import { abortable, throwIfAborted, UsageError } from "../errors.js";
import type { PendingDecision, ToolOutcome } from "./events.js";
import type { LoopOptions, LoopOutcome, RunAnswer, ToolExecuteOptions, ToolExecutor, TurnEnd } from "./loop-types.js";
import { toolResultMessage } from "./open-turn.js";
import type { RunContext } from "./run-context.js";
import { scheduleToolCalls } from "./schedule-tool-calls.js";
import type { Message, ModelCallOptions, ModelStreamEvent, PendingToolCall, ToolCall, ToolSchema } from "./types.js";
import { addUsage } from "./usage.js";

/**
 * THE loop: call the model; if it asks for tools, run them and append their results; otherwise return.
 * Everything else (trajectories, traces, patterns, plan mode, approvals, typed output) listens to its events, shapes
 * a turn through `prepareTurn`, decides through `canUseTool`, concludes a turn through `concludeTurn`, or is a tool.
 */
export async function runLoop(messages: Message[], options: LoopOptions): Promise<LoopOutcome> {
  const { model, run } = options;
  const { runId, signal } = run;
  const unplanned = defaultTurn(options);
  for (let turn = options.firstTurn ?? 0; turn < options.maxSteps; turn++) {
    throwIfAborted(signal);
    const current = options.prepareTurn ? await planTurn(options, turn, messages, unplanned) : unplanned;
    messages = current.messages ?? messages;
    run.emit({ type: "model-call-start", runId, turn, messages, tools: current.schemas });
    const response = await abortable(model.complete(messages, current.schemas, callOptionsFor(current, turn, options)), signal);
    addUsage(run.usage, response.usage);
    messages.push(response.message);
    run.emit({ type: "model-call-end", runId, turn, response });
    const calls = response.message.toolCalls ?? [];
    // pause_turn: the provider stopped a long server-side turn early; send it back to continue.
    if (calls.length === 0 && response.stopReason === "pause_turn") continue;
    if (calls.length > 0) {
      const outcomes = await scheduleToolCalls(calls, options.toolConcurrency, options.tools, {
        execute: (toolCall) => executeInTurn(toolCall, turn, current.executeOptions, options.tools, run),
        defer: (toolCall) => deferInTurn(toolCall, turn, run, current.executeOptions.offeredTools),
      });
      const pending = appendToolResults(messages, calls, outcomes);
      if (pending.length > 0) return { messages, status: "interrupted", final: "", turns: turn + 1, pending };
    }
    const end = { run, turn, message: response.message, messages };
    const concluded = options.concludeTurn ? options.concludeTurn(end) : answerWithoutCalls(end);
    const answer = isPromise(concluded) ? await concluded : concluded; // a plain conclusion costs no tick
    if (answer) return { messages, status: "completed", ...answer, turns: turn + 1, pending: [] };
  }
  return { messages, status: "max_steps", final: "", turns: options.maxSteps, pending: [] };
}

/** The default conclusion: a turn without tool calls is the answer. */
export function answerWithoutCalls({ message }: TurnEnd): RunAnswer | undefined {
  return message.toolCalls?.length ? undefined : { final: message.content };
}

function isPromise<T>(value: T | Promise<T>): value is Promise<T> {
  return typeof (value as Promise<T> | undefined)?.then === "function";
}

/** One turn's settings: what to send, how to call the model, how to execute its calls. */
type Turn = { messages?: Message[]; schemas: ToolSchema[]; callOptions: ModelCallOptions; executeOptions: ToolExecuteOptions };

/** The turn when nothing shapes it: made once per run, so a plain turn allocates nothing. */
function defaultTurn(options: LoopOptions): Turn {
  const { run, canUseTool, responseFormat } = options;
  const { signal } = run;
  return {
    schemas: options.tools.schemas(),
    callOptions: signal || responseFormat ? { ...(signal && { signal }), ...(responseFormat && { responseFormat }) } : noOptions,
    executeOptions: { run, ...(signal && { signal }), ...(canUseTool && { canUseTool }) },
  };
}

const noOptions: ModelCallOptions = Object.freeze({});

/** A streaming run's model calls report their deltas as events of their turn. */
function callOptionsFor({ callOptions }: Turn, turn: number, { stream, run }: LoopOptions): ModelCallOptions {
  if (!stream) return callOptions;
  const { runId } = run;
  return { ...callOptions, onEvent: (event: ModelStreamEvent) => run.emit({ ...event, runId, turn }) };
}

/** Asks `prepareTurn` how this turn should look, and checks what it says. */
async function planTurn(options: LoopOptions, turn: number, messages: Message[], unplanned: Turn): Promise<Turn> {
  const { run } = options;
  const plan = await options.prepareTurn?.({ runId: run.runId, run, turn, messages, usage: run.usage });
  // prepareTurn may have added or removed tools (an MCP server's, as they come and go): read the registry again.
  const registered = options.tools.schemas();
  if (registered !== unplanned.schemas) unplanned = { ...unplanned, schemas: registered };
  if (!plan) return unplanned;
  if (plan.messages !== undefined && !Array.isArray(plan.messages))
    throw new UsageError(`prepareTurn returned messages that are not an array (turn ${turn}); return a Message[] or leave it out.`);
  const schemas = plan.tools ? offeredSchemas(unplanned.schemas, plan.tools) : unplanned.schemas;
  const choice = plan.toolChoice;
  if (typeof choice === "object" && !schemas.some((schema) => schema.name === choice.name))
    throw new UsageError(`prepareTurn chose the tool "${choice.name}", which is not offered this turn (turn ${turn}).`);
  return {
    // A new array: the caller's stays theirs, and the run appends to its own.
    ...(plan.messages && { messages: [...plan.messages] }),
    schemas,
    callOptions: choice === undefined ? unplanned.callOptions : { ...unplanned.callOptions, toolChoice: choice },
    executeOptions: plan.tools
      ? { ...unplanned.executeOptions, offeredTools: new Set(schemas.map((schema) => schema.name)) }
      : unplanned.executeOptions,
  };
}

function offeredSchemas(all: readonly ToolSchema[], names: readonly string[]): ToolSchema[] {
  const unknown = names.filter((name) => !all.some((schema) => schema.name === name));
  if (unknown.length > 0)
    throw new UsageError(`prepareTurn offered ${unknown.map((name) => `"${name}"`).join(", ")}, which the registry does not have.`);
  return all.filter((schema) => names.includes(schema.name));
}

/**
 * Executes one call of a turn, between its start event and its end (or pending) event. A `then` rather than an
 * async function: it runs at every step, and most steps run in code not yet optimised, where an async frame and
 * its await cost several allocations.
 */
export function executeInTurn(
  toolCall: ToolCall,
  turn: number,
  executeOptions: ToolExecuteOptions,
  tools: ToolExecutor,
  run: RunContext,
): Promise<ToolOutcome> {
  const { runId } = run;
  run.emit({ type: "tool-call-start", runId, turn, toolCall });
  return tools.execute(toolCall, executeOptions).then((outcome) => {
    if ("pending" in outcome) run.emit({ type: "tool-call-pending", runId, turn, toolCall, ...pendingDetails(outcome) });
    else run.emit({ type: "tool-call-end", runId, turn, toolCall, result: outcome });
    return outcome;
  });
}

/** A call not started because an earlier one of its turn waits for a decision: reported, and run on resume. */
export function deferInTurn(toolCall: ToolCall, turn: number, run: RunContext, offered: ReadonlySet<string> | undefined): ToolOutcome {
  const outcome: PendingDecision = {
    pending: true,
    deferred: true,
    reason: "Not started: an earlier call of this turn waits for a decision.",
    // On resume it is held to its turn's tools, as it would have been now.
    ...(offered && { offeredTools: [...offered] }),
  };
  run.emit({ type: "tool-call-pending", runId: run.runId, turn, toolCall, ...pendingDetails(outcome) });
  return outcome;
}

/** Appends one tool message per answered call, in call order; returns the calls that wait for a decision. */
export function appendToolResults(messages: Message[], calls: readonly ToolCall[], outcomes: readonly ToolOutcome[]): PendingToolCall[] {
  const pending: PendingToolCall[] = [];
  for (let index = 0; index < calls.length; index++) {
    const toolCall = calls[index] as ToolCall;
    const outcome = outcomes[index] as ToolOutcome;
    if ("pending" in outcome) pending.push({ toolCall, ...pendingDetails(outcome) });
    else messages.push(toolResultMessage(toolCall, outcome));
  }
  return pending;
}

function pendingDetails({ reason, deferred, offeredTools }: PendingDecision): Omit<PendingDecision, "pending"> {
  return { ...(reason !== undefined && { reason }), ...(deferred && { deferred }), ...(offeredTools && { offeredTools }) };
}
