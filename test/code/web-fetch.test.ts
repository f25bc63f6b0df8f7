import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSecureContext } from "node:tls";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CodingAgent, type CodingAgentOptions, createWebFetchTool } from "../../src/code/index.js";
import { createCodePermissions, type PermissionMode } from "../../src/code/permissions/index.js";
import { isPublicAddress } from "../../src/code/web/address-guard.js";
import { FakeModel } from "../../src/index.js";
import { reply, toolCall } from "../../src/testing/index.js";
import { callTool } from "./helpers/call-tool.js";

/** A 1×1 PNG. */
const tinyPng = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

let server: Server;
let base: string;
let port: number;
const hits = new Map<string, number>();

const page = `<!doctype html><html><head><title>Release notes</title><style>p { color: red }</style>
<script>document.write("tracking")</script></head>
<body><h2>Version 2</h2><p>Adds <a href="/docs">docs</a> and <code>--fast</code>.</p><pre><code>npm i pkg</code></pre></body></html>`;

beforeAll(async () => {
  server = createServer((request, response) => {
    const path = request.url ?? "/";
    hits.set(path, (hits.get(path) ?? 0) + 1);
    const html = (body: string) => {
      response.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      response.end(body);
    };
    const redirect = (location: string) => {
      response.writeHead(302, { location });
      response.end();
    };
    if (path === "/page" || path === "/counted") return html(page);
    if (path === "/same-host-redirect") return redirect("/page");
    if (path === "/loop") return redirect("/loop");
    if (path === "/cross-host-redirect") return redirect(`http://localhost:${port}/page`);
    if (path === "/metadata-redirect") return redirect("http://169.254.169.254/latest/meta-data/");
    if (path === "/long") return html(`<p>${"word ".repeat(40_000)}</p>`);
    if (path === "/too-large") {
      response.writeHead(200, { "content-type": "text/plain" });
      for (let index = 0; index < 40; index++) response.write("x".repeat(64 * 1024));
      return response.end();
    }
    if (path === "/gzip") {
      response.writeHead(200, { "content-type": "text/html", "content-encoding": "gzip" });
      return response.end(gzipSync(page));
    }
    if (path === "/image") {
      response.writeHead(200, { "content-type": "image/png" });
      return response.end(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0]));
    }
    if (path === "/dot.png") {
      response.writeHead(200, { "content-type": "image/png" });
      return response.end(Buffer.from(tinyPng, "base64"));
    }
    if (path === "/archive") {
      response.writeHead(200, { "content-type": "application/zip" });
      return response.end(Buffer.from([0x50, 0x4b, 0x03, 0x04, 0, 0]));
    }
    if (path === "/slow") {
      response.writeHead(200, { "content-type": "text/plain" });
      response.write("the start…");
      const timer = setTimeout(() => response.end("the end"), 5_000);
      response.on("close", () => clearTimeout(timer));
      return;
    }
    if (path === "/plain") {
      response.writeHead(200, { "content-type": "text/plain" });
      return response.end("just text, *as is*");
    }
    response.writeHead(404, { "content-type": "text/plain" });
    response.end("missing");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
  base = `http://127.0.0.1:${port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

/** A WebFetch that may reach the test server, as `WebFetch(domain:127.0.0.1)` lets it. */
const localFetch = (options: Parameters<typeof createWebFetchTool>[0] = {}) =>
  createWebFetchTool({ allowsPrivateHost: (host) => host === "127.0.0.1", ...options });
const fetchWith = (tool: ReturnType<typeof createWebFetchTool>, url: string, prompt = "What is new?") => callTool(tool, { url, prompt });

describe("WebFetch: pages", () => {
  it("turns HTML into Markdown without scripts or styles, and says that no model answered the prompt", async () => {
    const result = await fetchWith(localFetch(), `${base}/page`);
    expect(result.isError).toBe(false);
    expect(result.content).toContain(`${base}/page (HTTP 200, text/html):`);
    expect(result.content).toContain("No model is configured to answer the prompt");
    expect(result.content).toContain("# Release notes\n\n## Version 2\n\nAdds [docs](/docs) and `--fast`.\n\n```\nnpm i pkg\n```");
    expect(result.content).not.toMatch(/tracking|color: red/);
    // The local host an allow rule names is fetched over http as asked, not upgraded.
    expect(result.content).not.toContain("upgraded");
  });

  it("reads gzip-encoded pages and plain text as it is", async () => {
    expect((await fetchWith(localFetch(), `${base}/gzip`)).content).toContain("## Version 2");
    expect((await fetchWith(localFetch(), `${base}/plain`)).content).toMatch(/text\/plain\): 18 characters[\s\S]*just text, \*as is\*$/);
  });

  it("answers the prompt with the configured model: one call, the page and the prompt, no tools", async () => {
    const model = new FakeModel(["Version 2 adds docs and --fast."]);
    const result = await fetchWith(localFetch({ model }), `${base}/page`, "What does version 2 add?");
    expect(result.content).toMatch(/\(HTTP 200, text\/html\): \d+ characters of Markdown\.\n\nVersion 2 adds docs and --fast\.$/);
    expect(model.requests).toHaveLength(1);
    expect(model.requests[0]?.tools).toEqual([]);
    const asked = model.requests[0]?.messages[1]?.content ?? "";
    expect(asked).toContain("## Version 2");
    expect(asked).toMatch(/What does version 2 add\?$/);
  });

  it("falls back to the Markdown when the model fails, saying why", async () => {
    const model = new FakeModel([]);
    const result = await fetchWith(localFetch({ model }), `${base}/page`);
    expect(result.content).toMatch(/The model that answers prompts over pages failed \(.+\), so the page is given as is:/);
    expect(result.content).toContain("## Version 2");
  });

  it("cuts long Markdown to the cap and says so", async () => {
    const result = await fetchWith(localFetch({ maxMarkdownCharacters: 1_000 }), `${base}/long`);
    expect(result.content).toContain("): 199,999 characters of Markdown, cut to the first 1,000.");
    expect(result.content).toMatch(/\[… the page goes on: 198,999 more characters were cut\]$/);
  });

  it("caches pages by URL", async () => {
    const tool = localFetch();
    await fetchWith(tool, `${base}/counted`);
    await fetchWith(tool, `${base}/counted`, "Another question");
    expect(hits.get("/counted")).toBe(1);
    await fetchWith(localFetch({ cacheMs: 0 }), `${base}/counted`);
    expect(hits.get("/counted")).toBe(2);
    // Bounded: with room for one page, another page pushes it out.
    const small = localFetch({ maxCachedPages: 1 });
    await fetchWith(small, `${base}/counted`);
    await fetchWith(small, `${base}/page`);
    await fetchWith(small, `${base}/counted`);
    expect(hits.get("/counted")).toBe(4);
  });
});

describe("WebFetch: redirects and failures", () => {
  it("follows a same-host redirect, resolving and checking the host again on the new hop", async () => {
    const looked: string[] = [];
    const tool = createWebFetchTool({
      // A name no real resolver knows: the connection goes to the address the lookup gave, and nowhere else.
      lookup: async (host) => {
        looked.push(host);
        return [{ address: "127.0.0.1", family: 4 }];
      },
      allowsPrivateHost: (host) => host === "docs.internal.test",
    });
    const result = await fetchWith(tool, `http://docs.internal.test:${port}/same-host-redirect`);
    expect(result.content).toContain(`http://docs.internal.test:${port}/page (HTTP 200`);
    expect(looked).toEqual(["docs.internal.test", "docs.internal.test"]);
  });

  it("reports a redirect to another host instead of following it", async () => {
    const result = await fetchWith(localFetch(), `${base}/cross-host-redirect`);
    expect(result.isError).toBe(false);
    expect(result.content).toContain(`redirected to http://localhost:${port}/page, another host`);
    expect(result.content).toContain(`call WebFetch again with url "http://localhost:${port}/page"`);
  });

  it("does not follow a redirect to the metadata address, and refuses to fetch it", async () => {
    const tool = localFetch();
    expect((await fetchWith(tool, `${base}/metadata-redirect`)).content).toContain(
      "redirected to http://169.254.169.254/latest/meta-data/",
    );
    const direct = await fetchWith(tool, "http://169.254.169.254/latest/meta-data/");
    expect(direct.isError).toBe(true);
    expect(direct.content).toContain("169.254.169.254 is a loopback, link-local or private address");
  });

  it("stops after 5 redirects", async () => {
    const result = await fetchWith(localFetch(), `${base}/loop`);
    expect(result.isError).toBe(true);
    expect(result.content).toContain("redirected more than 5 times");
  });

  it("fails clearly on an error status, a binary body, a body over the cap and a slow body", async () => {
    const missing = await fetchWith(localFetch(), `${base}/missing`);
    expect(missing).toMatchObject({ isError: true, content: expect.stringContaining("answered HTTP 404 Not Found") });
    const archive = await fetchWith(localFetch(), `${base}/archive`);
    expect(archive).toMatchObject({ isError: true, content: expect.stringContaining("is application/zip, not a text or HTML page") });
    const broken = await fetchWith(localFetch(), `${base}/image`);
    expect(broken).toMatchObject({
      isError: true,
      content: expect.stringContaining("its bytes are not a image/png file WebFetch can show"),
    });
    const large = await fetchWith(localFetch({ maxBodyBytes: 1024 * 1024 }), `${base}/too-large`);
    expect(large).toMatchObject({ isError: true, content: expect.stringContaining("is larger than 1 MB; WebFetch stopped reading it") });
    const started = Date.now();
    const slow = await fetchWith(localFetch({ timeoutMs: 300 }), `${base}/slow`);
    expect(slow).toMatchObject({ isError: true, content: expect.stringContaining("did not answer within 0.3 s") });
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it("gives the model an image the URL answers with, as an image", async () => {
    const result = await fetchWith(localFetch(), `${base}/dot.png`);
    expect(result.isError).toBe(false);
    expect(result.content).toMatch(/\/dot\.png \(HTTP 200, image\/png\), \d+ bytes: the image\./);
    expect(result.parts).toEqual([{ type: "image", mediaType: "image/png", data: tinyPng }]);
  });

  it("refuses what is not an http(s) URL, and credentials in the URL", async () => {
    expect((await fetchWith(localFetch(), "file:///etc/passwd")).content).toContain("http and https URLs only");
    expect((await fetchWith(localFetch(), "not a url")).content).toContain("is not a URL");
    expect((await fetchWith(localFetch(), `http://user:secret@127.0.0.1:${port}/page`)).content).toContain("does not send credentials");
  });
});

