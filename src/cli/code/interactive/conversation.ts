import type { AgentEvent } from "../../../core/events.js";
import type { Message } from "../../../core/types.js";

/** Said to the model after a turn the person stopped, as Claude Code does. */
export const interruptionNote = "[Request interrupted by user]";

/**
 * Follows the runs of a session closely enough to give back the conversation when a run is stopped part-way (it then
 * rejects, with no result): the messages of its latest model call (the loop's own array, which grows as the run
 * goes), plus the results of the calls that ended before the stop. The calls that did not end are left unanswered:
 * the engine answers each with "interrupted" when the next run starts from this history.
 */
export class ConversationTracker {
  #messages: readonly Message[] | undefined;
  readonly #results = new Map<string, Message>();
  readonly #topRuns = new Set<string>();

  readonly listener = (event: AgentEvent): void => {
    if (event.type === "run-start" && event.parentRunId === undefined) {
      this.#topRuns.add(event.runId);
      this.#messages = event.messages;
      this.#results.clear();
    }
    if (!this.#topRuns.has(event.runId)) return;
    if (event.type === "model-call-start") this.#messages = event.messages;
    else if (event.type === "tool-call-end")
      this.#results.set(event.toolCall.id, {
        role: "tool",
        content: event.result.content,
        toolCallId: event.toolCall.id,
        ...(event.result.isError && { isError: true }),
      });
  };

  /** Forget the runs so far (a new conversation). */
  reset(): void {
    this.#messages = undefined;
    this.#results.clear();
    this.#topRuns.clear();
  }

  /**
   * The conversation as far as the stopped run got, ending with a note that the person stopped it (unless `noted` is
   * false: the run failed); `fallback` when no run started.
   */
  recover(fallback: readonly Message[], noted = true): Message[] {
    if (!this.#messages) return [...fallback];
    const messages = [...this.#messages];
    const turnIndex = messages.findLastIndex((message) => message.role === "assistant");
    const calls = messages[turnIndex]?.toolCalls ?? [];
    const answered = new Set(messages.slice(turnIndex + 1).map((message) => message.toolCallId));
    for (const call of calls) {
      const result = this.#results.get(call.id);
      if (result && !answered.has(call.id)) messages.push(result);
    }
    if (noted) messages.push({ role: "user", content: interruptionNote });
    return messages;
  }
}
