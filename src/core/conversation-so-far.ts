import type { AgentEvent } from "./events.js";
import { OpenTurn, toolResultMessage } from "./open-turn.js";
import { closeUnansweredCalls } from "./run-state.js";
import type { Message } from "./types.js";

/** An error a run rejected with, carrying the conversation as far as the run got: see {@link conversationOf}. */
export type RunError = Error & { readonly conversation?: Message[] };

/**
 * The conversation a run that rejected (aborted, a model call failed) had reached: its history and prompt, every
 * model answer, the results of the calls that ended, and for each call that did not end a result saying it was
 * interrupted (the same text a resumed crash gets), so it can be sent as the next run's `history` as it is.
 * Given by top-level runs (a child run's, such as a sub-agent's, is its parent's business). Undefined for an error
 * that did not come from a run, or a thrown value that is not an Error.
 * @example
 * try {
 *   result = await agent.run(prompt, { history, signal });
 * } catch (error) {
 *   history = conversationOf(error) ?? history;
 * }
 */
export function conversationOf(error: unknown): Message[] | undefined {
  return error instanceof Error ? (error as RunError).conversation : undefined;
}

/**
 * Follows one run's own events (not its child runs') closely enough to give back its conversation when it rejects:
 * the loop's messages as its latest model call saw them (the loop's own array, which grows as the run goes) and the
 * results of the calls that ended after that. It holds references only, so a run that succeeds pays next to nothing.
 */
export class ConversationSoFar {
  readonly #runId: string;
  #messages: readonly Message[];
  /**
   * The calls that ended since the latest model call, as their events (the first `#endedCount`): a run that succeeds
   * never needs their messages, so they are made only by {@link attachTo}. One array for the whole run, written over
   * from the start each turn: a new array per turn cost a backing store of 16 slots at its first push, every step.
   */
  readonly #ended: ToolCallEnd[] = [];
  #endedCount = 0;

  constructor(runId: string, messages: readonly Message[]) {
    this.#runId = runId;
    this.#messages = messages;
  }

  readonly listen = (event: AgentEvent): void => {
    if (event.runId !== this.#runId) return;
    if (event.type === "model-call-start") {
      this.#messages = event.messages;
      this.#endedCount = 0;
    } else if (event.type === "tool-call-end") this.#ended[this.#endedCount++] = event;
  };

  /**
   * Puts the conversation so far on `error` as `conversation` (not enumerable: logging an error does not print it).
   * An abort's reason is thrown by every run it stops, so the latest run to reject decides; runs that share one
   * signal but not one conversation should read theirs from their own result or events.
   */
  attachTo(error: unknown): void {
    if (!(error instanceof Error)) return;
    Object.defineProperty(error, "conversation", { value: this.#conversation(), enumerable: false, configurable: true });
  }

  #conversation(): Message[] {
    const messages = [...this.#messages];
    const turn = OpenTurn.last(messages);
    for (const { toolCall, result } of this.#ended.slice(0, this.#endedCount)) {
      const id = toolCall.id;
      if (turn.includes(id) && !turn.isAnswered(messages, id))
        messages.splice(turn.position(messages, id), 0, toolResultMessage(toolCall, result));
    }
    return closeUnansweredCalls(messages);
  }
}

type ToolCallEnd = Extract<AgentEvent, { type: "tool-call-end" }>;
