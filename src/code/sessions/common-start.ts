import type { Message } from "../../engine.js";

/**
 * How many messages at the start of `a` and `b` are the same: what the recorder keeps when a history replaces the
 * recorded conversation (a compaction, a rewind).
 */
export function commonStart(a: readonly Message[], b: readonly Message[]): number {
  let keep = 0;
  const shortest = Math.min(a.length, b.length);
  while (keep < shortest && sameMessage(a[keep] as Message, b[keep] as Message)) keep++;
  return keep;
}

/** Whether two messages are the same entry of a conversation (the same object, or the same role, text, call and calls). */
function sameMessage(a: Message, b: Message): boolean {
  if (a === b) return true;
  if (a.role !== b.role || a.content !== b.content || a.toolCallId !== b.toolCallId) return false;
  const left = a.toolCalls ?? [];
  const right = b.toolCalls ?? [];
  return left.length === right.length && left.every((call, index) => call.id === right[index]?.id);
}
