import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** A request the wire server received. */
export type WireRequest = {
  method: string;
  /** Path and query, e.g. "/v1/messages". */
  path: string;
  /** Lower-cased headers. Credentials (`authorization`, `x-api-key`, `api-key`, `x-goog-api-key`) read "<redacted>" unless the server keeps them. */
  headers: Record<string, string>;
  /** The body parsed as JSON, or the raw text when it is not JSON. */
  body: unknown;
  /** The raw body text. */
  text: string;
};

/** Response headers and status shared by every kind of reply, and how the body may fail part-way. */
type WireResponseHead = {
  status?: number | undefined;
  headers?: Record<string, string> | undefined;
  /**
   * Drop the connection after writing this many bytes of the body (0: right after the headers), as a
   * proxy or a crashing server does. Clients see the body end in an error.
   */
  dropAfterBytes?: number | undefined;
  /**
   * Stop writing after this many bytes of the body (0: right after the headers) and keep the connection
   * open without another byte, as a stalled server does, until the client gives up or the server closes.
   */
  stallAfterBytes?: number | undefined;
};

/**
 * One scripted response: a JSON body, a raw body, a server-sent event stream (written in pieces of
 * `chunkSize` bytes to exercise parsers at arbitrary boundaries, even inside a UTF-8 character, and
 * optionally `chunkDelayMs` apart, as a slow model would), a binary body (`bytes`, e.g. an AWS
 * event stream, written byte for byte in pieces of `chunkSize` bytes that may split a frame anywhere;
 * `content-type` application/octet-stream unless `headers` say otherwise), a dropped connection before
 * any response (`reset`), which clients see as a connection error, or no response at all (`stall`: the
 * request is read and never answered). A body can also be dropped or stalled part-way (`dropAfterBytes`,
 * `stallAfterBytes`).
 * @example
 * server.reply({ bytes: readFileSync("stream.eventstream"), chunkSize: 7, headers: { "content-type": "application/vnd.amazon.eventstream" } });
 */
export type WireResponse =
  | (WireResponseHead & { json: unknown })
  | (WireResponseHead & { body: string })
  | (WireResponseHead & { sse: string; chunkSize?: number | undefined; chunkDelayMs?: number | undefined })
  | (WireResponseHead & { bytes: Uint8Array; chunkSize?: number | undefined; chunkDelayMs?: number | undefined })
  | { reset: true }
  | { stall: true };

/** A queued reply: a response, or a function of the request that returns one. */
export type WireReply = WireResponse | ((request: WireRequest) => WireResponse | Promise<WireResponse>);

/** A local HTTP server that answers each request with the next queued reply and records what it was sent. */
export type WireServer = {
  /** Base URL, e.g. "http://127.0.0.1:49152". */
  url: string;
  /** Every request received, in order. */
  requests: WireRequest[];
  /** Queues replies, used one per request in order. A request with no reply left gets a 501 that says so. */
  reply(...replies: WireReply[]): WireServer;
  /** Stops the server and drops open connections. */
  close(): Promise<void>;
};

/** Settings of a wire server. */
export type WireServerOptions = {
  /** Record credential headers as sent instead of "<redacted>" (only to assert that a key is sent). */
  keepCredentials?: boolean | undefined;
};

const credentialHeaders = new Set(["authorization", "x-api-key", "api-key", "x-goog-api-key", "proxy-authorization"]);

/**
 * Starts a wire-format server on 127.0.0.1 at a random port, for testing model adapters (or anything
 * speaking HTTP) offline: queue the bodies a provider would send, run the real SDK against `url`,
 * then assert on `requests`. Always `close()` it (e.g. in `afterEach`).
 * @example
 * const server = await startWireServer();
 * server.reply({ json: { content: [{ type: "text", text: "Hi" }], stop_reason: "end_turn" } });
 * const model = new AnthropicModel({ model: "claude-test", apiKey: "test", baseURL: server.url });
 */
