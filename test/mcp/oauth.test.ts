// OAuth 2.1 logins to an MCP server over HTTP, against a local OAuth-protected server (fixtures/oauth-server.mjs: the
// SDK's authorization-server router, bearer middleware and Streamable HTTP server). The only stand-in is the browser:
// it follows the login's URL as a person's would, and the authorization server sends it back to minagent's
// 127.0.0.1 redirect listener.
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, stat } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { Agent, FakeModel, ToolRegistry } from "../../src/index.js";
import { connectMcpServers, type McpAuthorizationRequest, type McpServers } from "../../src/mcp/index.js";
import { reply, toolCall } from "../../src/testing/index.js";
import { type OAuthServer, startOAuthFixture } from "./oauth-fixture.js";
import { referenceServers } from "./reference-servers.js";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const toolNames = ["mcp__guarded__whoami", "mcp__guarded__admin-report", "mcp__guarded__echo-token"];

/** The fixture with `flags` on a free port of 127.0.0.1, killed by its pid after the test. */
async function startOAuthServer(...flags: string[]): Promise<OAuthServer> {
  const server = await startOAuthFixture(...flags);
  cleanups.push(server.stop);
  return server;
}

async function authDirectory(): Promise<string> {
  const directory = await mkdtemp(join(tmpdir(), "minagent-oauth-"));
  cleanups.push(() => rm(directory, { recursive: true, force: true }));
  return join(directory, "mcp-auth");
}

/** The person's browser: opens the login page and follows its redirect back to minagent (what it answered is kept). */
function standInBrowser() {
  const visits: { server: string; url: string; callbackStatus?: number }[] = [];
  const browser = async (request: McpAuthorizationRequest) => {
    const visit: (typeof visits)[number] = { server: request.server, url: request.url };
    visits.push(visit);
    const page = await fetch(request.url, { redirect: "manual" });
    const location = page.headers.get("location");
    if (!location) throw new Error(`the login page answered ${page.status} with no redirect`);
    const callback = await fetch(location);
    visit.callbackStatus = callback.status;
  };
  return { browser, visits };
}

async function connect(url: string, directory: string, onAuthorizationUrl?: (request: McpAuthorizationRequest) => Promise<void>) {
  const mcp = await connectMcpServers(
    { mcpServers: { guarded: { type: "http", url } } },
    { auth: { directory, onAuthorizationUrl, loginTimeoutMs: 10_000 }, startupTimeoutMs: 10_000 },
  );
  cleanups.push(() => mcp.close());
  return mcp;
}

async function storedCredentials(directory: string): Promise<{ file: string; text: string; tokens: Record<string, string> }> {
  const [name, ...others] = await readdir(directory);
  expect(others).toEqual([]);
  const file = join(directory, name ?? "");
  const text = await readFile(file, "utf8");
  return { file, text, tokens: JSON.parse(text).tokens };
}

async function whoami(mcp: McpServers): Promise<string> {
  const result = await mcp.callTool("guarded", "whoami");
  return JSON.stringify(result.content);
}

