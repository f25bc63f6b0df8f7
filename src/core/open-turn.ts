import type { ToolResult } from "./events.js";
import type { Message, ToolCall } from "./types.js";

/** The tool message that answers `toolCall` with its result: what the model reads next turn. */
export function toolResultMessage(toolCall: ToolCall, result: ToolResult): Message {
  // Optional fields added by assignment, not spread: one is made per step, and a spread of `false` still costs a
  // runtime call in code not yet optimised (every step of a short run).
  const message: Message = { role: "tool", content: result.content, toolCallId: toolCall.id };
  if (result.isError) message.isError = true;
  if (result.parts?.length) message.parts = result.parts;
  return message;
}

/**
 * The turn of a conversation whose tool calls may still get results: its last assistant message with calls, when
 * only tool messages follow it. Results arrive in the order calls finish; each goes after the results of the calls
 * made before its own, so a conversation keeps call order however its calls raced. The engine (an interrupted run's
 * conversation), the session recorder and the session reader all place results with it.
 */
export class OpenTurn {
  /** Index of the assistant message whose calls are open; -1 when no turn is open. */
  readonly start: number;
  readonly #order: ReadonlyMap<string, number>;

  /** The turn of the assistant message at `start` (-1: none). */
  constructor(messages: readonly Message[], start: number) {
    this.start = start;
    const calls = start >= 0 ? (messages[start]?.toolCalls ?? []) : [];
    this.#order = new Map(calls.map((call, order) => [call.id, order]));
  }

  /** The open turn of `messages`: the last assistant message with calls, if nothing but tool messages follows it. */
  static last(messages: readonly Message[]): OpenTurn {
    let index = messages.length - 1;
    while (index >= 0 && messages[index]?.role === "tool") index--;
    return new OpenTurn(messages, messages[index]?.role === "assistant" && messages[index]?.toolCalls?.length ? index : -1);
  }

  /** Whether `id` is one of this turn's calls. */
  includes(id: string): boolean {
    return this.#order.has(id);
  }

  /** The call's place among the turn's calls (undefined for a call of another turn). */
  order(id: string): number | undefined {
    return this.#order.get(id);
  }

  /** Whether call `id` already has a result in `messages`. */
  isAnswered(messages: readonly Message[], id: string): boolean {
    for (let index = this.start + 1; index < messages.length; index++) if (messages[index]?.toolCallId === id) return true;
    return false;
  }

  /** Where the result of call `id` goes in `messages`: after the results of the calls made before it; at the end when it is not one of this turn's. */
  position(messages: readonly Message[], id: string): number {
    const order = this.#order.get(id);
    let position = messages.length;
    if (this.start < 0 || order === undefined) return position;
    while (position > this.start + 1 && (this.#order.get(messages[position - 1]?.toolCallId ?? "") ?? -1) > order) position--;
    return position;
  }
}
