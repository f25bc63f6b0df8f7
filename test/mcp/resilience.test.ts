// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the strings are .mcp.json placeholders, not templates.
// What happens when MCP servers misbehave: a server killed mid-call, one that never starts, a long call aborted or
// timed out, a tool list that changes mid-run. Real servers over stdio; every process the tests start is stopped.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Agent, defineTool, FakeModel, ToolRegistry } from "../../src/index.js";
import type { McpServers } from "../../src/mcp/index.js";
import { reply, toolCall } from "../../src/testing/index.js";
import { isRunning, referenceServers, useMcpScratch, waitFor } from "./reference-servers.js";

const scratch = useMcpScratch("minagent-mcp-resilience-");
const connect = scratch.connect;

const toolResults = (messages: readonly { role: string; content: string; isError?: boolean }[]) =>
  messages.filter((message) => message.role === "tool");
const longCall = (id: string) => reply("", toolCall("mcp__everything__trigger-long-running-operation", { duration: 30, steps: 30 }, id));
const echoCall = (id: string) => reply("", toolCall("mcp__everything__echo", { message: id }, id));
const pidOf = (mcp: McpServers, name: string) => mcp.status().find((server) => server.name === name)?.pid;

describe("a server that stops", () => {
  it("reports the call that failed, restarts on the next call, and gives up after maxRestarts", async () => {
    const mcp = await connect({ mcpServers: { everything: referenceServers.everything() } }, { maxRestarts: 1 });
    const firstPid = pidOf(mcp, "everything") as number;
    const registry = new ToolRegistry();
    const model = new FakeModel([longCall("a"), echoCall("b"), longCall("c"), echoCall("d"), "done"]);
    const agent = new Agent(model, registry, {
      prepareTurn: mcp.prepareTurn(registry),
      maxSteps: 10,
      // Kill the server as each long call starts, as a crash would.
      onEvent: (event) => {
        if (event.type === "tool-call-start" && event.toolCall.name.endsWith("long-running-operation")) {
          const pid = pidOf(mcp, "everything");
          if (pid) process.kill(pid, "SIGKILL");
        }
      },
    });
    const result = await agent.run("go");
    const [crash, restarted, secondCrash, unavailable] = toolResults(result.messages);
    expect(crash).toMatchObject({ isError: true });
    expect(crash?.content).toMatch(
      /^MCP server "everything" stopped while running trigger-long-running-operation \(the server stopped.*\)\. It will be restarted on the next call/,
    );
    expect(restarted).toMatchObject({ content: "Echo: b" });
    expect(secondCrash?.content).toMatch(/stopped while running/);
    expect(unavailable).toMatchObject({ isError: true });
    expect(unavailable?.content).toMatch(
      /^MCP server "everything" is unavailable: it stopped 2 times \(last: the server stopped.*\)\. Its tools cannot be used now/,
    );
    expect(mcp.status()[0]).toMatchObject({ state: "unavailable", restarts: 1, tools: [] });
    // Withdrawn from the next turn: the model is not offered tools that cannot run.
    expect(model.requests.at(-1)?.tools.some((tool) => tool.name.startsWith("mcp__"))).toBe(false);
    expect(isRunning(firstPid)).toBe(false);
    expect(result.final).toBe("done");
  }, 60_000);

  it("notices a server whose process ended while a helper it started keeps its output open, and restarts it", async () => {
    // The SDK reports a stdio server's end only once every holder of its pipes has let go: here not for 20 s.
    const orphanPidFile = join(scratch.folder(), "orphan.pid");
    const mcp = await connect({ mcpServers: { m: referenceServers.misbehaving({ MISBEHAVING_ORPHAN_PID_FILE: orphanPidFile }) } });
    const call = (tool: string, args: Record<string, unknown>, timeoutMs = 10_000) =>
      mcp.callTool("m", tool, args, { signal: AbortSignal.timeout(timeoutMs) }).then(
        (result) => ((result.content ?? []) as readonly { text?: string }[]).map((block) => block.text ?? "").join("\n"),
        (error: Error) => `✗ ${error.message}`,
      );
    try {
      // A crash, and the restart the next call makes.
      expect(await call("crash", {})).toMatch(/^✗ MCP server "m" stopped while running crash/);
      expect(await call("echo", { message: "a" })).toMatch(/^echo: a/);
      expect(mcp.status()[0]).toMatchObject({ state: "ready", restarts: 1 });
      // A crash the SDK does not report: the call times out, and the server is not taken for ready.
      const pid = pidOf(mcp, "m") as number;
      expect(await call("crash", { orphan: true }, 1_000)).toMatch(/^✗ .*timeout/i);
      await waitFor(() => !isRunning(pid), "the server's process to end");
      expect(mcp.status()[0]).toMatchObject({ state: "crashed", problem: expect.stringMatching(/^the server stopped/) });
      // The next call restarts it; calls that time out leave it usable.
      expect(await call("sleep", { ms: 5_000 }, 300)).toMatch(/^✗ .*timeout/i);
      expect(await call("sleep", { ms: 5_000 }, 300)).toMatch(/^✗ .*timeout/i);
      expect(await call("echo", { message: "b" })).toMatch(/^echo: b/);
      expect(mcp.status()[0]).toMatchObject({ state: "ready", restarts: 2 });
      expect(pidOf(mcp, "m")).not.toBe(pid);
    } finally {
      if (existsSync(orphanPidFile)) process.kill(Number(readFileSync(orphanPidFile, "utf8")), "SIGKILL");
    }
  }, 60_000);
});