describe("WebFetch: https", () => {
  const hasOpenssl = (() => {
    try {
      execFileSync("openssl", ["version"], { stdio: "ignore" });
      return true;
    } catch {
      return false;
    }
  })();

  it.skipIf(!hasOpenssl)(
    "connects to the checked address over TLS for the URL's name, and refuses a certificate it cannot trust",
    async () => {
      const folder = mkdtempSync(join(tmpdir(), "minagent-web-fetch-tls-"));
      const [key, cert] = [join(folder, "key.pem"), join(folder, "cert.pem")];
      execFileSync(
        "openssl",
        ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert, "-days", "1"].concat([
          "-subj",
          "/CN=secure.test",
          "-addext",
          "subjectAltName=DNS:secure.test",
        ]),
        { stdio: "ignore" },
      );
      let serverName: string | undefined;
      const context = { key: readFileSync(key), cert: readFileSync(cert) };
      const secure = createHttpsServer(
        {
          ...context,
          SNICallback: (name, done) => {
            serverName = name;
            done(null, createSecureContext(context));
          },
        },
        (_request, response) => response.end("secret"),
      );
      await new Promise<void>((resolve) => secure.listen(0, "127.0.0.1", resolve));
      try {
        const tool = createWebFetchTool({
          lookup: async () => [{ address: "127.0.0.1", family: 4 }],
          allowsPrivateHost: (host) => host === "secure.test",
        });
        const result = await fetchWith(tool, `https://secure.test:${(secure.address() as AddressInfo).port}/`);
        expect(result.isError).toBe(true);
        expect(result.content).toMatch(/Could not fetch https:\/\/secure\.test:\d+\/: self[- ]signed certificate/);
        // The TLS handshake named the URL's host (SNI), though the connection went to the checked address.
        expect(serverName).toBe("secure.test");
      } finally {
        secure.closeAllConnections();
        await new Promise((resolve) => secure.close(resolve));
        rmSync(folder, { recursive: true, force: true });
      }
    },
  );

  it("gives up on a resolver that does not answer within the time limit", async () => {
    const tool = createWebFetchTool({ timeoutMs: 200, lookup: () => new Promise(() => {}) });
    expect((await fetchWith(tool, "https://hangs.test/")).content).toContain("https://hangs.test/ did not answer within 0.2 s");
  });

  it("says when a name does not resolve", async () => {
    const tool = createWebFetchTool({ lookup: async () => Promise.reject(new Error("getaddrinfo ENOTFOUND nowhere.test")) });
    expect((await fetchWith(tool, "https://nowhere.test/")).content).toContain(
      "Could not resolve the host of https://nowhere.test/: getaddrinfo ENOTFOUND",
    );
  });
});

