// `/mcp` in the interactive session, in process: a real MCP server (the SDK-built misbehaving fixture), a fake
// terminal whose keys the test types. `/mcp restart <server>` brings back a server that stopped, in the session.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, expect, test } from "vitest";
import { runInteractiveSession } from "../../src/cli/code/interactive/index.js";
import type { CodeSessionContext } from "../../src/cli/code/session-context.js";
import { CodingAgent } from "../../src/code/coding-agent.js";
import { connectMcpServers, type McpServers } from "../../src/mcp/index.js";
import { FakeModel } from "../../src/models/fake-model.js";
import { referenceServers } from "../mcp/reference-servers.js";
import { type FakeTerminal, fakeTerminal, interactiveOptions, memorySessionParts, until } from "./interactive-harness.js";

let workspace: string;
let mcp: McpServers | undefined;
const agents: CodingAgent[] = [];
beforeEach(async () => {
  workspace = await mkdtemp(join(tmpdir(), "minagent-mcp-interactive-"));
});
afterEach(async () => {
  await Promise.all(agents.splice(0).map((agent) => agent.close()));
  await mcp?.close();
  await rm(workspace, { recursive: true, force: true });
});

function setUp(servers: McpServers, script: string[]): { context: CodeSessionContext; terminal: FakeTerminal; model: FakeModel } {
  const terminal = fakeTerminal({ columns: 120, rows: 40 });
  const model = new FakeModel(script);
  const context: CodeSessionContext = {
    io: { stdout: () => {}, stderr: () => {}, readLine: async () => undefined, env: {} },
    terminal,
    model: { spec: "anthropic:claude-haiku-4-5", id: "claude-haiku-4-5", instance: model },
    options: interactiveOptions(workspace),
    createAgent: async (overrides) => {
      const agent = await CodingAgent.create(model, {
        workspace,
        settingsFiles: [],
        userDirectory: join(workspace, ".home"),
        sandbox: false,
        subagents: false,
        mcp: servers,
        ...overrides,
      });
      agents.push(agent);
      return agent;
    },
    ...memorySessionParts("session-1"),
  };
  return { context, terminal, model };
}

const waitFor = (terminal: FakeTerminal, expected: string | RegExp) => until(terminal, expected, 15_000);

test("/mcp restart <server> brings back a server that stopped too often, without a new session", async () => {
  mcp = await connectMcpServers({ mcpServers: { m: referenceServers.misbehaving() } }, { maxRestarts: 0 });
  await expect(mcp.callTool("m", "crash")).rejects.toThrow(/stopped while running crash/);
  await expect(mcp.callTool("m", "echo", { message: "x" })).rejects.toThrow(/is unavailable/);
  const { context, terminal, model } = setUp(mcp, ["Hello.", "Hello again."]);
  const exit = runInteractiveSession(context);
  await waitFor(terminal, "/help for commands");
  terminal.press("hi\r");
  await waitFor(terminal, "Hello.");
  const offered = (index: number) => model.requests[index]?.tools.map((tool) => tool.name).filter((name) => name.startsWith("mcp__"));
  expect(offered(0)).toEqual([]);
  terminal.press("/help\r");
  await waitFor(terminal, /\/mcp \[restart\|login\|logout <server>\] the MCP servers: their state, tools and problems; restart one/);
  terminal.press("/mcp\r");
  await waitFor(terminal, /m {2}unavailable {2}stdio {2}\(code\)\n {2}it stopped 1 times/);
  terminal.press("/mcp restart\r");
  await waitFor(terminal, "Name the server: /mcp restart <server> (m).");
  terminal.press("/mcp restart nope\r");
  await waitFor(terminal, 'There is no MCP server named "nope" (servers: m).');
  terminal.press("/mcp frobnicate\r");
  await waitFor(
    terminal,
    "Unknown /mcp frobnicate: /mcp lists the servers, /mcp restart <server> restarts one, /mcp login <server> and /mcp logout <server> handle its login.",
  );
  terminal.press("/mcp restart m\r");
  await waitFor(terminal, /Restarting m…\nm {2}ready {2}stdio {2}\(code\)\n {2}3 tools: echo, sleep, crash/);
  expect(mcp.status()[0]).toMatchObject({ state: "ready", restarts: 0 });
  // Its tools are back from the next turn on.
  terminal.press("hi again\r");
  await waitFor(terminal, "Hello again.");
  expect(offered(1)).toEqual(["mcp__m__echo", "mcp__m__sleep", "mcp__m__crash"]);
  // Claude Code's word for it works too.
  terminal.press("/mcp reconnect m\r");
  await waitFor(terminal, /Restarting m…\nm {2}ready[\s\S]*Restarting m…\nm {2}ready/);
  terminal.press("\x04");
  expect(await exit).toBe(0);
}, 60_000);
