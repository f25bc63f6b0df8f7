import type { Message } from "../../engine.js";

// The two messages compaction writes, both from the "user" (the person's side of the conversation), told apart
// from the person's own messages by how they begin.
const stateOpen = "<compaction-state>";
const summaryOpen = "<compaction-summary>";

/** What is carried verbatim through every compaction besides the person's messages (absent parts are left out). */
export type PinnedState = {
  /** The project memory (instructions files), as its option gives it. */
  memory?: string | undefined;
  /** The permission state: mode and rules. */
  permissions?: string | undefined;
  /** The todo list. */
  todos?: string | undefined;
};

/** Whether a message is the state or the summary message of a compaction (not something the person wrote). */
export function isCompactionMessage(message: Message): boolean {
  return message.role === "user" && (message.content.startsWith(stateOpen) || message.content.startsWith(summaryOpen));
}

/** Whether a message is the summary message of a compaction. */
export function isSummaryMessage(message: Message): boolean {
  return message.role === "user" && message.content.startsWith(summaryOpen);
}

/** The person's messages: every user message but compaction's own. */
export function isPersonMessage(message: Message): boolean {
  return message.role === "user" && !isCompactionMessage(message);
}

/** How many system messages open the conversation (they are kept as they are). */
export function systemPrefixLength(messages: readonly Message[]): number {
  let length = 0;
  while (messages[length]?.role === "system") length++;
  return length;
}

/**
 * The state message, which follows the system prompt after every compaction: what was done to the conversation,
 * and the pinned state, verbatim. The project memory is left out when the system prompt already holds it verbatim.
 */
export function stateMessage(state: PinnedState, system: readonly Message[]): Message {
  const parts = [
    stateOpen,
    "The conversation was compacted to fit the context window. Results of older tool calls were replaced by a note naming the call: call the tool again if you need its output. The state below is current as of the compaction.",
  ];
  if (state.permissions) parts.push("", "Permissions:", state.permissions);
  if (state.todos) parts.push("", "Todo list:", state.todos);
  if (state.memory && !system.some((message) => message.content.includes(state.memory as string)))
    parts.push("", "Project memory (instructions to follow):", state.memory);
  parts.push("</compaction-state>");
  return { role: "user", content: parts.join("\n") };
}

/** The summary message: the summariser's text, said to stand for the conversation it replaces. */
export function summaryMessage(summary: string): Message {
  return {
    role: "user",
    content: [
      summaryOpen,
      "Summary of the earlier conversation, which was removed to free context. The user's messages from it follow this summary, verbatim, oldest first; they were handled as the summary says.",
      "",
      summary.trim(),
      "</compaction-summary>",
    ].join("\n"),
  };
}

/**
 * The conversation with the state message in its place (after the system prompt), any earlier one removed.
 */
export function withStateMessage(messages: readonly Message[], state: Message): Message[] {
  const prefix = systemPrefixLength(messages);
  const rest = messages.slice(prefix).filter((message) => !(message.role === "user" && message.content.startsWith(stateOpen)));
  return [...messages.slice(0, prefix), state, ...rest];
}
