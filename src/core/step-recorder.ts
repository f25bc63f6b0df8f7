import { toText } from "../text.js";
import type { AgentEvent } from "./events.js";
import type { Message, Step, ToolCall } from "./types.js";

/** Which optional steps a recorder writes. */
export type StepRecorderOptions = {
  /** Record as `thought` steps the model's reasoning (extended thinking) and the text of a turn that also calls tools (ReAct, book 5.1). */
  thoughts?: boolean | undefined;
  /**
   * Records a tool call as steps of a pattern's own (Plan-and-Solve's plan tool becomes `plan` steps): return
   * them to replace the call's action and observation, or undefined to record it as usual.
   */
  describeCall?: ((call: ToolCall) => Pick<Step, "kind" | "detail">[] | undefined) | undefined;
  /**
   * Records a turn's answer (its message without tool calls) as steps of a pattern's own (Plan-and-Solve's plan
   * written as text): given the message and the conversation that turn was sent; return the steps to replace the
   * `final` step, or undefined to record it as usual.
   */
  describeAnswer?: ((message: Message, sent: readonly Message[]) => Pick<Step, "kind" | "detail">[] | undefined) | undefined;
};

/**
 * Builds a run's trajectory from loop events: per turn an optional thought, then an action and an
 * observation per tool call (in call order, whatever order they finish in), or the final answer.
 */
export class StepRecorder {
  readonly steps: Step[] = [];
  readonly #thoughts: boolean;
  // The current turn's calls and their observation steps, by position: filled in as each call ends.
  #turnCalls: readonly ToolCall[] = [];
  /**
   * null for a call that `describeCall` recorded: it has no observation step. Position i is the current turn's call i;
   * the array is written over each turn (positions past the turn's calls are never read), not made anew: a new one
   * cost a backing store of 16 slots at its first push, every step.
   */
  readonly #turnObservations: (Step | null)[] = [];
  readonly #describeCall: StepRecorderOptions["describeCall"];
  readonly #describeAnswer: StepRecorderOptions["describeAnswer"];
  /**
   * The conversation the current turn was sent (for `describeAnswer`): the run's array, and how much of it was sent
   * (two fields, not an object: one is heard per turn).
   */
  #sentMessages: readonly Message[] = [];
  #sentLength = 0;
  /** The run being recorded: the first run-start heard. Child runs' events reach the same listeners and are skipped. */
  #runId: string | undefined;

  constructor(options: StepRecorderOptions = {}) {
    this.#thoughts = options.thoughts ?? false;
    this.#describeCall = options.describeCall;
    this.#describeAnswer = options.describeAnswer;
  }

  /** Feed every agent event here. */
  readonly listen = (event: AgentEvent): void => {
    this.#runId ??= event.runId;
    if (event.runId !== this.#runId) return;
    if (event.type === "model-call-start") {
      this.#sentMessages = event.messages;
      this.#sentLength = event.messages.length;
    } else if (event.type === "model-call-end") {
      const { message, stopReason } = event.response;
      const calls = message.toolCalls ?? [];
      // Extended thinking is the model's own thought: shown as is, never parsed.
      if (this.#thoughts)
        for (const part of message.reasoning ?? [])
          if (part.text) this.steps.push({ index: event.turn, kind: "thought", detail: part.text });
      if (calls.length === 0) {
        if (stopReason === "pause_turn") return;
        const described = this.#describeAnswer?.(message, this.#sentMessages.slice(0, this.#sentLength)) ?? [
          { kind: "final", detail: message.content },
        ];
        for (const { kind, detail } of described) this.steps.push({ index: event.turn, kind, detail });
        return;
      }
      if (this.#thoughts && message.content) this.steps.push({ index: event.turn, kind: "thought", detail: message.content });
      this.#turnCalls = calls;
      // Indexed: code not yet optimised (a short run's) would make an iterator per turn.
      for (let index = 0; index < calls.length; index++) {
        const call = calls[index] as ToolCall;
        const described = this.#describeCall?.(call);
        if (described) {
          for (const { kind, detail } of described) this.steps.push({ index: event.turn, kind, detail });
          this.#turnObservations[index] = null;
          continue;
        }
        this.steps.push({ index: event.turn, kind: "action", detail: formatAction(call) });
        const observation: Step = { index: event.turn, kind: "observation", detail: "" };
        this.steps.push(observation);
        this.#turnObservations[index] = observation;
      }
    } else if (event.type === "tool-call-end") {
      const position = this.#turnCalls.indexOf(event.toolCall);
      const observation = this.#turnObservations[position];
      if (observation) observation.detail = event.result.content;
      // A call answered after a resume was announced by the interrupted run: its observation comes now.
      else if (position === -1) this.steps.push({ index: event.turn, kind: "observation", detail: event.result.content });
    } else if (event.type === "tool-call-pending") {
      const step = this.#turnObservations[this.#turnCalls.indexOf(event.toolCall)];
      if (step) {
        step.kind = "approval";
        step.detail = event.reason ?? "Waiting for a decision.";
      }
    }
  };

  /** Records that the run stopped without converging. */
  recordError(index: number, detail: string): void {
    this.steps.push({ index, kind: "error", detail });
  }

  /** Records the run's answer when it came otherwise than as a turn's text (a final-answer tool call's arguments). */
  recordFinal(index: number, detail: string): void {
    this.steps.push({ index, kind: "final", detail });
  }

  /**
   * Records that the text answer of turn `index` was refused (it broke the output schema): its `final` step becomes a
   * `thought` (an attempt, not the answer), followed by an `error` step saying why.
   */
  recordRejectedAnswer(index: number, detail: string): void {
    const answer = this.steps.findLast((step) => step.index === index && step.kind === "final");
    if (answer) answer.kind = "thought";
    this.steps.push({ index, kind: "error", detail });
  }
}

/** `name({"arg":1})`: the detail of an action step. */
export function formatAction(call: ToolCall): string {
  return `${call.name}(${argumentsText(call.arguments)})`;
}

/**
 * `toText(args)` for the usual arguments, an object, with `JSON.stringify` called here: toText wraps it in a closure
 * made per call, a cost every step paid before its code was optimised. Anything else, or an object plain JSON
 * refuses, goes to toText, which gives the same text it always did.
 */
function argumentsText(args: unknown): string {
  if (typeof args === "object" && args !== null) {
    try {
      const json = JSON.stringify(args);
      if (json !== undefined) return json;
    } catch {
      // a cycle, a bigint, a throwing toJSON: toText's fallbacks below
    }
  }
  return toText(args);
}
