// Logging in to an OAuth-protected MCP server from the shell, then using the login: `minagent mcp login` (the URL
// handed to $BROWSER, a stand-in that follows it as a person's browser would), `minagent code -p` with the stored
// login, and -p without one (the server reported with the command that logs in). The server is the local
// OAuth-protected fixture on 127.0.0.1; the model a scripted Anthropic server.
import { readdir, readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { mcpAuthDirectory } from "../../src/cli/code/start-mcp-servers.js";
import { main } from "../../src/cli/main.js";
import { fakeIo } from "../helpers/fake-io.js";
import { type OAuthServer, standInBrowserProgram, startOAuthFixture } from "../mcp/oauth-fixture.js";
import { answer, anthropicEnv, callTool, printArgs, runCode, useCodeFixture } from "./code-helpers.js";

const fixture = useCodeFixture();
let oauth: OAuthServer;
let config: string;
beforeEach(async () => {
  oauth = await startOAuthFixture();
  config = join(fixture.home, "servers.json");
  await writeFile(config, JSON.stringify({ mcpServers: { guarded: { type: "http", url: oauth.url } } }));
});
afterEach(() => oauth.stop());

async function login() {
  // PATH for the stand-in's `#!/usr/bin/env node`.
  const { io, stdout, stderr } = fakeIo({ MINAGENT_HOME: fixture.home, BROWSER: standInBrowserProgram, PATH: process.env.PATH });
  const exit = await main(["mcp", "login", "guarded", "--mcp-config", config, "--strict-mcp-config"], io);
  return { exit, stdout: stdout(), stderr: stderr() };
}

describe("an OAuth-protected MCP server from the shell", () => {
  test("minagent mcp login hands the URL to the browser, keeps the login readable by the user only, and -p uses it", async () => {
    const result = await login();
    expect(result.stderr).toMatch(/^Log in to guarded in your browser \(opening it\):\n\n {2}http:\/\/127\.0\.0\.1:\d+\/authorize\?/);
    expect(result).toMatchObject({
      exit: 0,
      stdout: `Logged in to guarded (3 tools). The login is kept in ${mcpAuthDirectory(fixture.home)}, readable by you only.\n`,
    });
    const [file] = await readdir(mcpAuthDirectory(fixture.home));
    const path = join(mcpAuthDirectory(fixture.home), file ?? "");
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    const { access_token: token } = JSON.parse(await readFile(path, "utf8")).tokens as { access_token: string };

    fixture.server.reply(callTool("toolu_1", "mcp__guarded__whoami", {}), answer("You are logged in."));
    const run = await runCode(
      printArgs(
        fixture,
        "Who am I?",
        "--mcp-config",
        config,
        "--strict-mcp-config",
        "--allowedTools",
        "mcp__guarded",
        "--output-format",
        "json",
      ),
      anthropicEnv(fixture),
    );
    expect(run.exit).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ mcp_servers: [{ name: "guarded", status: "connected", state: "ready" }] });
    const sent = JSON.stringify(fixture.server.requests.at(-1)?.body);
    expect(sent).toMatch(/client [\w-]+ with scopes/);
    // The token went to the server, never to the model or the session.
    expect(sent).not.toContain(token);
    const sessions = join(fixture.home, "projects");
    let read = 0;
    for (const folder of await readdir(sessions))
      for (const name of await readdir(join(sessions, folder))) {
        const text = await readFile(join(sessions, folder, name), "utf8");
        expect(text).toContain("with scopes"); // the session holds the call's result
        expect(text).not.toContain(token);
        read += 1;
      }
    expect(read).toBe(1);
  }, 60_000);

  test("-p without a stored login reports the server with the command that logs in, and goes on without it", async () => {
    fixture.server.reply(answer("Nothing to call."));
    const run = await runCode(
      printArgs(fixture, "Who am I?", "--mcp-config", config, "--strict-mcp-config", "--output-format", "json"),
      anthropicEnv(fixture),
    );
    expect(run.exit).toBe(0);
    expect(run.stderr).toContain(
      'minagent code: MCP server "guarded" needs a login: run "minagent mcp login guarded" (or /mcp login guarded in a session). Its tools are not available in this run',
    );
    expect(JSON.parse(run.stdout).mcp_servers).toEqual([
      expect.objectContaining({ name: "guarded", status: "needs-auth", state: "needs-login" }),
    ]);
  }, 60_000);
});
