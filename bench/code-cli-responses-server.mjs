// bench/code-cli.mjs's model on OpenAI's wire: a scripted Responses API (`POST /v1/responses`) on 127.0.0.1, streamed
// as the real API streams it (response.created, in_progress, output_item.added, the deltas and their done events,
// output_item.done, response.completed with usage; the shapes of test/fixtures/providers/openai-responses/*.sse) when
// the request says `stream: true`, else one response object. A request whose tools hold the task's tools gets the
// three-turn task: list the files, read notes.txt, answer. Two dialects of those tools:
//   minagent's Bash and Read: Bash {command: "ls"}, then Read {file_path};
//   Codex's shell, which has no Read tool: exec_command {cmd: "ls"}, then exec_command {cmd: "cat notes.txt"}
//   (older Codex releases call it `shell` and take an argv; that is answered too).
// A request without them (a title, a summary…) gets a short text. Every request is recorded as code-cli-server.mjs
// records them (size, body, arrival of its headers and of its whole body).
import { createServer } from "node:http";
import { basename } from "node:path";
import { gunzipSync } from "node:zlib";
import { listenOnLoopback } from "./listen-on-loopback.mjs";

/**
 * @param {{ command: string, filePath: string, answer: string }} script what the model asks for and answers
 * @returns {Promise<{ url: string, requests: import("./code-cli-server.mjs").ReceivedRequest[], close: () => Promise<void> }>}
 */
export async function startResponsesServer(script) {
  const requests = [];
  const server = createServer((request, response) => {
    const startedAt = performance.now();
    const chunks = [];
    request.on("data", (chunk) => chunks.push(chunk));
    request.on("end", () => {
      const receivedAt = performance.now();
      const raw = Buffer.concat(chunks);
      let body;
      try {
        // Bytes are counted as they came over the wire; the body is read uncompressed.
        const plain = request.headers["content-encoding"] === "gzip" ? gunzipSync(raw) : raw;
        body = JSON.parse(plain.toString("utf8"));
      } catch {
        body = undefined;
      }
      const dialect = toolDialect(body);
      const path = request.url ?? "/";
      requests.push({ path, startedAt, receivedAt, bytes: raw.length, body, agentTurn: dialect !== undefined });
      answer(request.method ?? "GET", path, body, dialect, script, response);
    });
  });
  const { url, close } = await listenOnLoopback(server);
  return { url, requests, close };
}

/** Which of the task's tool sets a request offers: "minagent" (Bash, Read), "exec" or "shell" (Codex), or none. */
function toolDialect(body) {
  const names = new Set((body?.tools ?? []).map((tool) => tool.name));
  if (names.has("Bash") && names.has("Read")) return "minagent";
  if (names.has("exec_command")) return "exec";
  if (names.has("shell")) return "shell";
  return undefined;
}

/** The calls of the task in a dialect: [name, arguments] of the listing, then of the file's reading. */
function taskCalls(dialect, script) {
  const file = basename(script.filePath);
  if (dialect === "minagent")
    return [
      ["Bash", { command: script.command, description: "List the files" }],
      ["Read", { file_path: script.filePath }],
    ];
  if (dialect === "exec")
    return [
      ["exec_command", { cmd: script.command }],
      ["exec_command", { cmd: `cat ${file}` }],
    ];
  return [
    ["shell", { command: ["bash", "-lc", script.command] }],
    ["shell", { command: ["bash", "-lc", `cat ${file}`] }],
  ];
}

/** Tool results in a request's input: one `function_call_output` item per call the client ran. */
export function functionCallOutputs(body) {
  return (body?.input ?? []).filter((item) => item?.type === "function_call_output");
}

/** The text of a `function_call_output`: a string, or (newer clients) a list of content parts. */
export function outputText(item) {
  if (item === undefined) return undefined;
  if (typeof item.output === "string") return item.output;
  if (Array.isArray(item.output)) return item.output.map((part) => part.text ?? "").join("");
  return JSON.stringify(item.output);
}

function answer(method, path, body, dialect, script, response) {
  const route = path.split("?")[0];
  if (method === "GET" && route === "/v1/models") return json(response, 200, { object: "list", data: [] });
  if (route !== "/v1/responses" || body === undefined)
    return json(response, 404, { error: { type: "invalid_request_error", code: "not_found", message: `no ${route} here` } });
  const done = dialect === undefined ? 0 : functionCallOutputs(body).length;
  const id = randomId();
  let item;
  if (dialect !== undefined && done < 2) {
    const [name, args] = taskCalls(dialect, script)[done];
    item = { type: "function_call", id: `fc_${id}`, call_id: `call_bench_${done + 1}`, name, arguments: JSON.stringify(args) };
  } else {
    const text = dialect !== undefined ? script.answer : "Benchmark session";
    item = { type: "message", id: `msg_${id}`, role: "assistant", content: [{ type: "output_text", text, annotations: [] }] };
  }
  const inputTokens = Math.ceil(JSON.stringify(body).length / 4);
  const usage = {
    input_tokens: inputTokens,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: 24,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: inputTokens + 24,
  };
  const shell = {
    id: `resp_${id}`,
    object: "response",
    created_at: Math.floor(Date.now() / 1000),
    model: body.model ?? "gpt-5.5",
    parallel_tool_calls: body.parallel_tool_calls ?? true,
    tool_choice: body.tool_choice ?? "auto",
    store: body.store ?? false,
    error: null,
    incomplete_details: null,
    previous_response_id: null,
  };
  const finished = { ...item, status: "completed" };
  const completed = { ...shell, status: "completed", output: [finished], usage };
  if (!body.stream) return json(response, 200, completed);
  const inProgress = { ...shell, status: "in_progress", output: [], usage: null };
  const events = [
    { type: "response.created", response: inProgress },
    { type: "response.in_progress", response: inProgress },
  ];
  if (item.type === "function_call") {
    events.push({ type: "response.output_item.added", output_index: 0, item: { ...item, arguments: "", status: "in_progress" } });
    const at = { item_id: item.id, output_index: 0 };
    events.push({ type: "response.function_call_arguments.delta", ...at, delta: item.arguments });
    events.push({ type: "response.function_call_arguments.done", ...at, arguments: item.arguments });
  } else {
    events.push({ type: "response.output_item.added", output_index: 0, item: { ...item, content: [], status: "in_progress" } });
    const at = { item_id: item.id, output_index: 0, content_index: 0 };
    const { text } = item.content[0];
    events.push({ type: "response.content_part.added", ...at, part: { type: "output_text", text: "", annotations: [] } });
    events.push({ type: "response.output_text.delta", ...at, delta: text });
    events.push({ type: "response.output_text.done", ...at, text });
    events.push({ type: "response.content_part.done", ...at, part: item.content[0] });
  }
  events.push({ type: "response.output_item.done", output_index: 0, item: finished });
  events.push({ type: "response.completed", response: completed });
  response.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache", "x-request-id": "req_bench" });
  response.end(
    events.map((event, index) => `event: ${event.type}\ndata: ${JSON.stringify({ ...event, sequence_number: index })}\n\n`).join(""),
  );
}

function randomId() {
  return Math.random().toString(36).slice(2, 14);
}

function json(response, status, value) {
  response.writeHead(status, { "content-type": "application/json", "x-request-id": "req_bench" });
  response.end(JSON.stringify(value));
}
