// CodingAgent with MCP servers: their tools in the main agent and in general-purpose subagents (not in read-only
// Explore), permission rules on them, and deferral when asked. Real servers over stdio.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { CodingAgent } from "../../src/code/index.js";
import { FakeModel } from "../../src/index.js";
import { connectMcpServers, type McpServers } from "../../src/mcp/index.js";
import { reply, toolCall } from "../../src/testing/index.js";
import { referenceServers } from "./reference-servers.js";

let root: string;
let mcp: McpServers;
beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "minagent-coding-mcp-"));
  writeFileSync(join(root, "notes.txt"), "tea\n");
  mcp = await connectMcpServers({ mcpServers: { everything: referenceServers.everything(), files: referenceServers.filesystem(root) } });
}, 60_000);
afterAll(async () => {
  await mcp?.close();
  rmSync(root, { recursive: true, force: true });
});

const toolNames = (model: FakeModel, index: number) => model.requests[index]?.tools.map((tool) => tool.name) ?? [];

it("gives the MCP tools to the main agent and to a general-purpose subagent, not to Explore; rules apply to them", async () => {
  const model = new FakeModel([
    reply("", toolCall("Agent", { description: "echo", prompt: "echo sub" }, "a1")),
    reply("", toolCall("mcp__everything__echo", { message: "sub" }, "e1")),
    "sub done",
    reply("", toolCall("Agent", { description: "look", prompt: "look", subagent_type: "Explore" }, "a2")),
    "explored",
    reply("", toolCall("mcp__files__write_file", { path: join(root, "x.txt"), content: "x" }, "w1")),
    "done",
  ]);
  const agent = await CodingAgent.create(model, {
    workspace: root,
    settingsFiles: [],
    mcp,
    rules: { allow: ["mcp__everything"], deny: ["mcp__files__write_file"] },
  });
  const result = await agent.run("go");
  expect(result.final).toBe("done");
  expect(toolNames(model, 0)).toEqual(expect.arrayContaining(["Read", "Agent", "mcp__everything__echo", "mcp__files__read_text_file"]));
  expect(toolNames(model, 0)).not.toContain("ToolSearch"); // 27 tools are far below a tenth of the window
  expect(toolNames(model, 1)).toEqual(expect.arrayContaining(["Read", "mcp__everything__echo"]));
  expect(model.requests[2]?.messages.at(-1)).toMatchObject({ role: "tool", content: "Echo: sub" });
  expect(toolNames(model, 4).some((name) => name.startsWith("mcp__"))).toBe(false);
  const denied = result.messages.filter((message) => message.role === "tool").at(-1);
  expect(denied).toMatchObject({ isError: true, content: expect.stringMatching(/mcp__files__write_file/) });
});

it("defers the MCP tools behind ToolSearch when told to", async () => {
  const model = new FakeModel(["hi"]);
  const agent = await CodingAgent.create(model, { workspace: root, settingsFiles: [], mcp, deferMcpTools: true });
  await agent.run("go");
  expect(toolNames(model, 0)).toContain("ToolSearch");
  expect(toolNames(model, 0).some((name) => name.startsWith("mcp__"))).toBe(false);
});
