import type { WireRequest } from "../../src/testing/wire-server.js";
import { anthropicStream } from "../helpers/wire-bodies.js";

// Scripted Anthropic replies for the tmux tests, and what a request sent, read back.

type Block = Parameters<typeof anthropicStream>[0][number];

/** A streamed reply; `slow` sends it in small pieces 25 ms apart, as a model writing. */
export function reply(blocks: Block[], stop = "tool_use", slow = false) {
  return {
    sse: anthropicStream(blocks, stop, { input_tokens: 1500, output_tokens: 30 }),
    chunkSize: slow ? 24 : 64,
    chunkDelayMs: slow ? 25 : 0,
  };
}

/** A text answer that ends the turn. */
export const say = (text: string, slow = false) => reply([{ type: "text", text }], "end_turn", slow);

/** A tool call (after some text, if given). */
export const call = (id: string, name: string, input: Record<string, unknown>, text = "") =>
  reply([...(text ? [{ type: "text" as const, text }] : []), { type: "tool_use", id, name, input }]);

/** The content blocks of the last message a request sent. */
export function lastMessage(request: WireRequest | undefined): { type: string; [field: string]: unknown }[] {
  const body = request?.body as { messages: { content: { type: string }[] }[] } | undefined;
  return body?.messages.at(-1)?.content ?? [];
}

/** The tool results sent in a request (its last message's tool_result blocks). */
export function toolResults(request: WireRequest | undefined): { tool_use_id: string; content: string; is_error?: boolean }[] {
  return lastMessage(request).filter((block) => block.type === "tool_result") as never;
}
