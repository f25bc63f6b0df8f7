import { lookup } from "node:dns/promises";
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from "node:http";
import { isIP, connect as netConnect, type Socket } from "node:net";
import type { Duplex } from "node:stream";

/** A host and port a sandboxed command wants to reach. */
export type NetworkRequest = { host: string; port: number };

/** What the proxy decided for one request, for logs and `/sandbox`. */
export type NetworkDecision = NetworkRequest & { allowed: boolean; reason: string };

/** Settings of {@link startNetworkProxy}. */
export type NetworkProxyOptions = {
  /**
   * The Unix socket to listen on (on Linux the sandbox bridges a loopback port inside to it). Without it the proxy
   * listens on a free port of 127.0.0.1 (macOS, where commands share the host's loopback).
   */
  socketPath?: string | undefined;
  /** Hosts that may be reached: `example.com`, `*.example.com` (its subdomains), `localhost`, `127.0.0.1:8080`. */
  allowedDomains: readonly string[];
  /**
   * Hosts (`host` or `host:port`) refused unless `allowedDomains` names them exactly, whatever a wildcard says: the
   * agent's own model API, whose key the agent holds.
   */
  closedHosts?: readonly string[] | undefined;
  /** Asked about a host no entry allows; `true` allows it for the rest of the session. Without it such a host is refused. */
  ask?: ((request: NetworkRequest) => boolean | Promise<boolean>) | undefined;
  /** Told of every decision. */
  onDecision?: ((decision: NetworkDecision) => void) | undefined;
};

/** A running proxy: {@link startNetworkProxy}. */
export type NetworkProxy = {
  readonly socketPath: string | undefined;
  /** The loopback port it listens on, when it listens on one. */
  readonly port: number | undefined;
  /** Hosts allowed during this session by a person's answer. */
  readonly approved: ReadonlySet<string>;
  close(): Promise<void>;
};

/**
 * An HTTP proxy for sandboxed commands, listening on a Unix socket: `CONNECT host:port` (HTTPS and any TCP) and
 * absolute-form requests (`GET http://host/path`). It decides on the request's real target — the CONNECT authority
 * or the request URL, never a `Host` header — and connects to the address it checked, so a name that resolves to
 * loopback or link-local (cloud metadata) is refused unless `allowedDomains` names that host exactly.
 */
