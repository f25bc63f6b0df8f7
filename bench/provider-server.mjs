// The local server of bench/providers.mjs, in its own process so that its work is not timed with the client's:
// `node bench/provider-server.mjs` listens on 127.0.0.1 at a random port, prints {"port":…}, and answers every
// request with the recorded response of the API its path names (test/fixtures/providers), always the same bytes.
import { readFileSync } from "node:fs";
import { createServer } from "node:http";

const fixture = (file) => readFileSync(new URL(`../test/fixtures/providers/${file}`, import.meta.url));

/** Which recorded body answers which path: Anthropic Messages, Chat Completions, Responses, Gemini, Bedrock Converse. */
const routes = [
  [/\/v1\/messages$/, fixture("anthropic/messages-end-turn-text.json")],
  [/\/chat\/completions$/, fixture("openai/chat-text-stop.json")],
  [/\/responses$/, fixture("openai-responses/responses-text.json")],
  [/:generateContent$/, fixture("google/generate-text-thoughts-token-count.json")],
  [/\/converse$/, fixture("bedrock/converse-text.json")],
];

const server = createServer((request, response) => {
  request.resume();
  request.on("end", () => {
    const path = (request.url ?? "").split("?")[0];
    const body = routes.find(([pattern]) => pattern.test(path))?.[1];
    if (!body) {
      response.writeHead(404, { "content-type": "application/json" }).end(`{"error":"no route for ${path}"}`);
      return;
    }
    response.writeHead(200, { "content-type": "application/json", "content-length": body.length }).end(body);
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, "127.0.0.1", () => process.stdout.write(`${JSON.stringify({ port: server.address().port })}\n`));
process.on("SIGTERM", () => server.close(() => process.exit(0)));
