import { existsSync } from "node:fs";
import { mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { startWireServer, type WireRequest, type WireServer } from "../../src/testing/wire-server.js";
import { anthropicStream } from "../helpers/wire-bodies.js";
import { type OAuthServer, standInBrowserProgram, startOAuthFixture } from "../mcp/oauth-fixture.js";
import { bin, hasTmux, Pane } from "./tmux-pane.js";

// A person logging in to an OAuth-protected MCP server from inside a session: the built bin in a tmux pane, /mcp
// showing the server as needing a login, /mcp login handing the URL to $BROWSER (a stand-in that follows it, as a
// browser would, back to minagent's 127.0.0.1 listener), and the server's tools working at the next turn. The server
// is the local OAuth-protected fixture; the model a scripted Anthropic server on 127.0.0.1.

const usage = { input_tokens: 1500, output_tokens: 30 };

function toolResult(request: WireRequest | undefined): string {
  const body = request?.body as { messages: { content: string | { type: string; content?: unknown }[] }[] } | undefined;
  const content = body?.messages.at(-1)?.content;
  const result = Array.isArray(content) ? content.find((block) => block.type === "tool_result") : undefined;
  return typeof result?.content === "string" ? result.content : JSON.stringify(result?.content ?? "");
}

describe.skipIf(!hasTmux)("/mcp login in minagent code (tmux)", () => {
  let model: WireServer;
  let oauth: OAuthServer;
  let workspace: string;
  let home: string;
  let pane: Pane;

  beforeEach(async () => {
    if (!existsSync(bin)) throw new Error(`${bin} is missing: npm test builds it first (or set MINAGENT_TEST_BIN)`);
    model = await startWireServer();
    oauth = await startOAuthFixture();
    workspace = await mkdtemp(join(tmpdir(), "minagent-tmux-workspace-"));
    home = await mkdtemp(join(tmpdir(), "minagent-tmux-home-"));
    await writeFile(join(home, "servers.json"), JSON.stringify({ mcpServers: { guarded: { type: "http", url: oauth.url } } }));
    pane = new Pane({ columns: 120, rows: 40 });
  });

  afterEach(async () => {
    await pane.kill();
    await model.close();
    await oauth.stop();
    await rm(workspace, { recursive: true, force: true });
    await rm(home, { recursive: true, force: true });
  });

  const enter = async (text: string) => {
    await pane.type(text);
    await pane.keys("Enter");
  };

  test("a server that needs a login says so in /mcp; /mcp login logs in and its tools work at the next turn", async () => {
    model.reply(
      { sse: anthropicStream([{ type: "tool_use", id: "t1", name: "mcp__guarded__whoami", input: {} }], "tool_use", usage) },
      { sse: anthropicStream([{ type: "text", text: "You are the client minagent registered." }], "end_turn", usage) },
    );
    const env = {
      ANTHROPIC_API_KEY: "sk-ant-test",
      ANTHROPIC_BASE_URL: model.url,
      MINAGENT_HOME: home,
      HOME: home,
      BROWSER: standInBrowserProgram,
    };
    await pane.start(workspace, env, [
      "--model",
      "anthropic:claude-haiku-4-5",
      "--mcp-config",
      join(home, "servers.json"),
      "--allowedTools",
      "mcp__guarded",
    ]);
    await pane.waitFor(/^>/m);

    // The server starts in the background: /mcp until it has found that it needs a login.
    for (let attempt = 0; ; attempt++) {
      await enter("/mcp");
      const screen = await pane.waitFor(/guarded {2}[\w-]+/);
      if (screen.includes("guarded  needs-login")) break;
      if (attempt === 40) throw new Error(`the server never said it needs a login:\n${screen}`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(await pane.screen()).toContain('it needs an OAuth login: run "minagent mcp login guarded" (or /mcp login guarded in a session)');

    await enter("/mcp login guarded");
    const loggedIn = await pane.waitFor("Logged in to guarded: 3 tools, at the next turn.", 20_000);
    expect(loggedIn).toMatch(/Log in to guarded in your browser \(opening it\):\s+http:\/\/127\.0\.0\.1:\d+\/authorize\?/);
    await enter("/mcp");
    await pane.waitFor(/guarded {2}ready {2}http {2}logged in/);
    expect(await readdir(join(home, "mcp-auth"))).toHaveLength(1);

    await enter("Who am I on the guarded server?");
    await pane.waitFor("You are the client minagent registered.", 20_000);
    expect(toolResult(model.requests.at(-1))).toMatch(/client [\w-]+ with scopes/);
  }, 90_000);
});
