// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the strings are .mcp.json placeholders, not templates.
// server-everything over Streamable HTTP and over the older HTTP+SSE transport, held to 127.0.0.1 on a free port.
import { afterEach, describe, expect, it } from "vitest";
import { Agent, FakeModel, ToolRegistry } from "../../src/index.js";
import { connectMcpServers, type McpServers } from "../../src/mcp/index.js";
import { reply, toolCall } from "../../src/testing/index.js";
import { startEverythingOverHttp, waitFor } from "./reference-servers.js";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe.each(["http", "sse"] as const)("server-everything over %s", (type) => {
  it("lists and calls its tools, sending the configured headers", async () => {
    const server = await startEverythingOverHttp(type === "http" ? "streamableHttp" : "sse");
    cleanups.push(server.stop);
    const mcp: McpServers = await connectMcpServers(
      { mcpServers: { remote: { type, url: server.url, headers: { Authorization: "Bearer ${TOKEN}" } } } },
      { variables: { TOKEN: "test-token-4821" } },
    );
    cleanups.push(() => mcp.close());
    expect(mcp.status()[0]).toMatchObject({ name: "remote", transport: type, state: "ready" });
    const registry = new ToolRegistry();
    const model = new FakeModel([reply("", toolCall("mcp__remote__get-sum", { a: 2, b: 40 }, "1")), "done"]);
    const result = await new Agent(model, registry, { prepareTurn: mcp.prepareTurn(registry) }).run("add");
    expect(result.messages.find((message) => message.role === "tool")?.content).toBe("The sum of 2 and 40 is 42.");
    await waitFor(() => server.output().includes("AUTHORIZATION Bearer test-token-4821"), "the header at the server");
  }, 30_000);
});

describe("a remote server that cannot be reached", () => {
  it("is failed with the reason, and the header's value appears nowhere", async () => {
    const server = await startEverythingOverHttp("streamableHttp");
    await server.stop(); // a port that was just in use, now closed
    const mcp = await connectMcpServers(
      { mcpServers: { gone: { type: "http", url: server.url, headers: { "X-Api-Key": "secret-value-93" } } } },
      { startupTimeoutMs: 5_000 },
    );
    cleanups.push(() => mcp.close());
    const [status] = mcp.status();
    expect(status).toMatchObject({ state: "failed", tools: [] });
    expect(status?.problem).toMatch(/fetch failed|ECONNREFUSED/);
    expect(JSON.stringify(mcp.status())).not.toContain("secret-value-93");
  }, 30_000);
});