describe("WebFetch: SSRF", () => {
  it("refuses a host that resolves to a private address (a rebinding name), even among public ones", async () => {
    const answers: Record<string, string[]> = {
      "rebind.test": ["93.184.216.34", "127.0.0.1"],
      "mapped.test": ["::ffff:10.0.0.5"],
      "metadata.test": ["169.254.169.254"],
    };
    const tool = createWebFetchTool({
      lookup: async (host) => (answers[host] ?? []).map((address) => ({ address, family: address.includes(":") ? 6 : 4 })),
    });
    const rebind = await fetchWith(tool, `http://rebind.test:${port}/page`);
    expect(rebind.isError).toBe(true);
    expect(rebind.content).toContain("rebind.test resolves to 127.0.0.1, a loopback, link-local or private address");
    expect(rebind.content).toContain("WebFetch(domain:rebind.test)");
    expect((await fetchWith(tool, "https://mapped.test/")).content).toContain("resolves to ::ffff:10.0.0.5");
    expect((await fetchWith(tool, "https://metadata.test/")).content).toContain("resolves to 169.254.169.254");
    // A host no rule names is fetched over https only: the http URL was upgraded before it was refused.
    expect(rebind.content).toContain(`https://rebind.test:${port}/page`);
  });

  it("classes addresses: only public unicast ones pass", () => {
    const refused = ["127.0.0.1", "10.1.2.3", "172.16.0.1", "192.168.1.1", "100.64.0.1", "169.254.169.254", "0.0.0.0", "::", "::1"];
    refused.push(
      "fc00::1",
      "fd12:3456::1",
      "fe80::1",
      "::ffff:127.0.0.1",
      "::ffff:192.168.0.1",
      "64:ff9b::7f00:1",
      "2002:7f00:1::1",
      "224.0.0.1",
    );
    for (const address of refused) expect([address, isPublicAddress(address)]).toEqual([address, false]);
    for (const address of ["93.184.216.34", "8.8.8.8", "2606:4700:4700::1111", "::ffff:8.8.8.8"])
      expect([address, isPublicAddress(address)]).toEqual([address, true]);
  });
});

