// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the strings are .mcp.json placeholders, not templates.
// McpServers.restart: a person's `/mcp restart <server>` — a server restarted whatever its state, its restart count
// back to 0, without a new session. Real servers over stdio (the SDK-built misbehaving fixture).
import { writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import type { McpServers } from "../../src/mcp/index.js";
import { isRunning, referenceServers, useMcpScratch, waitFor } from "./reference-servers.js";

const fixture = join(dirname(fileURLToPath(import.meta.url)), "fixtures", "misbehaving-server.mjs");
const scratch = useMcpScratch("minagent-mcp-restart-");
const connect = scratch.connect;

const echo = async (mcp: McpServers, message: string) =>
  ((await mcp.callTool("m", "echo", { message })).content as readonly { text?: string }[])[0]?.text;

describe("McpServers.restart", () => {
  it("restarts a ready server: a new process, its tools listed again", async () => {
    const mcp = await connect({ mcpServers: { m: referenceServers.misbehaving() } });
    const first = mcp.status()[0]?.pid as number;
    await mcp.restart("m");
    expect(mcp.status()[0]).toMatchObject({ state: "ready", restarts: 0, tools: ["mcp__m__echo", "mcp__m__sleep", "mcp__m__crash"] });
    const second = mcp.status()[0]?.pid as number;
    expect(second).not.toBe(first);
    await waitFor(() => !isRunning(first), "the first process to end");
    expect(await echo(mcp, "hi")).toBe(`echo: hi (pid ${second})`);
  }, 30_000);

  it("brings back a server that stopped too often, with its restart count back to 0", async () => {
    const mcp = await connect({ mcpServers: { m: referenceServers.misbehaving() } }, { maxRestarts: 0 });
    await expect(mcp.callTool("m", "crash")).rejects.toThrow(/stopped while running crash/);
    await expect(mcp.callTool("m", "echo", { message: "x" })).rejects.toThrow(/is unavailable: it stopped 1 times/);
    expect(mcp.status()[0]).toMatchObject({ state: "unavailable", tools: [] });
    await mcp.restart("m");
    expect(mcp.status()[0]).toMatchObject({ state: "ready", restarts: 0 });
    expect(mcp.status()[0]).not.toHaveProperty("problem");
    expect(await echo(mcp, "back")).toMatch(/^echo: back/);
  }, 30_000);

  it("starts a server that failed to start, once what it needed is there", async () => {
    // The server's program does not exist yet: it fails; once written, a restart starts it.
    const program = join(scratch.folder(), "server.mjs");
    const mcp = await connect({ mcpServers: { m: { command: process.execPath, args: [program] } } });
    expect(mcp.status()[0]).toMatchObject({ state: "failed", problem: expect.stringMatching(/Connection closed.*Node\.js/) });
    writeFileSync(program, `import ${JSON.stringify(fixture)};\n`);
    await mcp.restart("m");
    expect(mcp.status()[0]).toMatchObject({ state: "ready", restarts: 0 });
    expect(await echo(mcp, "now")).toMatch(/^echo: now/);
  }, 30_000);

  it("answers a call under way that the server stopped, and leaves a server whose entry cannot start failed", async () => {
    const mcp = await connect(
      { mcpServers: { m: referenceServers.misbehaving(), broken: { command: "${NO_SUCH_SERVER}" } } },
      { variables: {} },
    );
    const call = mcp.callTool("m", "sleep", { ms: 10_000 }).catch((error: Error) => error);
    await new Promise((resolve) => setTimeout(resolve, 200));
    await mcp.restart("m");
    expect(await call).toMatchObject({ message: expect.stringMatching(/^MCP server "m" stopped while running sleep/) });
    expect(mcp.status()[0]).toMatchObject({ state: "ready", restarts: 0 });
    const broken = mcp.status()[1];
    await mcp.restart("broken");
    expect(mcp.status()[1]).toEqual(broken);
  }, 30_000);

  it("refuses a name no server has, and servers that were closed", async () => {
    const mcp = await connect({ mcpServers: { m: referenceServers.misbehaving() } });
    await expect(mcp.restart("n")).rejects.toThrow('There is no MCP server named "n" to restart (servers: m).');
    await mcp.close();
    await expect(mcp.restart("m")).rejects.toThrow("These MCP servers were closed: connect again to restart one.");
    expect(mcp.status()[0]).toMatchObject({ state: "closed" });
  }, 30_000);
});
