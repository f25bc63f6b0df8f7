import type { AgentEvent, Message, TurnContext } from "../../engine.js";
import { estimateMessageTokens, estimateTextTokens } from "./estimate-tokens.js";

/**
 * What the provider counted for one request: the messages sent, their estimate, its count, and the estimate of the
 * tool schemas sent with them (when the listener heard them; 0 otherwise).
 */
type Anchor = { messages: readonly Message[]; estimated: number; reported: number; schemas: number };

/** What is known of one run this meter prepares turns for. */
type RunRecord = {
  /** The messages of its last model call, as sent. */
  sent: readonly Message[];
  /** The run's input tokens when that call was prepared (to read the call's own count from the next turn's usage). */
  usageMark: number;
  /** Set when a `model-call-end` event reported the call's usage: the usage delta is then not needed. */
  heard: boolean;
  /** Estimated tokens of the tool schemas of its last model call, when a `model-call-start` said. */
  schemas: number;
};

/** Runs remembered without the listener to say when they end: older ones are forgotten. */
const maxRuns = 32;
/**
 * What was added since the last count is taken this much larger than its estimate: one tool result can hold
 * thousands of tokens whose density differs from the conversation's average (code, JSON, prose), and the measure
 * decides whether a request stays under the threshold, so it leans high.
 */
const addedMargin = 1.15;
/** How far the provider's count may be from the estimate before the ratio is distrusted. */
const [minRatio, maxRatio] = [0.5, 4];

/**
 * The context size of a request, measured: the provider's input tokens for the last model call, plus an estimate
 * of what was added since, scaled by the ratio of that count (less the tool schemas' estimate) to the estimate of
 * the same messages, and taken 15 % high. A conversation that is not the last one sent plus additions (it was compacted) is its
 * estimate scaled by that ratio, plus the schemas; before any count, the plain estimate (characters / 4).
 *
 * The last call's count comes from its `model-call-end` event when `listen` hears the run's events (exact: child
 * runs, which have their own ids, are not mixed in), else from the growth of the run's `usage` between two turns
 * (which also holds what child runs finished in between used: an over-count, so compaction comes early rather
 * than late). Estimates are cached per message object (messages are never changed once appended).
 */
export class ContextMeter {
  readonly #estimates = new WeakMap<Message, number>();
  readonly #runs = new Map<string, RunRecord>();
  #anchor: Anchor | undefined;

  /** Estimated tokens of `messages` (characters / 4 and framing, see `estimateMessageTokens`). */
  estimate(messages: readonly Message[], from = 0): number {
    let total = 0;
    for (let index = from; index < messages.length; index++) {
      const message = messages[index] as Message;
      let tokens = this.#estimates.get(message);
      if (tokens === undefined) {
        tokens = estimateMessageTokens(message);
        this.#estimates.set(message, tokens);
      }
      total += tokens;
    }
    return total;
  }

  /** Measured tokens of a request holding `messages`. */
  measure(messages: readonly Message[]): number {
    const anchor = this.#anchor;
    if (!anchor) return this.estimate(messages);
    const ratio = Math.min(maxRatio, Math.max(minRatio, (anchor.reported - anchor.schemas) / Math.max(1, anchor.estimated)));
    if (startsWith(messages, anchor.messages))
      return anchor.reported + Math.ceil(addedMargin * ratio * this.estimate(messages, anchor.messages.length));
    return anchor.schemas + Math.ceil(ratio * this.estimate(messages));
  }

  /** At the start of `prepareTurn`: without a `model-call-end` heard, reads the last call's count from the usage growth. */
  beginTurn(context: TurnContext): void {
    const record = this.#runs.get(context.runId);
    if (!record || record.heard) return;
    const reported = context.usage.inputTokens - record.usageMark;
    if (reported > 0 && startsWith(context.messages, record.sent)) this.#setAnchor(record.sent, reported, 0);
  }

  /** At the end of `prepareTurn`: what this turn sends, and the run's usage before its model call. */
  endTurn(context: TurnContext, sent: readonly Message[]): void {
    this.#runs.delete(context.runId);
    this.#runs.set(context.runId, { sent: sent.slice(), usageMark: context.usage.inputTokens, heard: false, schemas: 0 });
    if (this.#runs.size > maxRuns) this.#runs.delete(this.#runs.keys().next().value as string);
  }

  /** Hears a run's model calls (the runs this meter prepares; other runs, a sub-agent's, are ignored). */
  readonly listen = (event: AgentEvent): void => {
    const record = this.#runs.get(event.runId);
    if (!record) return;
    if (event.type === "model-call-start") {
      record.sent = event.messages.slice();
      record.schemas = event.tools.length > 0 ? estimateTextTokens(JSON.stringify(event.tools)) : 0;
    } else if (event.type === "model-call-end") {
      const reported = event.response.usage?.inputTokens ?? 0;
      if (reported > 0) {
        this.#setAnchor(record.sent, reported, record.schemas);
        record.heard = true;
      }
    } else if (event.type === "run-end" || event.type === "run-error") this.#runs.delete(event.runId);
  };

  #setAnchor(messages: readonly Message[], reported: number, schemas: number): void {
    this.#anchor = { messages, estimated: this.estimate(messages), reported, schemas };
  }
}

/** Whether `messages` begins with exactly the message objects of `prefix`. */
export function startsWith(messages: readonly Message[], prefix: readonly Message[]): boolean {
  if (prefix.length > messages.length) return false;
  for (let index = prefix.length - 1; index >= 0; index--) if (messages[index] !== prefix[index]) return false;
  return true;
}