describe("WebFetch(domain:…) rules", () => {
  const decide = async (rules: { allow?: string[]; deny?: string[] }, url: string, mode: PermissionMode = "default") => {
    const permissions = await createCodePermissions({
      workspace: { root: tmpdir(), directories: [tmpdir()] },
      settingsFiles: [],
      rules,
      mode,
    });
    const explained = await permissions.explain({ name: "WebFetch", arguments: { url, prompt: "?" } }, createWebFetchTool());
    return explained.decision.behavior;
  };

  it("name a host exactly, its subdomains with *., every host with *; a port narrows", async () => {
    const exact = { allow: ["WebFetch(domain:docs.python.org)"] };
    expect(await decide(exact, "https://docs.python.org/3/")).toBe("allow");
    expect(await decide(exact, "http://DOCS.python.org./3/")).toBe("allow");
    expect(await decide(exact, "https://python.org/")).toBe("ask");
    expect(await decide(exact, "https://sub.docs.python.org/")).toBe("ask");
    const wildcard = { allow: ["WebFetch(domain:*.example.com)"] };
    expect(await decide(wildcard, "https://api.example.com/")).toBe("allow");
    expect(await decide(wildcard, "https://example.com/")).toBe("ask");
    expect(await decide(wildcard, "https://badexample.com/")).toBe("ask");
    expect(await decide({ allow: ["WebFetch(domain:*)"] }, "https://anything.test/")).toBe("allow");
    expect(await decide({ allow: ["WebFetch(domain:localhost:8080)"] }, "http://localhost:8080/")).toBe("allow");
    expect(await decide({ allow: ["WebFetch(domain:localhost:8080)"] }, "http://localhost:9090/")).toBe("ask");
  });

  it("deny first (whatever the mode, a trailing dot included), ask in every mode but bypassPermissions without a rule", async () => {
    const deny = { allow: ["WebFetch"], deny: ["WebFetch(domain:evil.test)"] };
    expect(await decide(deny, "https://evil.test/x")).toBe("deny");
    expect(await decide(deny, "https://evil.test./x")).toBe("deny");
    expect(await decide(deny, "https://good.test/x")).toBe("allow");
    expect(await decide({}, "https://good.test/x", "bypassPermissions")).toBe("allow");
    expect(await decide(deny, "https://evil.test/x", "bypassPermissions")).toBe("deny");
    for (const mode of ["default", "acceptEdits", "plan"] as const) expect(await decide({}, "https://good.test/x", mode)).toBe("ask");
    expect(await decide({}, "https://good.test/x", "dontAsk")).toBe("deny");
  });
});

