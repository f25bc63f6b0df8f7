// A local OpenAI-compatible Chat Completions server for S3: it answers from a script and keeps every
// request body as sent. It listens on 127.0.0.1 at a random port; callers always close it.
import { createServer } from "node:http";

/** `reply(index)` gives the assistant message for the index-th request. */
export async function startChatCompletionsServer(reply) {
  const requests = [];
  const server = createServer(async (request, response) => {
    const chunks = [];
    for await (const chunk of request) chunks.push(chunk);
    const text = Buffer.concat(chunks).toString("utf8");
    const index = requests.length;
    requests.push({ path: request.url, body: text });
    if (!request.url.endsWith("/chat/completions")) {
      response.writeHead(404, { "content-type": "application/json" });
      response.end(JSON.stringify({ error: { message: `the bench server only speaks /chat/completions, got ${request.url}` } }));
      return;
    }
    const message = reply(index);
    if (JSON.parse(text).stream === true) {
      streamMessage(response, index, message);
      return;
    }
    const body = {
      id: `chatcmpl-${index}`,
      object: "chat.completion",
      created: 1_700_000_000,
      model: "bench-model",
      choices: [{ index: 0, message, finish_reason: message.tool_calls ? "tool_calls" : "stop" }],
      usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
    };
    response.writeHead(200, { "content-type": "application/json" });
    response.end(JSON.stringify(body));
  });
  await new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", resolve);
  });
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** The same reply as a Chat Completions stream: one delta with everything, the finish reason, usage, [DONE]. */
function streamMessage(response, index, message) {
  const chunk = (choices, extra = {}) =>
    `data: ${JSON.stringify({ id: `chatcmpl-${index}`, object: "chat.completion.chunk", created: 1_700_000_000, model: "bench-model", choices, ...extra })}\n\n`;
  const delta = { role: "assistant", content: message.content ?? "" };
  if (message.tool_calls) delta.tool_calls = message.tool_calls.map((call, position) => ({ index: position, ...call }));
  response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  response.write(chunk([{ index: 0, delta, finish_reason: null }]));
  response.write(chunk([{ index: 0, delta: {}, finish_reason: message.tool_calls ? "tool_calls" : "stop" }]));
  response.write(chunk([], { usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } }));
  response.end("data: [DONE]\n\n");
}
