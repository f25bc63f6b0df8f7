import type { Message, ToolCall } from "../../engine.js";
import { formatNumber } from "../../text.js";

/** How a cleared result begins: such a result is never cleared again. */
const clearedPrefix = "[Result cleared to save context]";
/** Arguments longer than this are cut in the placeholder (the call itself keeps them whole). */
const maxArgumentsLength = 300;

/** Settings of {@link clearOldToolResults}. */
export type ClearToolResultsOptions = {
  /** The most recent results left intact, whatever their size. */
  keep: number;
  /** Results shorter than this are left as they are: a placeholder would not be much shorter. */
  minLength: number;
};

/**
 * Stage 1 of compaction: the results of all tool calls but the `keep` most recent (and those the model has not
 * read yet, the last turn's, however many) are replaced by a placeholder
 * naming the call (tool and arguments) and the size of what it returned. The calls stay, so the model knows what
 * it did and can make a call again for its output. Returns a new array (messages are not changed), or undefined
 * when there is nothing to clear.
 */
export function clearOldToolResults(messages: readonly Message[], options: ClearToolResultsOptions): Message[] | undefined {
  const calls = new Map<string, ToolCall>();
  for (const message of messages) for (const call of message.toolCalls ?? []) calls.set(call.id, call);
  let toKeep = options.keep;
  let cleared: Message[] | undefined;
  // Results after the last assistant message have not been read by the model yet: they are never cleared.
  const unread = messages.findLastIndex((message) => message.role === "assistant");
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index] as Message;
    if (message.role !== "tool") continue;
    if (toKeep > 0 || index > unread) {
      toKeep--;
      continue;
    }
    if (message.content.length < options.minLength || isClearedResult(message)) continue;
    cleared ??= messages.slice();
    cleared[index] = { ...message, content: placeholderFor(message, calls.get(message.toolCallId ?? "")) };
  }
  return cleared;
}

/** Whether a tool message is a placeholder left by {@link clearOldToolResults}. */
export function isClearedResult(message: Message): boolean {
  return message.role === "tool" && message.content.startsWith(clearedPrefix);
}

/** `[Result cleared to save context] Read({"file_path":"src/a.ts"}) returned 48,213 characters. Call it again to see them.` */
function placeholderFor(result: Message, call: ToolCall | undefined): string {
  const name = call?.name ?? "the tool";
  const json = JSON.stringify(call?.arguments ?? {}) ?? "{}";
  const args = json.length > maxArgumentsLength ? `${json.slice(0, maxArgumentsLength)}…` : json;
  const size = `${result.isError ? "failed with" : "returned"} ${formatNumber(result.content.length)} characters`;
  return `${clearedPrefix} ${name}(${args}) ${size}. Call it again if you need them.`;
}
