import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { formatServerSentEvents, type WireResponse } from "../../src/testing/wire-server.js";

/** The recorded provider responses (copied into the repository from the team's shared set; see their README and PROVENANCE). */
export const fixturesRoot = fileURLToPath(new URL("../fixtures/providers/", import.meta.url));

/** Response headers worth replaying: the ones that change what a client does. */
const replayedHeaders = [
  "retry-after",
  "retry-after-ms",
  "x-should-retry",
  "request-id",
  "x-request-id",
  // AWS: the exception's name lives only in this header (the SDK reads it to pick the error class), and the request id.
  "x-amzn-errortype",
  "x-amzn-requestid",
];

/** The raw text of a fixture file, e.g. "anthropic/messages-end-turn-text.json". */
export function fixtureText(file: string): string {
  if (!existsSync(`${fixturesRoot}${file}`)) throw new Error(`No recorded provider fixture ${file} in ${fixturesRoot}.`);
  return readFileSync(`${fixturesRoot}${file}`, "utf8");
}

/** The bytes of a binary fixture, e.g. "bedrock/stream-text.eventstream". */
export function fixtureBytes(file: string): Uint8Array {
  if (!existsSync(`${fixturesRoot}${file}`)) throw new Error(`No recorded provider fixture ${file} in ${fixturesRoot}.`);
  return readFileSync(`${fixturesRoot}${file}`);
}

/** A JSON fixture, parsed. */
export function fixtureJson<T = unknown>(file: string): T {
  return JSON.parse(fixtureText(file)) as T;
}

type Meta = { status?: number; headers?: Record<string, string> | null };

/**
 * A fixture as a wire-server reply, with the status and retry-relevant headers of its `.meta.json`.
 * `.json` bodies are served byte for byte; `.sse` streams as recorded; `.eventstream` bodies (AWS's binary
 * event-stream framing) byte for byte, as `application/vnd.amazon.eventstream`; `.chunks.jsonl` payloads are
 * framed the way their provider frames them (Anthropic and the Responses API name each event after its
 * `type`; Chat Completions streams end with `data: [DONE]`).
 */
export function fixtureReply(
  name: string,
  options: { chunkSize?: number; status?: number; headers?: Record<string, string> } = {},
): WireResponse {
  const base = name.replace(/\.(json|sse|eventstream|chunks\.jsonl)$/, "");
  const metaFile = `${fixturesRoot}${base}.meta.json`;
  const meta: Meta = existsSync(metaFile) ? (JSON.parse(readFileSync(metaFile, "utf8")) as Meta) : {};
  const headers: Record<string, string> = {};
  for (const [key, value] of Object.entries(meta.headers ?? {})) if (replayedHeaders.includes(key)) headers[key] = value;
  Object.assign(headers, options.headers);
  const status = options.status ?? meta.status ?? 200;
  if (name.endsWith(".json")) return { status, headers, body: fixtureText(name) };
  const chunkSize = options.chunkSize !== undefined ? { chunkSize: options.chunkSize } : {};
  if (name.endsWith(".sse")) return { status, headers, sse: fixtureText(name), ...chunkSize };
  if (name.endsWith(".eventstream"))
    return {
      status,
      headers: { "content-type": "application/vnd.amazon.eventstream", ...headers },
      bytes: fixtureBytes(name),
      ...chunkSize,
    };
  const lines = fixtureText(name)
    .split("\n")
    .filter((line) => line.trim() !== "");
  // Anthropic and the Responses API name every event after its `type` and send no [DONE].
  const named = name.startsWith("anthropic/") || name.startsWith("openai-responses/");
  const events = lines.map((data) => (named ? { event: (JSON.parse(data) as { type: string }).type, data } : { data }));
  return { status, headers, sse: formatServerSentEvents(events, { done: !named }), ...chunkSize };
}
