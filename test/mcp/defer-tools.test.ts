// Deferred MCP tools: names listed in ToolSearch, schemas sent once the model loads them. Real servers over stdio.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Agent, FakeModel, ToolRegistry } from "../../src/index.js";
import { connectMcpServers, type McpServers } from "../../src/mcp/index.js";
import { reply, toolCall } from "../../src/testing/index.js";
import { referenceServers } from "./reference-servers.js";

let folder: string;
let mcp: McpServers;
beforeAll(async () => {
  folder = mkdtempSync(join(tmpdir(), "minagent-mcp-defer-"));
  mcp = await connectMcpServers({
    mcpServers: { everything: referenceServers.everything(), filesystem: referenceServers.filesystem(folder) },
  });
}, 60_000);
afterAll(async () => {
  await mcp?.close();
  rmSync(folder, { recursive: true, force: true });
});

const local = {
  name: "note",
  description: "Keeps a note",
  parameters: { type: "object", properties: { text: { type: "string" } } },
  execute: () => "noted",
};
const offered = (model: FakeModel, index: number) => model.requests[index]?.tools.map((tool) => tool.name) ?? [];
const results = (messages: readonly { role: string; content: string }[]) => messages.filter((message) => message.role === "tool");

describe("deferred MCP tools", () => {
  it("offers only ToolSearch and the agent's own tools until the model loads an MCP tool by name", async () => {
    const registry = new ToolRegistry().add(local);
    const model = new FakeModel([
      reply("", toolCall("mcp__everything__echo", { message: "too early" }, "1")),
      reply("", toolCall("ToolSearch", { query: "select:mcp__everything__echo,mcp__nowhere__x" }, "2")),
      reply("", toolCall("mcp__everything__echo", { message: "hi" }, "3")),
      "done",
    ]);
    const result = await new Agent(model, registry, { prepareTurn: mcp.prepareTurn(registry, { deferTools: true }) }).run("go");
    expect(offered(model, 0)).toEqual(["note", "ToolSearch"]);
    const search = model.requests[0]?.tools.find((tool) => tool.name === "ToolSearch");
    expect(search?.description).toMatch(/Tools to load:\nmcp__everything__echo\n(.|\n)*mcp__filesystem__read_text_file/);
    const [early, loaded, echoed] = results(result.messages);
    expect(early).toMatchObject({
      isError: true,
      content: expect.stringMatching(/^Tool "mcp__everything__echo" is not available at this step\. Available tools: note, ToolSearch\./),
    });
    expect(loaded?.content).toBe(
      "loaded: mcp__everything__echo — Echoes back the input string\nNo tool is named mcp__nowhere__x.\nCall it from your next turn.",
    );
    expect(offered(model, 2)).toEqual(["note", "mcp__everything__echo", "ToolSearch"]);
    expect(echoed).toMatchObject({ content: "Echo: hi" });
  });

  it("finds tools by keywords, and a continued conversation keeps what it loaded", async () => {
    const registry = new ToolRegistry();
    const model = new FakeModel([
      reply("", toolCall("ToolSearch", { query: "read text file", max_results: 2 }, "1")),
      "found",
      "still here",
    ]);
    const agent = new Agent(model, registry, { prepareTurn: mcp.prepareTurn(registry, { deferTools: true }) });
    const first = await agent.run("go");
    expect(results(first.messages)[0]?.content).toMatch(
      /^loaded: mcp__filesystem__read_text_file — .+\nloaded: mcp__filesystem__read_\w+ — .+\nCall them from your next turn\.$/,
    );
    await agent.run("again", { history: first.messages });
    expect(offered(model, 2)).toEqual(expect.arrayContaining(["mcp__filesystem__read_text_file", "ToolSearch"]));
    expect(offered(model, 2)).not.toContain("mcp__everything__echo");
  });

  it("defers only when the schemas are bigger than aboveTokens, and sends what it saves", async () => {
    const all = new ToolRegistry();
    const allModel = new FakeModel(["hi"]);
    await new Agent(allModel, all, { prepareTurn: mcp.prepareTurn(all, { deferTools: { aboveTokens: 1_000_000 } }) }).run("go");
    expect(offered(allModel, 0)).not.toContain("ToolSearch");
    // The servers' tools, and the two resource tools (a server offers resources).
    expect(offered(allModel, 0).length).toBe(mcp.tools().length + 2);

    const deferred = new ToolRegistry();
    const deferredModel = new FakeModel(["hi"]);
    await new Agent(deferredModel, deferred, { prepareTurn: mcp.prepareTurn(deferred, { deferTools: { aboveTokens: 1_000 } }) }).run("go");
    expect(offered(deferredModel, 0)).toEqual(["ToolSearch"]);
    const size = (model: FakeModel) => JSON.stringify(model.requests[0]?.tools).length;
    expect(size(deferredModel)).toBeLessThan(size(allModel) / 3);
  });
});
