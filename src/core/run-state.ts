import { UsageError } from "../errors.js";
import { toText } from "../text.js";
import type { PermissionDecision } from "./permission.js";
import type { Message, PendingToolCall, RunResult, ToolCall } from "./types.js";

/** A person's decision on one pending call: run it (optionally with other arguments), or refuse it. */
export type ApprovalDecision = Extract<PermissionDecision, { behavior: "allow" | "deny" }>;

/** Decisions on an interrupted run's pending calls, by tool-call id. */
export type ApprovalDecisions = Record<string, ApprovalDecision>;

/** The observation given to a call whose result was lost (a crash, a Ctrl-C) before the conversation goes on. */
export const interruptedCallText =
  "This tool call was interrupted before it returned a result; it may or may not have run. Check its effects before calling it again.";

/**
 * Gives every tool call that never got a result (the process died, the person pressed Ctrl-C) a tool message
 * saying so, right after the results its turn did get: providers reject a conversation with unanswered calls.
 */
export function closeUnansweredCalls(messages: readonly Message[]): Message[] {
  const closed: Message[] = [];
  let open: readonly ToolCall[] = [];
  let answered = new Set<string | undefined>();
  const closeTurn = () => {
    for (const call of open) if (!answered.has(call.id)) closed.push(interruptedResult(call));
    open = [];
  };
  for (const message of messages) {
    if (message.role !== "tool") closeTurn();
    closed.push(message);
    if (message.role === "tool") answered.add(message.toolCallId);
    else if (message.toolCalls?.length) {
      open = message.toolCalls;
      answered = new Set();
    }
  }
  closeTurn();
  return closed;
}

function interruptedResult(call: ToolCall): Message {
  return { role: "tool", content: interruptedCallText, toolCallId: call.id, isError: true };
}

/** An interrupted run's state, read and checked: the conversation, where the pending turn is, and what waits. */
export type InterruptedState = {
  result: RunResult;
  /** Index of the assistant message whose calls are pending. */
  turnIndex: number;
};

/**
 * Reads a state given to `resume` (a RunResult or its JSON) and checks it against itself: it must be an
 * interrupted run whose pending calls are exactly the unanswered calls of its last assistant message, with the
 * same ids, names and arguments, and `decisions` must decide each of them. Throws a UsageError saying what is wrong.
 */
export function readInterruptedState(state: RunResult | string, decisions: ApprovalDecisions): InterruptedState {
  const result = parseState(state);
  if (result.status !== "interrupted")
    throw new UsageError(
      `resume() needs an interrupted run, but this one is "${String(result.status)}". To go on with a finished conversation, call run(input, { history: result.messages }).`,
    );
  if (!Number.isInteger(result.turns) || result.turns < 1)
    throw new UsageError(
      `resume(): the state's turns (${String(result.turns)}) is not a count of model calls; it was changed after the run ended.`,
    );
  if (!Array.isArray(result.pending) || result.pending.length === 0)
    throw new UsageError("resume(): the state is interrupted but has no pending calls; it was changed after the run ended.");
  const turnIndex = result.messages.findLastIndex((message) => message?.role === "assistant");
  const turn = result.messages[turnIndex];
  if (!turn?.toolCalls?.length)
    throw new UsageError(
      "resume(): the state's last assistant message has no tool calls, so nothing can be pending; it was changed after the run ended.",
    );
  const answered = new Set(result.messages.slice(turnIndex + 1).map((message) => message.toolCallId));
  const unanswered = turn.toolCalls.filter((call) => !answered.has(call.id));
  const pendingIds = new Set<string>();
  const deferredIds = new Set<string>();
  for (const entry of result.pending as PendingToolCall[]) {
    const toolCall = entry?.toolCall;
    const original = turn.toolCalls.find((call) => call.id === toolCall?.id);
    if (!original || original.name !== toolCall.name || toText(original.arguments) !== toText(toolCall.arguments))
      throw new UsageError(
        `resume(): the pending call ${JSON.stringify(toolCall?.id)} does not match any call of the interrupted turn (its id, name or arguments differ); the state was changed after the run ended. Resume from the state exactly as the run returned it.`,
      );
    if (answered.has(original.id))
      throw new UsageError(`resume(): the pending call "${original.id}" already has a result; the state was changed after the run ended.`);
    pendingIds.add(original.id);
    if ((entry as PendingToolCall).deferred) deferredIds.add(original.id);
  }
  const unlisted = unanswered.filter((call) => !pendingIds.has(call.id));
  if (unlisted.length > 0)
    throw new UsageError(
      `resume(): the call(s) ${unlisted.map((call) => `"${call.id}"`).join(", ")} have no result and are not pending; the state was changed after the run ended.`,
    );
  checkDecisions(pendingIds, deferredIds, decisions);
  return { result, turnIndex };
}

function parseState(state: RunResult | string): RunResult {
  let value: unknown = state;
  if (typeof state === "string") {
    try {
      value = JSON.parse(state);
    } catch (error) {
      throw new UsageError(
        `resume(): the state is not valid JSON (${(error as Error).message}). Pass a RunResult or JSON.stringify(result).`,
      );
    }
  }
  const result = value as Partial<RunResult> | null;
  if (typeof result !== "object" || result === null || !Array.isArray(result.messages) || !Array.isArray(result.steps))
    throw new UsageError(
      "resume(): the state is not a RunResult (it needs messages, steps, status and pending). Pass what run() returned, or its JSON.",
    );
  return result as RunResult;
}

/**
 * Checks decisions against an interrupted run's pending calls as `resume` does: every pending call but a deferred one
 * is decided, no decision names a call that is not pending, and each is `{ behavior: "allow", arguments? }` or
 * `{ behavior: "deny", message }`. Throws a UsageError saying what is wrong. (minagent/dbos checks the decisions a
 * durable run receives with it.)
 */
export function checkDecisions(pendingIds: ReadonlySet<string>, deferredIds: ReadonlySet<string>, decisions: ApprovalDecisions): void {
  if (typeof decisions !== "object" || decisions === null)
    throw new UsageError('resume() needs decisions: { [toolCallId]: { behavior: "allow" } | { behavior: "deny", message } }.');
  // A deferred call needs no decision: it waited only for the others.
  const missing = [...pendingIds].filter((id) => !deferredIds.has(id) && !Object.hasOwn(decisions, id));
  if (missing.length > 0)
    throw new UsageError(
      `resume(): no decision for the pending call(s) ${missing.map((id) => `"${id}"`).join(", ")}; decide every pending call.`,
    );
  for (const [id, decision] of Object.entries(decisions)) {
    if (!pendingIds.has(id)) throw new UsageError(`resume(): a decision names "${id}", which is not a pending call of this run.`);
    const behavior = (decision as { behavior?: unknown } | null)?.behavior;
    if (behavior === "allow") continue;
    if (behavior === "deny" && typeof (decision as { message?: unknown }).message === "string") continue;
    throw new UsageError(
      `resume(): the decision for "${id}" must be { behavior: "allow", arguments? } or { behavior: "deny", message: "…" }, got ${toText(decision)}.`,
    );
  }
}