export async function startNetworkProxy(options: NetworkProxyOptions): Promise<NetworkProxy> {
  const approved = new Set<string>();
  const decide = async (request: NetworkRequest): Promise<{ allowed: boolean; reason: string; address?: string }> => {
    const verdict = judgeTarget(request, options, approved);
    let allowed = verdict.allowed;
    let reason = verdict.reason;
    if (!allowed && verdict.askable && options.ask) {
      allowed = await Promise.resolve(options.ask(request)).catch(() => false);
      reason = allowed ? "a person allowed it" : "a person refused it";
      if (allowed) approved.add(request.host);
    }
    if (!allowed) return { allowed, reason };
    const address = await resolveTarget(request.host, verdict.exact).catch((error: Error) => ({ error: error.message }));
    if (typeof address !== "string") return { allowed: false, reason: address.error };
    return { allowed, reason, address };
  };
  const record = (request: NetworkRequest, allowed: boolean, reason: string) => options.onDecision?.({ ...request, allowed, reason });

  const server = createServer((request, response) => {
    void forwardRequest(request, response, decide, record);
  });
  server.on("connect", (request: IncomingMessage, client: Duplex, head: Buffer) => {
    void openTunnel(request, client, head, decide, record);
  });
  const sockets = new Set<Duplex>();
  server.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    const listening = () => {
      server.off("error", reject);
      resolve();
    };
    if (options.socketPath !== undefined) server.listen(options.socketPath, listening);
    else server.listen(0, "127.0.0.1", listening);
  });
  return {
    socketPath: options.socketPath,
    port: options.socketPath === undefined ? (server.address() as { port: number }).port : undefined,
    approved,
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

type Decide = (request: NetworkRequest) => Promise<{ allowed: boolean; reason: string; address?: string }>;
type RecordDecision = (request: NetworkRequest, allowed: boolean, reason: string) => void;

async function openTunnel(request: IncomingMessage, client: Duplex, head: Buffer, decide: Decide, record: RecordDecision): Promise<void> {
  client.on("error", () => client.destroy());
  const target = parseAuthority(request.url ?? "", 443);
  if (!target) return void client.end(refusal(400, `"${request.url}" is not a host:port the proxy can connect to.`));
  const decision = await decide(target);
  record(target, decision.allowed, decision.reason);
  if (!decision.allowed || decision.address === undefined) return void client.end(refusal(403, explainRefusal(target, decision.reason)));
  const upstream = netConnect({ host: decision.address, port: target.port });
  upstream.once("connect", () => {
    client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
    if (head.length > 0) upstream.write(head);
    upstream.pipe(client);
    client.pipe(upstream);
  });
  upstream.on("error", (error) => {
    if (client.writable && upstream.connecting)
      client.end(refusal(502, `Could not connect to ${target.host}:${target.port}: ${error.message}`));
    else client.destroy();
  });
  client.on("close", () => upstream.destroy());
}

async function forwardRequest(request: IncomingMessage, response: ServerResponse, decide: Decide, record: RecordDecision): Promise<void> {
  let url: URL;
  try {
    url = new URL(request.url ?? "");
  } catch {
    return sendRefusal(
      response,
      400,
      "The sandbox's proxy takes absolute URLs (http://host/path) and CONNECT; this request named neither.",
    );
  }
  if (url.protocol !== "http:") return sendRefusal(response, 400, `The proxy forwards http:// requests; use CONNECT for ${url.protocol}.`);
  const target = { host: normalizeHost(url.hostname), port: url.port === "" ? 80 : Number(url.port) };
  const decision = await decide(target);
  record(target, decision.allowed, decision.reason);
  if (!decision.allowed || decision.address === undefined) return sendRefusal(response, 403, explainRefusal(target, decision.reason));
  const headers: Record<string, string | string[] | undefined> = { ...request.headers, host: url.host };
  delete headers["proxy-connection"];
  delete headers["proxy-authorization"];
  const upstream = httpRequest(
    { host: decision.address, port: target.port, method: request.method, path: `${url.pathname}${url.search}`, headers },
    (answer) => {
      response.writeHead(answer.statusCode ?? 502, answer.statusMessage, answer.headers);
      answer.pipe(response);
    },
  );
  upstream.on("error", (error) => {
    if (!response.headersSent) sendRefusal(response, 502, `Could not reach ${target.host}:${target.port}: ${error.message}`);
    else response.destroy();
  });
  request.pipe(upstream);
}

/** The policy without name resolution: whether `allowedDomains`, the closed hosts and the session's answers allow it. */
export function judgeTarget(
  request: NetworkRequest,
  options: Pick<NetworkProxyOptions, "allowedDomains" | "closedHosts">,
  approved: ReadonlySet<string> = new Set(),
): { allowed: boolean; reason: string; askable: boolean; exact: boolean } {
  const host = normalizeHost(request.host);
  const exact = options.allowedDomains.find((pattern) => matchesExactly(pattern, host, request.port));
  if (exact) return { allowed: true, reason: `allowed by "${exact}"`, askable: false, exact: true };
  const closed = (options.closedHosts ?? []).find((closedHost) => matchesExactly(closedHost, host, request.port));
  if (closed) return { allowed: false, reason: "it is the agent's own model API", askable: false, exact: false };
  if (isLoopbackHost(host))
    return {
      allowed: false,
      reason: "it is the host's loopback, which only an exact allowedDomains entry opens",
      askable: true,
      exact: false,
    };
  const wildcard = options.allowedDomains.find((pattern) => matchesWildcard(pattern, host, request.port));
  if (wildcard) return { allowed: true, reason: `allowed by "${wildcard}"`, askable: false, exact: false };
  if (approved.has(host)) return { allowed: true, reason: "a person allowed it this session", askable: false, exact: true };
  return { allowed: false, reason: "no sandbox.network.allowedDomains entry allows it", askable: true, exact: false };
}

function matchesExactly(pattern: string, host: string, port: number): boolean {
  if (pattern.startsWith("*.")) return false;
  const target = parseAuthority(pattern, 0);
  return target !== undefined && target.host === host && (target.port === 0 || target.port === port);
}

function matchesWildcard(pattern: string, host: string, port: number): boolean {
  if (!pattern.startsWith("*.")) return false;
  const target = parseAuthority(pattern.slice(2), 0);
  return target !== undefined && host.endsWith(`.${target.host}`) && (target.port === 0 || target.port === port);
}

/** Resolves once and returns the address to connect to; a name that leads to loopback or link-local needs an exact entry. */
async function resolveTarget(host: string, exact: boolean): Promise<string> {
  if (isIP(host)) return host;
  const addresses = await lookup(host, { all: true });
  const first = addresses[0];
  if (!first) throw new Error(`${host} does not resolve`);
  const inner = addresses.find((address) => isLoopbackHost(address.address) || isLinkLocal(address.address));
  if (inner && !exact)
    throw new Error(`${host} resolves to ${inner.address}, an address of this machine, which only an exact allowedDomains entry opens`);
  return first.address;
}

/** `localhost`, `*.localhost`, 127.0.0.0/8, ::1, the unspecified addresses. */
function isLoopbackHost(host: string): boolean {
  return (
    host === "localhost" ||
    host.endsWith(".localhost") ||
    /^127\./.test(host) ||
    host === "::1" ||
    host === "0.0.0.0" ||
    host === "::" ||
    /^::ffff:127\./i.test(host)
  );
}

function isLinkLocal(address: string): boolean {
  return /^169\.254\./.test(address) || /^fe[89ab][0-9a-f]:/i.test(address);
}

function normalizeHost(host: string): string {
  return host
    .replace(/^\[|\]$/g, "")
    .replace(/\.$/, "")
    .toLowerCase();
}

function parseAuthority(authority: string, defaultPort: number): NetworkRequest | undefined {
  const match = /^(\[[^\]]+\]|[^:/\s]+)(?::(\d{1,5}))?$/.exec(authority);
  if (!match) return undefined;
  const port = match[2] === undefined ? defaultPort : Number(match[2]);
  if (port > 65535) return undefined;
  return { host: normalizeHost(match[1] as string), port };
}

function explainRefusal(target: NetworkRequest, reason: string): string {
  return `minagent's sandbox refused network access to ${target.host}:${target.port}: ${reason}. To allow it, add "${target.host}" to sandbox.network.allowedDomains in .minagent/settings.json (or a WebFetch(domain:${target.host}) allow rule).`;
}

function refusal(status: number, text: string): string {
  const body = `${text}\n`;
  const statusText = status === 403 ? "Forbidden" : status === 502 ? "Bad Gateway" : "Bad Request";
  return `HTTP/1.1 ${status} ${statusText}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`;
}

function sendRefusal(response: ServerResponse, status: number, text: string): void {
  response.writeHead(status, { "content-type": "text/plain; charset=utf-8", connection: "close" });
  response.end(`${text}\n`);
}