describe("an MCP server behind OAuth", () => {
  it("is logged in to through the browser once; the login is stored privately, hidden everywhere, and used again", async () => {
    const server = await startOAuthServer();
    const directory = await authDirectory();
    // A folder that exists already, readable by others: minagent makes it the user's own.
    await mkdir(directory, { recursive: true });
    await chmod(directory, 0o755);
    const { browser, visits } = standInBrowser();
    const first = await connect(server.url, directory, browser);
    expect(first.status()[0]).toMatchObject({ state: "ready", tools: toolNames });
    expect(visits).toHaveLength(1);
    expect(visits[0]).toMatchObject({ server: "guarded", callbackStatus: 200 });
    expect(await whoami(first)).toMatch(/client client_\S+ with scopes mcp/);

    const { file, text, tokens } = await storedCredentials(directory);
    expect((await stat(directory)).mode & 0o777).toBe(0o700);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(tokens.access_token).toMatch(/^at_/);
    expect(tokens.refresh_token).toMatch(/^rt_/);
    expect(text).toContain(tokens.access_token);
    const shown = JSON.stringify(first.status()) + JSON.stringify(first.tools().map(({ name, description }) => ({ name, description })));
    expect(shown).not.toContain(tokens.access_token);
    expect(shown).not.toContain(tokens.refresh_token);
    await first.close();

    // The next session: no browser, the stored login.
    const second = await connect(server.url, directory);
    expect(second.status()[0]).toMatchObject({ state: "ready" });
    expect(await whoami(second)).toMatch(/with scopes mcp/);
    expect(visits).toHaveLength(1);
  }, 30_000);

  it("never shows its tokens to the model nor in a run's events, even when the server repeats one", async () => {
    const server = await startOAuthServer();
    const directory = await authDirectory();
    const { browser } = standInBrowser();
    const mcp = await connect(server.url, directory, browser);
    const { tokens } = await storedCredentials(directory);
    const registry = new ToolRegistry();
    const model = new FakeModel([
      reply("", toolCall("mcp__guarded__echo-token", {}, "1"), toolCall("mcp__guarded__whoami", {}, "2")),
      "done",
    ]);
    const events: unknown[] = [];
    const result = await new Agent(model, registry, { prepareTurn: mcp.prepareTurn(registry), onEvent: (event) => events.push(event) }).run(
      "who am I?",
    );
    const echoed = result.messages.find((message) => message.role === "tool" && JSON.stringify(message).includes("your token is"));
    expect(JSON.stringify(echoed)).toContain("your token is [redacted]");
    const session = JSON.stringify([result, events, mcp.status()]);
    expect(session).toContain("with scopes mcp");
    expect(session).not.toContain(tokens.access_token);
    expect(session).not.toContain(tokens.refresh_token);
  }, 30_000);

  it("without a stored login nor a browser is needs-login, naming the server and the hint; login() makes it ready", async () => {
    const server = await startOAuthServer();
    const directory = await authDirectory();
    const mcp = await connectMcpServers(
      { mcpServers: { guarded: { type: "http", url: server.url } } },
      { auth: { directory, loginHint: (name) => `run /mcp login ${name}` } },
    );
    cleanups.push(() => mcp.close());
    const [status] = mcp.status();
    expect(status).toMatchObject({ name: "guarded", state: "needs-login", tools: [] });
    expect(status?.problem).toContain("run /mcp login guarded");
    await expect(mcp.callTool("guarded", "whoami")).rejects.toThrow(/MCP server "guarded" is unavailable: .*run \/mcp login guarded/);

    const { browser, visits } = standInBrowser();
    const after = await mcp.login("guarded", browser);
    expect(after).toMatchObject({ state: "ready", tools: toolNames });
    expect(after.problem).toBeUndefined();
    expect(visits).toHaveLength(1);
    expect(await whoami(mcp)).toMatch(/with scopes mcp/);
  }, 30_000);

  it("refreshes an access token that expired, without the browser", async () => {
    const server = await startOAuthServer("--access-token-lifetime", "1");
    const directory = await authDirectory();
    const { browser, visits } = standInBrowser();
    const mcp = await connect(server.url, directory, browser);
    const before = (await storedCredentials(directory)).tokens;
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    // Two calls at once both meet the expired token: the refresh token (rotated by the server) is used once.
    const [one, two] = await Promise.all([whoami(mcp), whoami(mcp)]);
    expect(one).toMatch(/with scopes mcp/);
    expect(two).toMatch(/with scopes mcp/);
    const after = (await storedCredentials(directory)).tokens;
    expect(after.access_token).not.toBe(before.access_token);
    expect(after.refresh_token).not.toBe(before.refresh_token);
    expect(visits).toHaveLength(1);
    expect(server.output()).toMatch(/REFRESH rt_\S+ known/);
    expect(server.output()).not.toMatch(/REFRESH rt_\S+ unknown/);
  }, 30_000);

  it("is needs-login, saying why, when its refresh token is refused and nobody can log in", async () => {
    const server = await startOAuthServer("--access-token-lifetime", "2", "--refuse-refresh");
    const directory = await authDirectory();
    const { browser } = standInBrowser();
    const first = await connect(server.url, directory, browser);
    const { tokens } = await storedCredentials(directory);
    await first.close();
    // Well past the token's life (the fixture counts whole seconds): the very first request meets the refusal.
    await new Promise((resolve) => setTimeout(resolve, 3_500));

    const second = await connect(server.url, directory);
    const [status] = second.status();
    expect(status).toMatchObject({ state: "needs-login" });
    expect(status?.problem).toMatch(/login.*(expired|refused|no longer)/i);
    expect(status?.problem).toContain('login("guarded")');
    expect(JSON.stringify(status)).not.toContain(tokens.refresh_token);
  }, 30_000);

  it("in a session whose refresh token is refused, the server becomes needs-login and login() brings it back", async () => {
    // Long enough for two connections on a busy machine: the token expires during the session, not before it.
    const server = await startOAuthServer("--access-token-lifetime", "4", "--refuse-refresh");
    const directory = await authDirectory();
    const { browser } = standInBrowser();
    await (await connect(server.url, directory, browser)).close();
    const mcp = await connect(server.url, directory);
    expect(mcp.status()[0]).toMatchObject({ state: "ready" });
    await new Promise((resolve) => setTimeout(resolve, 4_200));
    await expect(mcp.callTool("guarded", "whoami")).rejects.toThrow(
      'MCP server "guarded" needs a new OAuth login for whoami (its stored login was refused by the authorization server: it expired or was revoked): call login("guarded")',
    );
    expect(mcp.status()[0]).toMatchObject({ state: "needs-login", tools: [] });
    expect(mcp.status()[0]?.problem).toContain("its stored login was refused");
    expect(await mcp.login("guarded", browser)).toMatchObject({ state: "ready" });
    expect(await whoami(mcp)).toMatch(/with scopes mcp/);
  }, 30_000);

  it("two processes sharing a login: one's refresh does not cost the other its login", async () => {
    const server = await startOAuthServer("--access-token-lifetime", "2");
    const directory = await authDirectory();
    const { browser } = standInBrowser();
    await (await connect(server.url, directory, browser)).close();
    // Two clients reading the same file, as a session and a -p run would.
    const first = await connect(server.url, directory);
    const second = await connect(server.url, directory);
    await new Promise((resolve) => setTimeout(resolve, 2_200));
    expect(await whoami(first)).toMatch(/with scopes mcp/);
    // The second's refresh token was used up by the first's refresh: it takes the newer one from the file.
    expect(await whoami(second)).toMatch(/with scopes mcp/);
    expect(second.status()[0]).toMatchObject({ state: "ready" });
  }, 30_000);

  it("logs in again, registering anew, when the authorization server forgot the client and its tokens", async () => {
    const server = await startOAuthServer();
    const directory = await authDirectory();
    const { browser, visits } = standInBrowser();
    const first = await connect(server.url, directory, browser);
    const firstClient = await whoami(first);
    await first.close();
    expect((await fetch(new URL("/fixture/forget", server.url), { method: "POST" })).status).toBe(204);

    const unattended = await connect(server.url, directory);
    expect(unattended.status()[0]).toMatchObject({ state: "needs-login" });
    expect(unattended.status()[0]?.problem).toBe(
      'it needs a new OAuth login (the authorization server no longer knows the client its stored login was made with): call login("guarded")',
    );
    await unattended.close();

    const again = await connect(server.url, directory, browser);
    expect(again.status()[0]).toMatchObject({ state: "ready" });
    expect(visits).toHaveLength(2);
    const secondClient = await whoami(again);
    expect(secondClient).toMatch(/client client_/);
    expect(secondClient).not.toBe(firstClient);
  }, 30_000);

  it("asks for a larger scope when a tool needs one (403 insufficient_scope), and the call then succeeds", async () => {
    const server = await startOAuthServer();
    const directory = await authDirectory();
    const { browser, visits } = standInBrowser();
    const mcp = await connect(server.url, directory, browser);
    const result = await mcp.callTool("guarded", "admin-report");
    expect(result.isError).toBeFalsy();
    expect(JSON.stringify(result.content)).toMatch(/admin report for client_/);
    expect(visits).toHaveLength(2);
    expect(new URL(visits[1]?.url ?? "").searchParams.get("scope")).toBe("mcp admin");
    expect(await whoami(mcp)).toMatch(/with scopes mcp admin/);
  }, 30_000);

  it("without a browser, a call that needs a larger scope is refused saying how to log in; the others still work", async () => {
    const server = await startOAuthServer("--access-token-lifetime", "4");
    const directory = await authDirectory();
    const { browser } = standInBrowser();
    await (await connect(server.url, directory, browser)).close();
    const mcp = await connect(server.url, directory);
    await expect(mcp.callTool("guarded", "admin-report")).rejects.toThrow(
      'MCP server "guarded" needs a new OAuth login for admin-report (it asks for more access: scope "mcp admin"): call login("guarded")',
    );
    expect(mcp.status()[0]).toMatchObject({ state: "ready" });
    // The refused step-up leaves the stored login as it was: it is still refreshed when it expires.
    await new Promise((resolve) => setTimeout(resolve, 4_200));
    expect(await whoami(mcp)).toMatch(/with scopes mcp"/);
  }, 30_000);

  it("gives a person in the browser the login timeout, not the start-up timeout", async () => {
    const server = await startOAuthServer();
    const directory = await authDirectory();
    const { browser } = standInBrowser();
    const mcp = await connectMcpServers(
      { mcpServers: { guarded: { type: "http", url: server.url } } },
      {
        startupTimeoutMs: 1_000,
        auth: {
          directory,
          loginTimeoutMs: 10_000,
          // Slower than the start-up timeout: reading the page, typing a password.
          onAuthorizationUrl: (request) => void setTimeout(() => void browser(request), 2_000),
        },
      },
    );
    cleanups.push(() => mcp.close());
    expect(mcp.status()[0]).toMatchObject({ state: "ready", loggedIn: true });
    expect(await whoami(mcp)).toMatch(/with scopes mcp"/);
  }, 30_000);

  it("a call that needed more scope when nobody could log in is served after login(), which asks for that scope", async () => {
    const server = await startOAuthServer();
    const directory = await authDirectory();
    const { browser, visits } = standInBrowser();
    const mcp = await connect(server.url, directory);
    await mcp.login("guarded", browser);
    await expect(mcp.callTool("guarded", "admin-report")).rejects.toThrow(/needs a new OAuth login for admin-report/);
    const status = await mcp.login("guarded", browser);
    expect(status).toMatchObject({ state: "ready" });
    expect(new URL(visits.at(-1)?.url ?? "").searchParams.get("scope")).toBe("mcp admin");
    expect(JSON.stringify((await mcp.callTool("guarded", "admin-report")).content)).toMatch(/admin report for client_/);
  }, 30_000);

  it("two calls that need more scope at once share one login", async () => {
    const server = await startOAuthServer();
    const directory = await authDirectory();
    const { browser, visits } = standInBrowser();
    const mcp = await connect(server.url, directory, browser);
    const results = await Promise.all([mcp.callTool("guarded", "admin-report"), mcp.callTool("guarded", "admin-report")]);
    for (const result of results) expect(JSON.stringify(result.content)).toMatch(/admin report for client_/);
    expect(visits).toHaveLength(2);
  }, 30_000);

  it("a login given up before it starts shows no URL and leaves the server needs-login at once; a restart keeps it so", async () => {
    const server = await startOAuthServer();
    const directory = await authDirectory();
    const shown: string[] = [];
    const mcp = await connect(server.url, directory);
    const started = Date.now();
    const status = await mcp.login("guarded", ({ url }) => void shown.push(url), { signal: AbortSignal.abort() });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(shown).toEqual([]);
    expect(status).toMatchObject({ state: "needs-login" });
    await mcp.restart("guarded");
    expect(mcp.status()[0]).toMatchObject({ state: "needs-login" });
    expect(mcp.status()[0]?.problem).toContain('call login("guarded")');
  }, 30_000);

  it("refuses a redirect whose state is not the login's, and the real one still logs in", async () => {
    const server = await startOAuthServer();
    const directory = await authDirectory();
    let forgedStatus: number | undefined;
    const { browser, visits } = standInBrowser();
    const mcp = await connect(server.url, directory, async (request) => {
      const redirectUri = new URL(new URL(request.url).searchParams.get("redirect_uri") ?? "");
      redirectUri.searchParams.set("code", "forged-code");
      redirectUri.searchParams.set("state", "not-the-state");
      forgedStatus = (await fetch(redirectUri)).status;
      await browser(request);
    });
    expect(forgedStatus).toBe(400);
    expect(visits[0]?.callbackStatus).toBe(200);
    expect(mcp.status()[0]).toMatchObject({ state: "ready" });
  }, 30_000);

  it("logout() removes the stored login; the session's next call asks for one", async () => {
    const server = await startOAuthServer();
    const directory = await authDirectory();
    const { browser } = standInBrowser();
    await (await connect(server.url, directory, browser)).close();
    const mcp = await connect(server.url, directory);
    expect(await readdir(directory)).toHaveLength(1);
    await mcp.logout("guarded");
    expect(await readdir(directory)).toEqual([]);
    await expect(mcp.callTool("guarded", "whoami")).rejects.toThrow(/needs a new OAuth login for whoami.*call login\("guarded"\)/);
    expect(mcp.status()[0]).toMatchObject({ state: "needs-login" });
    // The attempt registered a client again (the SDK does that before the browser step): no login is stored.
    expect((await storedCredentials(directory)).tokens).toBeUndefined();
  }, 30_000);
});

describe("an OAuth login that cannot succeed", () => {
  it("fails a server whose authorization-server metadata is malformed, saying so; the other servers work", async () => {
    const server = await startOAuthServer("--malformed-metadata");
    const directory = await authDirectory();
    const { browser, visits } = standInBrowser();
    const mcp = await connectMcpServers(
      { mcpServers: { guarded: { type: "http", url: server.url }, plain: referenceServers.everything() } },
      { auth: { directory, onAuthorizationUrl: browser } },
    );
    cleanups.push(() => mcp.close());
    const [guarded, plain] = mcp.status();
    expect(guarded).toMatchObject({ name: "guarded", state: "failed" });
    expect(guarded?.problem).toContain("OAuth login failed");
    expect(guarded?.problem).toContain(`metadata at ${new URL(server.url).origin}/.well-known/oauth-authorization-server is not valid`);
    expect(guarded?.problem).toMatch(/authorization_endpoint/);
    expect(guarded?.problem?.length).toBeLessThan(600);
    expect(visits).toEqual([]);
    expect(plain).toMatchObject({ name: "plain", state: "ready" });
    const sum = await mcp.callTool("plain", "get-sum", { a: 1, b: 2 });
    expect(JSON.stringify(sum.content)).toContain("3");
  }, 30_000);

  it("fails a server whose authorization server denies the login (access_denied), saying so", async () => {
    const server = await startOAuthServer("--deny");
    const directory = await authDirectory();
    const { browser, visits } = standInBrowser();
    const mcp = await connect(server.url, directory, browser);
    const [status] = mcp.status();
    expect(status).toMatchObject({ state: "failed" });
    expect(status?.problem).toMatch(/OAuth login failed/);
    expect(status?.problem).toMatch(/access_denied.*declined/);
    expect(visits).toHaveLength(1);
    expect(visits[0]?.callbackStatus).toBe(400);
  }, 30_000);

  it("fails a server whose login never comes back from the browser, within the login timeout", async () => {
    const server = await startOAuthServer();
    const directory = await authDirectory();
    const shown: string[] = [];
    const mcp = await connectMcpServers(
      { mcpServers: { guarded: { type: "http", url: server.url } } },
      { auth: { directory, loginTimeoutMs: 1_000, onAuthorizationUrl: ({ url }) => void shown.push(url) } },
    );
    cleanups.push(() => mcp.close());
    expect(shown).toHaveLength(1);
    expect(mcp.status()[0]).toMatchObject({ state: "failed" });
    expect(mcp.status()[0]?.problem).toBe('its OAuth login failed: no login came back within 1 s. To try again: call login("guarded")');
  }, 30_000);

  it("fails a server whose configured callbackPort is taken, saying which port and what to do", async () => {
    const server = await startOAuthServer();
    const directory = await authDirectory();
    const squatter = createServer();
    await new Promise<void>((resolve) => squatter.listen(0, "127.0.0.1", resolve));
    cleanups.push(() => new Promise((resolve) => squatter.close(() => resolve())));
    const port = (squatter.address() as AddressInfo).port;
    const { browser, visits } = standInBrowser();
    const mcp = await connectMcpServers(
      { mcpServers: { guarded: { type: "http", url: server.url, oauth: { callbackPort: port } } } },
      { auth: { directory, onAuthorizationUrl: browser } },
    );
    cleanups.push(() => mcp.close());
    expect(visits).toEqual([]);
    expect(mcp.status()[0]).toMatchObject({ state: "failed" });
    expect(mcp.status()[0]?.problem).toMatch(
      new RegExp(
        `^its OAuth login failed: the login redirect could not listen on 127\\.0\\.0\\.1:${port} \\(.*EADDRINUSE.*\\): free that port, or set another "oauth\\.callbackPort"\\. To try again: call login\\("guarded"\\)$`,
      ),
    );
  }, 30_000);
});