describe("servers that are slow or never start", () => {
  it("fails a server that never answers the handshake, stops its process, and does not hold up the others", async () => {
    const pidFile = join(scratch.folder(), "silent.pid");
    const silent = {
      command: process.execPath,
      args: ["-e", "require('node:fs').writeFileSync(process.argv[1], String(process.pid)); setInterval(() => {}, 1000)", pidFile],
    };
    const mcp = await connect(
      { mcpServers: { silent, everything: referenceServers.everything(), missing: { command: join(scratch.folder(), "no-such-server") } } },
      { wait: false, startupTimeoutMs: 1_500 },
    );
    // The first turn runs at once: nothing waits for a server.
    const registry = new ToolRegistry();
    const offered: string[][] = [];
    const pause = defineTool({
      name: "wait_for_everything",
      description: "Waits until the everything server is ready",
      parameters: { type: "object", properties: {} },
      execute: () => waitFor(() => mcp.status()[1]?.state === "ready", "everything to be ready").then(() => "ready"),
    });
    registry.add(pause);
    const model = new FakeModel([reply("", toolCall("wait_for_everything", {}, "w")), echoCall("hi"), "done"]);
    const sync = mcp.prepareTurn(registry);
    const agent = new Agent(model, registry, {
      prepareTurn: async (context) => {
        await sync(context);
        offered.push(registry.names());
      },
    });
    const result = await agent.run("go");
    expect(offered[0]).toEqual(["wait_for_everything"]);
    expect(offered[1]).toContain("mcp__everything__echo");
    expect(toolResults(result.messages)[1]).toMatchObject({ content: "Echo: hi" });
    await mcp.ready();
    const [silentStatus, everything, missing] = mcp.status();
    expect(silentStatus).toMatchObject({ state: "failed", tools: [] });
    // What to check: the timeout, and the variables a server behind a proxy needs.
    expect(silentStatus?.problem).toBe(
      `it did not answer within 1500 ms of starting. If it is only slow to start (npx fetching its package, say), allow it more: MCP_TIMEOUT=<ms> for minagent code, startupTimeoutMs in code. If it needs the network: it gets the proxy and CA variables (HTTPS_PROXY, NO_PROXY, NODE_EXTRA_CA_CERTS, npm_config_*…) from this environment; set any other variable it needs in its "env" in code`,
    );
    expect(everything).toMatchObject({ state: "ready" });
    expect(missing).toMatchObject({
      state: "failed",
      problem: expect.stringMatching(/^its command ".*no-such-server" was not found: install it/),
    });
    const pid = Number(readFileSync(pidFile, "utf8"));
    await waitFor(() => !isRunning(pid), "the silent server's process to be stopped", 10_000);
  }, 60_000);

  it("reports a server whose ${VAR} is unset, and starts the rest", async () => {
    const mcp = await connect(
      {
        mcpServers: {
          github: { type: "http", url: "https://example.invalid/mcp", headers: { Authorization: "Bearer ${GITHUB_TOKEN}" } },
          everything: referenceServers.everything(),
        },
      },
      { variables: {} },
    );
    expect(mcp.status()[0]).toMatchObject({
      state: "failed",
      problem:
        "code: ${GITHUB_TOKEN} in headers.Authorization is not set: set GITHUB_TOKEN in the environment, or write ${GITHUB_TOKEN:-<default>}",
    });
    expect(mcp.status()[1]).toMatchObject({ state: "ready" });
  }, 30_000);

  it("stops every stdio server on close, and answers later calls that the servers were closed", async () => {
    const mcp = await connect({
      mcpServers: { a: referenceServers.everything(), b: referenceServers.memory(join(scratch.folder(), "m.jsonl")) },
    });
    const pids = mcp.status().map((server) => server.pid as number);
    const echo = mcp.tools().find((tool) => tool.name === "mcp__a__echo");
    expect(
      echo,
      mcp
        .tools()
        .map((tool) => tool.name)
        .join(),
    ).toBeDefined();
    await mcp.close();
    for (const pid of pids) await waitFor(() => !isRunning(pid), `server ${pid} to exit`, 10_000);
    expect(mcp.status().map((server) => server.state)).toEqual(["closed", "closed"]);
    await expect(
      echo?.execute({ message: "x" }, { signal: new AbortController().signal, toolCallId: "1", run: undefined as never }),
    ).rejects.toThrow('MCP server "a" is unavailable: it was closed.');
  }, 30_000);
});

