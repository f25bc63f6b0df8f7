import { createSocket } from "node:dgram";
import { createServer as createHttpServer, type Server } from "node:http";
import { type AddressInfo, createServer as createTcpServer } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { judgeTarget } from "../../../src/code/sandbox/network-proxy.js";
import { folderIn, requireBubblewrap, type SandboxedShell, sandboxedShell } from "./sandbox-helpers.js";

// Servers on the host's loopback stand for the world outside: the test counts what reached them, so a command that
// printed nothing but still got through would be caught.
requireBubblewrap();

type Recorded = { server: Server; port: number; hits: string[] };
async function recordingServer(body: string): Promise<Recorded> {
  const hits: string[] = [];
  const server = createHttpServer((request, response) => {
    hits.push(`${request.method} ${request.url} host=${request.headers.host}`);
    response.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, port: (server.address() as AddressInfo).port, hits };
}

let allowed: Recorded;
let forbidden: Recorded;
let shell: SandboxedShell;
const asked: string[] = [];

beforeAll(async () => {
  allowed = await recordingServer("allowed-body");
  forbidden = await recordingServer("forbidden-body");
  shell = await sandboxedShell(
    { network: { allowedDomains: [`127.0.0.1:${allowed.port}`] } },
    {
      askNetwork: ({ host, port }) => {
        asked.push(`${host}:${port}`);
        return host === "approved.invalid";
      },
    },
  );
});
afterAll(async () => {
  await shell.close();
  for (const { server } of [allowed, forbidden]) await new Promise((resolve) => server.close(resolve));
});

describe("TCP", () => {
  it("an allowed host-loopback port answers on the command's own loopback, through the proxy", async () => {
    const output = await shell.run(`curl -sS -m 5 http://127.0.0.1:${allowed.port}/through`);
    expect(output).toContain("allowed-body");
    expect(allowed.hits).toContain(`GET /through host=127.0.0.1:${allowed.port}`);
  });

  it("a host nobody allowed is refused, and the server hears nothing", async () => {
    const viaProxy = `curl -sS -m 5 --noproxy ''`;
    const output = await shell.run(
      `curl -sS -m 5 http://127.0.0.1:${forbidden.port}/; ${viaProxy} http://127.0.0.1:${forbidden.port}/; ${viaProxy} -p http://127.0.0.1:${forbidden.port}/`,
    );
    expect(output).toContain("refused network access");
    expect(output).not.toContain("forbidden-body");
    expect(forbidden.hits).toEqual([]);
  });

  it("a direct connection, bypassing the proxy, has no route to the host", async () => {
    const output = await shell.run(
      [
        `curl -sS -m 3 --noproxy '*' http://127.0.0.1:${forbidden.port}/direct`,
        `python3 -c 'import socket; socket.create_connection(("127.0.0.1", ${forbidden.port}), 3)'`,
        `node -e 'require("net").connect(${forbidden.port}, "127.0.0.1").on("error", e => console.log(e.code))'`,
        `exec 3<>/dev/tcp/127.0.0.1/${forbidden.port} && echo opened`,
      ].join("; "),
    );
    expect(output).not.toContain("forbidden-body");
    expect(output).not.toContain("opened");
    expect(forbidden.hits).toEqual([]);
    expect(allowed.hits.filter((hit) => hit.includes("direct"))).toEqual([]);
  });

  it("a spoofed Host header does not choose the target: the request's own target does", async () => {
    const output = await shell.run(
      [
        `curl -sS -m 5 --noproxy '' -H 'Host: 127.0.0.1:${allowed.port}' http://127.0.0.1:${forbidden.port}/spoof`,
        `curl -sS -m 5 --noproxy '' -p -H 'Host: 127.0.0.1:${allowed.port}' http://127.0.0.1:${forbidden.port}/spoof-tunnel`,
      ].join("; "),
    );
    expect(output).not.toContain("forbidden-body");
    expect(forbidden.hits).toEqual([]);
  });

  it("a new host is put to the person: approved once, it stays open; refused, it stays closed", async () => {
    const output = await shell.run(`curl -sS -m 5 http://approved.invalid/ 2>&1; curl -sS -m 5 http://refused.invalid/ 2>&1`);
    expect(asked).toEqual(expect.arrayContaining(["approved.invalid:80", "refused.invalid:80"]));
    // Approved but not resolvable here: the proxy got as far as looking it up.
    expect(output).toMatch(/approved\.invalid[\s\S]*(ENOTFOUND|EAI_AGAIN|not resolve)/);
    expect(output).toContain("refused network access to refused.invalid");
  });

  it("a command's own loopback is its own: its servers answer it directly", async () => {
    const output = await shell.run(
      `python3 -m http.server 18631 --bind 127.0.0.1 >/dev/null 2>&1 & for i in $(seq 50); do curl -s -o /dev/null -w '%{http_code}' http://127.0.0.1:18631/ && break; sleep 0.1; done`,
    );
    expect(output).toContain("200");
  });
});

describe("UDP and Unix sockets", () => {
  it("a UDP datagram to the host never arrives", async () => {
    const socket = createSocket("udp4");
    const received: string[] = [];
    socket.on("message", (message) => received.push(message.toString()));
    await new Promise<void>((resolve) => socket.bind(0, "127.0.0.1", resolve));
    const port = socket.address().port;
    await shell.run(
      `python3 -c 'import socket; s=socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.sendto(b"escaped", ("127.0.0.1", ${port}))'; echo escaped > /dev/udp/127.0.0.1/${port}`,
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    socket.close();
    expect(received).toEqual([]);
  });

  it("a Unix socket outside the workspace cannot be connected to", async () => {
    const path = join(folderIn("sandbox-socket-"), "daemon.sock");
    const connections: string[] = [];
    const server = createTcpServer((socket) => {
      connections.push("connected");
      socket.end("daemon-secret");
    });
    await new Promise<void>((resolve) => server.listen(path, resolve));
    try {
      const output = await shell.run(
        [
          `python3 -c 'import socket; s=socket.socket(socket.AF_UNIX); s.connect("${path}"); print(s.recv(100))'`,
          `curl -sS -m 3 --unix-socket ${path} http://x/`,
          `node -e 'require("net").connect("${path}").on("data", d => console.log(String(d))).on("error", e => console.log(e.code))'`,
        ].join("; "),
      );
      expect(output).not.toContain("daemon-secret");
      expect(connections).toEqual([]);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe("permission rules", () => {
  it("a WebFetch(domain:…) allow rule opens its host to commands, as an allowedDomains entry does", async () => {
    const { createCodePermissions } = await import("../../../src/code/permissions/index.js");
    const { sandboxOptionsFromRules } = await import("../../../src/code/sandbox/from-permission-rules.js");
    const root = folderIn("sandbox-webfetch-");
    const permissions = await createCodePermissions({
      workspace: { root, directories: [root] },
      settingsFiles: [],
      rules: { allow: [`WebFetch(domain:127.0.0.1:${forbidden.port})`] },
    });
    const own = await sandboxedShell({}, { root, ...sandboxOptionsFromRules(permissions) });
    try {
      expect(await own.run(`curl -sS -m 5 http://127.0.0.1:${forbidden.port}/by-rule`)).toContain("forbidden-body");
      expect(forbidden.hits).toContain(`GET /by-rule host=127.0.0.1:${forbidden.port}`);
    } finally {
      await own.close();
      forbidden.hits.length = 0;
    }
  });
});

describe("the proxy's policy", () => {
  const options = { allowedDomains: ["*.example.com", "api.example.org:443", "localhost:5432"], closedHosts: ["api.anthropic.com"] };
  it.each([
    ["registry.example.com", 443, true],
    ["example.com", 443, false], // *.example.com is its subdomains only
    ["api.example.org", 443, true],
    ["api.example.org", 80, false],
    ["localhost", 5432, true],
    ["localhost", 8080, false],
    ["127.0.0.1", 5432, false], // a loopback address needs its own exact entry
    ["evil.localhost", 5432, false],
    ["api.anthropic.com", 443, false],
  ])("%s:%i → %s", (host, port, expected) => {
    expect(judgeTarget({ host, port }, options).allowed).toBe(expected);
  });

  it("the model API stays closed under a wildcard that covers it", () => {
    const verdict = judgeTarget(
      { host: "api.anthropic.com", port: 443 },
      { allowedDomains: ["*.anthropic.com"], closedHosts: ["api.anthropic.com"] },
    );
    expect(verdict).toMatchObject({ allowed: false, askable: false });
  });
});