export async function startWireServer(options: WireServerOptions = {}): Promise<WireServer> {
  const queue: WireReply[] = [];
  const requests: WireRequest[] = [];
  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (!response.headersSent) response.writeHead(500, { "content-type": "text/plain" });
      response.end(`wire server failed: ${error instanceof Error ? error.message : String(error)}`);
    });
  });

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const received = await readRequest(request, options.keepCredentials ?? false);
    requests.push(received);
    const next = queue.shift();
    if (next === undefined) {
      const message = `wire server: no reply queued for request ${requests.length} (${received.method} ${received.path})`;
      response.writeHead(501, { "content-type": "application/json" });
      response.end(JSON.stringify({ type: "error", error: { type: "no_reply_queued", message } }));
      return;
    }
    await send(response, typeof next === "function" ? await next(received) : next);
  }

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const wire: WireServer = {
    url: `http://127.0.0.1:${port}`,
    requests,
    reply(...replies) {
      queue.push(...replies);
      return wire;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
  return wire;
}

async function readRequest(request: IncomingMessage, keepCredentials: boolean): Promise<WireRequest> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString("utf8");
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined) continue;
    headers[name] = !keepCredentials && credentialHeaders.has(name) ? "<redacted>" : Array.isArray(value) ? value.join(", ") : value;
  }
  return { method: request.method ?? "GET", path: request.url ?? "/", headers, body: parseJson(text), text };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

async function send(response: ServerResponse, reply: WireResponse): Promise<void> {
  if ("reset" in reply) {
    response.socket?.destroy();
    return;
  }
  if ("stall" in reply) return waitForClose(response);
  const status = reply.status ?? 200;
  let bytes: Buffer;
  let size: number;
  if ("sse" in reply) {
    response.writeHead(status, { "content-type": "text/event-stream", "cache-control": "no-cache", ...reply.headers });
    bytes = Buffer.from(reply.sse, "utf8");
    size = reply.chunkSize ?? bytes.length;
  } else if ("bytes" in reply) {
    response.writeHead(status, { "content-type": "application/octet-stream", ...reply.headers });
    bytes = Buffer.from(reply.bytes.buffer, reply.bytes.byteOffset, reply.bytes.byteLength);
    size = reply.chunkSize ?? bytes.length;
  } else {
    response.writeHead(status, { "content-type": "application/json", ...reply.headers });
    bytes = Buffer.from("json" in reply ? JSON.stringify(reply.json) : reply.body, "utf8");
    size = bytes.length;
  }
  const { dropAfterBytes, stallAfterBytes } = reply;
  const cutAt = Math.min(dropAfterBytes ?? Number.POSITIVE_INFINITY, stallAfterBytes ?? Number.POSITIVE_INFINITY);
  if (cutAt === Number.POSITIVE_INFINITY && size >= bytes.length) {
    response.end(bytes);
    return;
  }
  // The headers leave now, before any (possibly stalled) body byte.
  response.flushHeaders();
  const end = Math.min(cutAt, bytes.length);
  for (let start = 0; start < end; start += size) {
    response.write(bytes.subarray(start, Math.min(start + size, end)));
    if (response.destroyed) return; // the client went away (an abort)
    // Yield between pieces so that they leave as separate writes rather than one coalesced buffer.
    if (("sse" in reply || "bytes" in reply) && reply.chunkDelayMs) await new Promise((resolve) => setTimeout(resolve, reply.chunkDelayMs));
    else if (size < end) await new Promise((resolve) => setImmediate(resolve));
  }
  if (cutAt === Number.POSITIVE_INFINITY || cutAt >= bytes.length) response.end();
  else if (dropAfterBytes !== undefined && dropAfterBytes === cutAt) {
    // Let the bytes written so far reach the client, then cut the connection without ending the body.
    await new Promise((resolve) => setTimeout(resolve, 10));
    response.socket?.destroy();
  } else await waitForClose(response);
}

/** Resolves when the client (or the server's close) ends the connection. */
function waitForClose(response: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    if (response.socket === null || response.socket.destroyed) resolve();
    else response.socket.once("close", () => resolve());
  });
}

/**
 * Frames payloads as a server-sent event stream: `event:` lines where given, one `data:` line each,
 * blank-line separators. Pass `done: true` to end with OpenAI's `data: [DONE]`.
 * @example formatServerSentEvents([{ event: "message_stop", data: '{"type":"message_stop"}' }])
 */
export function formatServerSentEvents(
  events: readonly { event?: string | undefined; data: string }[],
  options: { done?: boolean | undefined } = {},
): string {
  const frames = events.map(({ event, data }) => `${event === undefined ? "" : `event: ${event}\n`}data: ${data}\n\n`);
  if (options.done) frames.push("data: [DONE]\n\n");
  return frames.join("");
}