describe("cancelling a call", () => {
  it("sends the protocol's cancellation when the run is aborted", async () => {
    const log = join(scratch.folder(), "wire.jsonl");
    const mcp = await connect({ mcpServers: { everything: referenceServers.recorded(log, referenceServers.everything()) } });
    const registry = new ToolRegistry();
    const controller = new AbortController();
    const agent = new Agent(new FakeModel([longCall("slow"), "done"]), registry, {
      prepareTurn: mcp.prepareTurn(registry),
      onEvent: (event) => {
        if (event.type === "tool-call-start") setTimeout(() => controller.abort(), 200);
      },
    });
    const started = Date.now();
    await expect(agent.run("go", { signal: controller.signal })).rejects.toThrow(/abort/i);
    expect(Date.now() - started).toBeLessThan(10_000);
    const call = await waitForLine(log, (message) => message.method === "tools/call");
    const cancel = await waitForLine(log, (message) => message.method === "notifications/cancelled");
    expect(cancel.params).toMatchObject({ requestId: call.id });
    // The server is still usable.
    const echo = await mcp.callTool("everything", "echo", { message: "still here" });
    expect(echo.content).toEqual([{ type: "text", text: "Echo: still here" }]);
  }, 30_000);

  it("cancels a call that passes its timeout, and tells the model", async () => {
    const log = join(scratch.folder(), "wire.jsonl");
    const mcp = await connect(
      { mcpServers: { everything: referenceServers.recorded(log, referenceServers.everything()) } },
      { toolTimeoutMs: 300 },
    );
    const registry = new ToolRegistry();
    const agent = new Agent(new FakeModel([longCall("slow"), "done"]), registry, { prepareTurn: mcp.prepareTurn(registry) });
    const result = await agent.run("go");
    expect(toolResults(result.messages)[0]).toMatchObject({ isError: true, content: expect.stringMatching(/timed out after 300 ms/) });
    const call = await waitForLine(log, (message) => message.method === "tools/call");
    const cancel = await waitForLine(log, (message) => message.method === "notifications/cancelled");
    expect(cancel.params).toMatchObject({ requestId: call.id });
  }, 30_000);
});

describe("a tool list that changes", () => {
  it("offers a tool the server adds before the next turn, and drops one it removes", async () => {
    const mcp = await connect({ mcpServers: { changing: referenceServers.changingTools() } });
    const registry = new ToolRegistry();
    const model = new FakeModel([
      reply("", toolCall("mcp__changing__add_tool", { name: "fresh" }, "1")),
      reply("", toolCall("mcp__changing__fresh", {}, "2")),
      reply("", toolCall("mcp__changing__remove_tool", { name: "fresh" }, "3")),
      reply("", toolCall("mcp__changing__fresh", {}, "4")),
      "done",
    ]);
    const agent = new Agent(model, registry, { prepareTurn: mcp.prepareTurn(registry), maxSteps: 6 });
    const result = await agent.run("go");
    const offered = model.requests.map((request) => request.tools.map((tool) => tool.name).sort());
    expect(offered[0]).toEqual(["mcp__changing__add_tool", "mcp__changing__remove_tool"]);
    expect(offered[1]).toEqual(["mcp__changing__add_tool", "mcp__changing__fresh", "mcp__changing__remove_tool"]);
    expect(offered[3]).toEqual(["mcp__changing__add_tool", "mcp__changing__remove_tool"]);
    const results = toolResults(result.messages);
    expect(results[1]).toMatchObject({ content: "fresh answered" });
    expect(results[3]).toMatchObject({ isError: true, content: expect.stringMatching(/Unknown tool "mcp__changing__fresh"/) });
  }, 30_000);
});

/** Waits for a JSON-RPC message in a recorded wire log that `match` picks. */
async function waitForLine(log: string, match: (message: Record<string, unknown>) => boolean): Promise<Record<string, unknown>> {
  let found: Record<string, unknown> | undefined;
  await waitFor(() => {
    if (!existsSync(log)) return false;
    const lines = readFileSync(log, "utf8").split("\n").filter(Boolean);
    found = lines.map((line) => JSON.parse(line) as Record<string, unknown>).find(match);
    return found !== undefined;
  }, "a message in the wire log");
  return found as Record<string, unknown>;
}