describe("WebFetch in a CodingAgent: permissions", () => {
  let workspace: string;
  beforeAll(() => {
    workspace = mkdtempSync(join(tmpdir(), "minagent-web-fetch-"));
  });
  afterAll(() => rmSync(workspace, { recursive: true, force: true }));

  const run = async (options: Omit<CodingAgentOptions, "workspace">, url = `${base}/page`) => {
    const model = new FakeModel([reply("", toolCall("WebFetch", { url, prompt: "What is new?" }, "w")), "Done."]);
    const asked: string[] = [];
    const agent = await CodingAgent.create(model, {
      workspace,
      settingsFiles: [],
      askPerson: (request) => {
        asked.push(request.toolCall.name);
        return { behavior: "deny", message: "Not now." };
      },
      ...options,
    });
    const result = await agent.run("Read the release notes.");
    const observation = result.messages.find((message) => message.role === "tool")?.content ?? "";
    return { asked, observation, tools: model.requests[0]?.tools.map((tool) => tool.name) };
  };

  it("asks in default mode for a host no rule allows", async () => {
    const { asked, observation, tools } = await run({});
    expect(tools).toContain("WebFetch");
    expect(asked).toEqual(["WebFetch"]);
    expect(observation).toContain("Not now.");
  });

  it("runs unasked with WebFetch(domain:127.0.0.1), which also opens that local address", async () => {
    const { asked, observation } = await run({ rules: { allow: ["WebFetch(domain:127.0.0.1)"] } });
    expect(asked).toEqual([]);
    expect(observation).toContain("## Version 2");
  });

  it("refuses the local address without a rule naming it, even when the mode lets the call run", async () => {
    const bypassed = await run({ mode: "bypassPermissions" });
    expect(bypassed.asked).toEqual([]);
    expect(bypassed.observation).toContain("127.0.0.1 is a loopback, link-local or private address");
    // A wildcard allows the call but does not name the host: still refused.
    const wildcard = await run({ rules: { allow: ["WebFetch(domain:*)"] } });
    expect(wildcard.asked).toEqual([]);
    expect(wildcard.observation).toContain("is a loopback, link-local or private address");
  });

  it("denies with a deny rule, and a rule for another domain does not allow this one", async () => {
    const denied = await run({ rules: { allow: ["WebFetch"], deny: ["WebFetch(domain:127.0.0.1)"] } });
    expect(denied.asked).toEqual([]);
    expect(denied.observation).toContain("forbidden by the deny rule `WebFetch(domain:127.0.0.1)`");
    const other = await run({ rules: { allow: ["WebFetch(domain:docs.python.org)", "WebFetch(domain:*.example.com)"] } });
    expect(other.asked).toEqual(["WebFetch"]);
  });

  it("is left out with webFetch: false", async () => {
    expect((await run({ webFetch: false })).tools).not.toContain("WebFetch");
  });
});
