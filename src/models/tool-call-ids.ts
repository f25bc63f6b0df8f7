import { randomUUID } from "node:crypto";
import type { Message } from "../core/types.js";

/**
 * The tool-call ids already used in a conversation: a set, or a function that gives it (called only
 * once a response has an id to check).
 */
export type UsedToolCallIds = ReadonlySet<string> | (() => ReadonlySet<string>);

/**
 * Hands out the ids of one response's tool calls: the provider's id when it is usable and new (not
 * earlier in this response nor in the conversation), else a fresh one made of `prefix` and random
 * characters. A repeated id would be ambiguous when sent back (which call does a result answer?), and
 * both Anthropic and OpenAI refuse a conversation that repeats one. The conversation's ids are looked
 * up only once a provider id needs checking.
 */
export function createToolCallIds(usedIds: UsedToolCallIds | undefined, prefix: string): (id: unknown) => string {
  const given = new Set<string>();
  let used: ReadonlySet<string> | undefined;
  const conversation = () => {
    used ??= typeof usedIds === "function" ? usedIds() : (usedIds ?? given);
    return used;
  };
  return (id) => {
    const usable =
      typeof id === "string" && id !== "" && !given.has(id) && !conversation().has(id)
        ? id
        : `${prefix}${randomUUID().replaceAll("-", "").slice(0, 24)}`;
    given.add(usable);
    return usable;
  };
}

/** The tool-call ids of a conversation's first `read` messages, the last of which was `last`. */
type ConversationIds = { ids: Set<string>; read: number; last: Message | undefined };

/**
 * The tool-call ids of each conversation a model is called with, kept up to date as it grows. The
 * engine appends to the same array on every call, so only the messages added since the last call are
 * read; a shorter or rewritten conversation (a `prepareTurn` that compacts it) is read again.
 */
export class ConversationToolCallIds {
  readonly #conversations = new WeakMap<readonly Message[], ConversationIds>();

  /** The ids used so far in `messages`. */
  of(messages: readonly Message[]): ReadonlySet<string> {
    let known = this.#conversations.get(messages);
    if (!known || known.read > messages.length || (known.read > 0 && messages[known.read - 1] !== known.last)) {
      known = { ids: new Set(), read: 0, last: undefined };
      this.#conversations.set(messages, known);
    }
    for (let i = known.read; i < messages.length; i++) for (const call of messages[i]?.toolCalls ?? []) known.ids.add(call.id);
    known.read = messages.length;
    known.last = messages[messages.length - 1];
    return known.ids;
  }
}
