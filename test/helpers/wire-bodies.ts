import { formatServerSentEvents } from "../../src/testing/wire-server.js";

type Block =
  | { type: "text"; text: string }
  | { type: "thinking"; thinking: string }
  | { type: "tool_use"; id: string; name: string; input: Record<string, unknown> };

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
    } else if (block.type === "thinking") {
      events.push({ type: "content_block_start", index, content_block: { type: "thinking", thinking: "", signature: "" } });
      for (const piece of block.thinking.match(/\S+\s*/g) ?? [])
        events.push({ type: "content_block_delta", index, delta: { type: "thinking_delta", thinking: piece } });
      events.push({ type: "content_block_delta", index, delta: { type: "signature_delta", signature: "sig-test" } });
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

/** A Responses API output item, as the API sends it. */
type ResponsesItem = { type: string; [field: string]: unknown };

/** The output items of a Responses reply we write ourselves: a message with the text (if any), then one function_call per call. */
export function responsesOutput(text: string, calls: { name: string; arguments: Record<string, unknown> }[]): ResponsesItem[] {
  const message = {
    type: "message",
    id: "msg_test",
    status: "completed",
    role: "assistant",
    content: [{ type: "output_text", annotations: [], text }],
  };
  const functionCalls = calls.map((call, index) => ({
    type: "function_call",
    id: `fc_test_${index}`,
    call_id: `call_${index}`,
    name: call.name,
    arguments: JSON.stringify(call.arguments),
    status: "completed",
  }));
  return [...(text ? [message] : []), ...functionCalls];
}

/** A whole Responses API response around `output`: completed, or incomplete for `incompleteReason`. */
export function responsesResponse(
  output: ResponsesItem[],
  options: { incompleteReason?: string; usage?: [number, number] } = {},
): Record<string, unknown> {
  const [input, outputTokens] = options.usage ?? [10, 5];
  return {
    id: "resp_test",
    object: "response",
    status: options.incompleteReason ? "incomplete" : "completed",
    incomplete_details: options.incompleteReason ? { reason: options.incompleteReason } : null,
    error: null,
    output,
    usage: {
      input_tokens: input,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: outputTokens,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: input + outputTokens,
    },
  };
}

/**
 * The Responses API stream of `response` (see {@link responsesResponse}), with the events the API sends:
 * each item added (in progress: no text, no arguments, no summary yet), its text, refusal, summary or
 * arguments in pieces, then done as final, and `response.completed` (or `.incomplete`) carrying the whole
 * response. The API's `encrypted_content` at `output_item.added` is not the final one: `encryptedAtStart`
 * says what to send there (default: the final one cut in half).
 */
export function responsesStream(response: Record<string, unknown>, options: { encryptedAtStart?: (final: string) => string } = {}): string {
  const events: Record<string, unknown>[] = [];
  const started = { ...response, status: "in_progress", output: [], usage: null, incomplete_details: null };
  events.push({ type: "response.created", response: started }, { type: "response.in_progress", response: started });
  const pieces = (text: string) => text.match(/\S+\s*|\s+/g) ?? [];
  for (const [output_index, item] of (response.output as ResponsesItem[]).entries()) {
    const item_id = item.id;
    const encrypted = typeof item.encrypted_content === "string" ? item.encrypted_content : undefined;
    const atStart =
      item.type === "message"
        ? { ...item, status: "in_progress", content: [] }
        : item.type === "function_call"
          ? { ...item, status: "in_progress", arguments: "" }
          : {
              ...item,
              summary: [],
              ...(encrypted && {
                encrypted_content: (options.encryptedAtStart ?? ((final) => final.slice(0, final.length / 2)))(encrypted),
              }),
            };
    events.push({ type: "response.output_item.added", output_index, item: atStart });
    if (item.type === "message") {
      for (const [content_index, part] of (item.content as { type: string; text?: string; refusal?: string }[]).entries()) {
        events.push({ type: "response.content_part.added", item_id, output_index, content_index, part: { ...part, text: "" } });
        const kind = part.type === "refusal" ? "refusal" : "output_text";
        for (const delta of pieces(part.text ?? part.refusal ?? ""))
          events.push({ type: `response.${kind}.delta`, item_id, output_index, content_index, delta });
        events.push(
          { type: `response.${kind}.done`, item_id, output_index, content_index },
          { type: "response.content_part.done", item_id, output_index, content_index, part },
        );
      }
    } else if (item.type === "function_call") {
      const json = String(item.arguments);
      const middle = Math.floor(json.length / 2);
      for (const delta of [json.slice(0, middle), json.slice(middle)])
        events.push({ type: "response.function_call_arguments.delta", item_id, output_index, delta });
      events.push({ type: "response.function_call_arguments.done", item_id, output_index, arguments: json });
    } else if (item.type === "reasoning") {
      for (const [summary_index, part] of (item.summary as { type: string; text: string }[]).entries()) {
        events.push({ type: "response.reasoning_summary_part.added", item_id, output_index, summary_index, part: { ...part, text: "" } });
        for (const delta of pieces(part.text))
          events.push({ type: "response.reasoning_summary_text.delta", item_id, output_index, summary_index, delta });
        events.push({ type: "response.reasoning_summary_part.done", item_id, output_index, summary_index, part });
      }
    }
    events.push({ type: "response.output_item.done", output_index, item });
  }
  events.push({ type: response.status === "incomplete" ? "response.incomplete" : "response.completed", response });
  return formatServerSentEvents(
    events.map((event, sequence_number) => ({ event: String(event.type), data: JSON.stringify({ ...event, sequence_number }) })),
  );
}
