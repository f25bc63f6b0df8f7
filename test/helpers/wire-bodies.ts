import { formatServerSentEvents } from "../../src/testing/wire-server.js";

type Block = { type: "text"; text: string } | { type: "tool_use"; id: string; name: string; input: Record<string, unknown> };

/**
 * An Anthropic Messages stream for a message we write ourselves (the recorded fixtures call other
 * tools): text arrives in word-sized deltas, tool input as JSON in two pieces, like the real API.
 */
export function anthropicStream(blocks: Block[], stopReason: string, usage = { input_tokens: 100, output_tokens: 20 }): string {
  const events: { type: string; [key: string]: unknown }[] = [
    {
      type: "message_start",
      message: {
        id: "msg_test",
        type: "message",
        role: "assistant",
        model: "claude-test",
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: usage.input_tokens, output_tokens: 1 },
      },
    },
  ];
  blocks.forEach((block, index) => {
    if (block.type === "text") {
      events.push({ type: "content_block_start", index, content_block: { type: "text", text: "" } });
      for (const piece of block.text.match(/\S+\s*/g) ?? [])
        events.push({ type: "content_block_delta", index, delta: { type: "text_delta", text: piece } });
    } else {
      events.push({ type: "content_block_start", index, content_block: { type: "tool_use", id: block.id, name: block.name, input: {} } });
      const json = JSON.stringify(block.input);
      const middle = Math.floor(json.length / 2);
      for (const piece of [json.slice(0, middle), json.slice(middle)])
        events.push({ type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: piece } });
    }
    events.push({ type: "content_block_stop", index });
  });
  events.push({
    type: "message_delta",
    delta: { stop_reason: stopReason, stop_sequence: null },
    usage: { output_tokens: usage.output_tokens },
  });
  events.push({ type: "message_stop" });
  return formatServerSentEvents(events.map((event) => ({ event: event.type, data: JSON.stringify(event) })));
}

/** An OpenAI-style chat completion stream with text and/or tool calls, without usage (as many local servers send it). */
export function openAIStream(text: string, calls: { name: string; arguments: Record<string, unknown> }[], finishReason: string): string {
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({
    data: JSON.stringify({ id: "chatcmpl-test", object: "chat.completion.chunk", choices: [{ index: 0, delta, finish_reason: finish }] }),
  });
  const chunks = [chunk({ role: "assistant", content: "" })];
  for (const piece of text.match(/\S+\s*/g) ?? []) chunks.push(chunk({ content: piece }));
  for (const [index, call] of calls.entries()) {
    const toolCall = {
      index,
      id: `call_${index}`,
      type: "function",
      function: { name: call.name, arguments: JSON.stringify(call.arguments) },
    };
    chunks.push(chunk({ tool_calls: [toolCall] }));
  }
  chunks.push(chunk({}, finishReason));
  return formatServerSentEvents(chunks, { done: true });
}

/**
 * A Gemini `streamGenerateContent?alt=sse` body for a response we write ourselves: text in word-sized chunks,
 * each function call whole in a chunk of its own, the finish reason and usage on the last chunk. Framed as the
 * real API frames it: `data:` lines only, CRLF line endings, `\r\n\r\n` between events.
 */
export function geminiStream(
  text: string,
  calls: { name: string; args: Record<string, unknown> }[],
  finishReason: string,
  usage = { promptTokenCount: 100, candidatesTokenCount: 20 },
): string {
  const chunk = (parts: Record<string, unknown>[], last = false) =>
    JSON.stringify({
      candidates: [{ content: { role: "model", parts }, ...(last && { finishReason }), index: 0 }],
      usageMetadata: last ? usage : { promptTokenCount: usage.promptTokenCount },
      modelVersion: "gemini-test",
    });
  const chunks = (text.match(/\S+\s*/g) ?? []).map((piece) => chunk([{ text: piece }]));
  for (const call of calls) chunks.push(chunk([{ functionCall: call }]));
  chunks.push(chunk([], true));
  return chunks.map((data) => `data: ${data}\r\n\r\n`).join("");
}
