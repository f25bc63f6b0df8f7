import type { AgentEvent } from "../../../core/events.js";
import { toolResultMessage } from "../../../core/open-turn.js";
import type { Message } from "../../../core/types.js";

/** A run's conversation as its events told it: the messages its latest model call was sent, and what came after. */
type RunSoFar = {
  /** The messages of the latest `model-call-start` (the engine's own array, not a copy)… */
  sent: readonly Message[];
  /** …as many as it had then: the engine goes on appending to it (the answer, the results). */
  sentCount: number;
  /** The latest model call's answer and the results of its calls that have ended since. */
  after: Message[];
};

/**
 * What the conversation kept by the session does not hold, read from a turn's events: each subagent's own steps
 * (a child run, found by the tool call that started it), and the running turn's steps before the turn hands its
 * messages back. Nothing is copied: a run's messages are those its latest model call was sent, plus that call's
 * answer and the results since.
 */
export class RunSteps {
  readonly #runs = new Map<string, RunSoFar>();
  /** The child run each tool call started (a subagent's run), by the call's id. */
  readonly #childOfCall = new Map<string, string>();
  /** The run of the turn going on (no parent), until the next turn starts. */
  #topRun: string | undefined;

  readonly listener = (event: AgentEvent): void => {
    switch (event.type) {
      case "run-start":
        if (event.parentRunId === undefined) {
          // Only the latest turn's run is asked for; subagents' runs stay, since their calls stay in the conversation.
          if (this.#topRun !== undefined) this.#runs.delete(this.#topRun);
          this.#topRun = event.runId;
        } else if (event.parentToolCallId !== undefined) this.#childOfCall.set(event.parentToolCallId, event.runId);
        this.#runs.set(event.runId, { sent: event.messages, sentCount: event.messages.length, after: [] });
        break;
      case "model-call-start":
        this.#runs.set(event.runId, { sent: event.messages, sentCount: event.messages.length, after: [] });
        break;
      case "model-call-end":
        this.#runs.get(event.runId)?.after.push(event.response.message);
        break;
      case "tool-call-end":
        this.#runs.get(event.runId)?.after.push(toolResultMessage(event.toolCall, event.result));
        break;
      default:
        break;
    }
  };

  /** The conversation of the turn going on (or last run), as far as its events have told; undefined before any turn. */
  get currentTurn(): readonly Message[] | undefined {
    return this.#topRun === undefined ? undefined : this.#conversation(this.#topRun);
  }

  /** The conversation of the subagent run that the tool call `toolCallId` started, if this session saw it run. */
  childOf(toolCallId: string): readonly Message[] | undefined {
    const runId = this.#childOfCall.get(toolCallId);
    return runId === undefined ? undefined : this.#conversation(runId);
  }

  #conversation(runId: string): readonly Message[] | undefined {
    const run = this.#runs.get(runId);
    return run && [...run.sent.slice(0, run.sentCount), ...run.after];
  }
}
