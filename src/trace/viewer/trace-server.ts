import { readFile } from "node:fs/promises";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type LoadedTrace, TraceDirectory, TraceFileError } from "./trace-directory.js";
import { spanCosts } from "./trace-summary.js";
import { type DirectoryChange, watchTraceDirectory } from "./watch-directory.js";

/** Options of {@link startTraceServer}. */
export type TraceServerOptions = {
  /** A directory of trace (.json) and session (.jsonl) files, or one such file. */
  path: string;
  /** The port on 127.0.0.1; 0 (the default) picks a free one. */
  port?: number | undefined;
  /** Where the page's files are (default: `page/` beside this module, as built into `dist/`). */
  assetsDirectory?: string | undefined;
  /** How often the directory is scanned for changes when fs.watch cannot be used, or as a safety net (ms). */
  pollMs?: number | undefined;
  /**
   * The largest trace or session file served, in bytes (default `defaultMaxTraceBytes`, 100 MB): a larger one
   * answers 413 with the limit and how to raise it, and is listed as `too_large` without being read.
   */
  maxTraceBytes?: number | undefined;
};

/** A running viewer. */
export type TraceServer = {
  /** `http://127.0.0.1:<port>/` */
  url: string;
  port: number;
  /** The directory served (its real path). */
  root: string;
  /** The one file served, when the viewer was given a file. */
  only: string | undefined;
  /** Stops watching, ends the live connections and closes the server. */
  close: () => Promise<void>;
};

/** The page's files: the only names served outside `/api/`. */
const assets: Record<string, { file: string; type: string }> = {
  "/": { file: "index.html", type: "text/html; charset=utf-8" },
  "/index.html": { file: "index.html", type: "text/html; charset=utf-8" },
  "/viewer.css": { file: "viewer.css", type: "text/css; charset=utf-8" },
};
const pageModule = /^\/([a-z][a-z-]*)\.js$/;

/**
 * Starts the trace viewer's server on 127.0.0.1: the page, and a JSON API over the traces of one directory.
 *
 * - `GET /api/traces`: the list, newest first (`TraceSummary[]`).
 * - `GET /api/traces/<file name>`: `{ summary, trace, costs }`; the trace of a session file is built from its lines.
 *   Concurrent requests for one file share one read and one answer; a file over `maxTraceBytes` answers 413.
 * - `GET /api/events`: Server-Sent Events; a `change` event (`{ changed, removed }`: file names) when a trace
 *   file appears, grows or goes away.
 *
 * Only files directly inside the directory are read (see {@link TraceDirectory}); requests whose Host is not
 * this server's (a DNS-rebinding page) are refused.
 */
export async function startTraceServer(options: TraceServerOptions): Promise<TraceServer> {
  const directory = await TraceDirectory.open(options.path, { maxTraceBytes: options.maxTraceBytes });
  // The answer for a trace read, built and encoded once for every request sharing that read: sixteen requests for a
  // large trace send one buffer, not sixteen copies of it.
  const bodies = new WeakMap<LoadedTrace, Buffer>();
  const assetsDirectory = options.assetsDirectory ?? fileURLToPath(new URL("./page/", import.meta.url));
  const listeners = new Set<ServerResponse>();
  let port = 0;

  const server: Server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (error instanceof TraceFileError) sendJson(response, error.status, { error: error.message });
      else sendJson(response, 500, { error: error instanceof Error ? error.message : String(error) });
    });
  });

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const host = request.headers.host ?? "";
    if (host !== `127.0.0.1:${port}` && host !== `localhost:${port}`)
      return sendJson(response, 403, { error: `This viewer answers only to 127.0.0.1:${port}.` });
    if (request.method !== "GET" && request.method !== "HEAD") return sendJson(response, 405, { error: "Only GET is served." });
    const path = (request.url ?? "/").split("?")[0] as string;
    if (path === "/api/traces") return sendJson(response, 200, await directory.list());
    if (path === "/api/events") return openEvents(response);
    if (path.startsWith("/api/traces/")) {
      let name: string;
      try {
        name = decodeURIComponent(path.slice("/api/traces/".length));
      } catch {
        return sendJson(response, 400, { error: "The file name is not valid URL encoding." });
      }
      const loaded = await directory.read(name);
      let body = bodies.get(loaded);
      if (body === undefined) {
        // A trace file's own text goes out as it is (it was just parsed and checked): a 40,000-span trace is not
        // stringified again.
        const { summary, trace, json } = loaded;
        body = Buffer.from(
          `{"summary":${JSON.stringify(summary)},"costs":${JSON.stringify(spanCosts(trace))},"trace":${json ?? JSON.stringify(trace)}}`,
        );
        bodies.set(loaded, body);
      }
      return sendBody(response, 200, body);
    }
    const asset = assets[path] ?? (pageModule.test(path) ? { file: path.slice(1), type: "text/javascript; charset=utf-8" } : undefined);
    if (!asset) return sendJson(response, 404, { error: `Nothing at ${path}.` });
    const body = await readFile(join(assetsDirectory, asset.file)).catch(() => undefined);
    if (!body) return sendJson(response, 404, { error: `The page's file ${asset.file} is missing from ${assetsDirectory}.` });
    response.writeHead(200, { ...securityHeaders, "content-type": asset.type, "content-length": body.length });
    response.end(request.method === "HEAD" ? undefined : body);
  }

  function openEvents(response: ServerResponse): void {
    response.writeHead(200, { ...securityHeaders, "content-type": "text/event-stream", connection: "keep-alive" });
    // retry: how soon the browser reconnects after the server restarts.
    response.write("retry: 1000\n: connected\n\n");
    listeners.add(response);
    response.on("close", () => listeners.delete(response));
  }

  const broadcast = (change: DirectoryChange): void => {
    const message = `event: change\ndata: ${JSON.stringify(change)}\n\n`;
    for (const listener of listeners) listener.write(message);
  };
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  port = (server.address() as AddressInfo).port;
  // Watching starts once the server listens: a start that fails (a busy port) leaves nothing running.
  const stopWatching = watchTraceDirectory(directory.root, broadcast, { only: directory.only, pollMs: options.pollMs });
  // A comment now and then keeps proxies and idle timers from closing a quiet stream.
  const keepAlive = setInterval(() => {
    for (const listener of listeners) listener.write(": keep-alive\n\n");
  }, 15_000);
  keepAlive.unref();
  return {
    url: `http://127.0.0.1:${port}/`,
    port,
    root: directory.root,
    only: directory.only,
    close: async () => {
      stopWatching();
      clearInterval(keepAlive);
      for (const listener of listeners) listener.end();
      listeners.clear();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const securityHeaders = {
  "cache-control": "no-store",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  // The page loads nothing from anywhere else: no CDN, no fonts, no analytics.
  "content-security-policy": "default-src 'self'; img-src 'self' data:; style-src 'self'; frame-ancestors 'none'",
};

function sendJson(response: ServerResponse, status: number, value: unknown): void {
  sendBody(response, status, JSON.stringify(value));
}

function sendBody(response: ServerResponse, status: number, body: string | Buffer): void {
  response.writeHead(status, { ...securityHeaders, "content-type": "application/json; charset=utf-8" });
  response.end(body);
}
