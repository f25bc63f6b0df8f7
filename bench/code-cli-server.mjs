// bench/code-cli.mjs's model: a scripted Messages API on 127.0.0.1 (Anthropic's wire format, streamed as server-sent
// events when the request says `stream: true`, else one JSON message). Any client that sends Bash and Read among its
// tools gets the three-turn task: a Bash call, then a Read call, then the answer; a request without those tools (a
// title, a summary…) gets a short text. Every request is recorded with its size, parts and arrival time.
import { createServer } from "node:http";
import { listenOnLoopback } from "./listen-on-loopback.mjs";

/**
 * @typedef {{ path: string, startedAt: number, receivedAt: number, bytes: number, body: any, agentTurn: boolean }} ReceivedRequest
 * (`startedAt`: when its headers had arrived; `receivedAt`: its whole body; both `performance.now()` of this process)
 * @param {{ command: string, filePath: string, answer: string }} script what the model asks for and answers
 */
export async function startScriptedServer(script) {
  /** @type {ReceivedRequest[]} */
  const requests = [];
  const server = createServer((request, response) => {
    const startedAt = performance.now();
    const chunks = [];
    request.on("data", (chunk) => chunks.push(chunk));
    request.on("end", () => {
      const receivedAt = performance.now();
      const text = Buffer.concat(chunks).toString("utf8");
      let body;
      try {
        body = JSON.parse(text);
      } catch {
        body = undefined;
      }
      const agentTurn = isAgentTurn(body);
      requests.push({ path: request.url ?? "/", startedAt, receivedAt, bytes: Buffer.byteLength(text), body, agentTurn });
      answer(request.url ?? "/", body, agentTurn, script, response);
    });
  });
  const { url, close } = await listenOnLoopback(server);
  return { url, requests, close };
}

function isAgentTurn(body) {
  const names = new Set((body?.tools ?? []).map((tool) => tool.name));
  return names.has("Bash") && names.has("Read");
}

function answer(path, body, agentTurn, script, response) {
  const route = path.split("?")[0];
  if (route === "/v1/messages/count_tokens") return json(response, 200, { input_tokens: Math.ceil(JSON.stringify(body).length / 4) });
  if (route !== "/v1/messages" || body === undefined)
    return json(response, 404, { type: "error", error: { type: "not_found_error", message: `no ${route} here` } });
  const inputTokens = Math.ceil(JSON.stringify(body).length / 4);
  let content;
  let stopReason = "tool_use";
  const results = agentTurn ? countToolResults(body.messages) : 0;
  if (agentTurn && results === 0)
    content = [{ type: "tool_use", id: "toolu_bench_1", name: "Bash", input: { command: script.command, description: "List the files" } }];
  else if (agentTurn && results === 1)
    content = [{ type: "tool_use", id: "toolu_bench_2", name: "Read", input: { file_path: script.filePath } }];
  else {
    content = [{ type: "text", text: agentTurn ? script.answer : "Benchmark session" }];
    stopReason = "end_turn";
  }
  const message = {
    id: `msg_bench_${Math.random().toString(36).slice(2, 10)}`,
    type: "message",
    role: "assistant",
    model: body.model ?? "claude-sonnet-4-6",
    content,
    stop_reason: stopReason,
    stop_sequence: null,
    usage: { input_tokens: inputTokens, output_tokens: 24 },
  };
  if (body.stream) return stream(response, message);
  return json(response, 200, message);
}

function countToolResults(messages = []) {
  let count = 0;
  for (const message of messages)
    if (Array.isArray(message.content)) for (const block of message.content) if (block.type === "tool_result") count += 1;
  return count;
}

function json(response, status, value) {
  response.writeHead(status, { "content-type": "application/json", "request-id": "req_bench" });
  response.end(JSON.stringify(value));
}

/** The message as Anthropic streams it: start, each block (text in one delta, tool input as JSON), delta, stop. */
function stream(response, message) {
  const events = [
    [
      "message_start",
      { type: "message_start", message: { ...message, content: [], stop_reason: null, usage: { ...message.usage, output_tokens: 1 } } },
    ],
  ];
  message.content.forEach((block, index) => {
    if (block.type === "text") {
      events.push(["content_block_start", { type: "content_block_start", index, content_block: { type: "text", text: "" } }]);
      events.push(["content_block_delta", { type: "content_block_delta", index, delta: { type: "text_delta", text: block.text } }]);
    } else {
      const start = { ...block, input: {} };
      events.push(["content_block_start", { type: "content_block_start", index, content_block: start }]);
      const partial_json = JSON.stringify(block.input);
      events.push(["content_block_delta", { type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json } }]);
    }
    events.push(["content_block_stop", { type: "content_block_stop", index }]);
  });
  events.push([
    "message_delta",
    { type: "message_delta", delta: { stop_reason: message.stop_reason, stop_sequence: null }, usage: { output_tokens: 24 } },
  ]);
  events.push(["message_stop", { type: "message_stop" }]);
  response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", "request-id": "req_bench" });
  response.end(events.map(([event, data]) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`).join(""));
}
