// The reference MCP servers from the npm registry, started over stdio by the tests, driven through minagent's loop.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Agent, FakeModel, planMode, ToolRegistry } from "../../src/index.js";
import { connectMcpServers, type McpServers } from "../../src/mcp/index.js";
import { reply, toolCall } from "../../src/testing/index.js";
import { referenceServers } from "./reference-servers.js";

let folder: string;
let root: string;
let mcp: McpServers;

beforeAll(async () => {
  folder = mkdtempSync(join(tmpdir(), "minagent-mcp-"));
  root = join(folder, "root");
  await import("node:fs/promises").then((fs) => fs.mkdir(root));
  writeFileSync(join(root, "notes.txt"), "first line\nsecond line\n");
  writeFileSync(join(folder, "outside.txt"), "not for the server");
  mcp = await connectMcpServers({
    mcpServers: {
      everything: referenceServers.everything(),
      filesystem: referenceServers.filesystem(root),
      memory: referenceServers.memory(join(folder, "memory.jsonl")),
    },
  });
}, 60_000);

afterAll(async () => {
  await mcp?.close();
  rmSync(folder, { recursive: true, force: true });
});

/** Runs one scripted turn that calls `name` with `args`, and returns the observation the model was sent. */
async function callThroughAgent(name: string, args: Record<string, unknown>) {
  const registry = new ToolRegistry();
  const model = new FakeModel([reply("", toolCall(name, args, "call-1")), "done"]);
  const agent = new Agent(model, registry, { prepareTurn: mcp.prepareTurn(registry) });
  const result = await agent.run("go");
  const observation = result.messages.find((message) => message.role === "tool");
  return { observation, tools: model.requests[0]?.tools ?? [], result };
}

describe("the reference servers over stdio", () => {
  it("starts all three and names their tools mcp__<server>__<tool>", () => {
    const status = mcp.status();
    expect(status.map(({ name, state, transport }) => ({ name, state, transport }))).toEqual([
      { name: "everything", state: "ready", transport: "stdio" },
      { name: "filesystem", state: "ready", transport: "stdio" },
      { name: "memory", state: "ready", transport: "stdio" },
    ]);
    const names = mcp.tools().map((tool) => tool.name);
    expect(names).toEqual(expect.arrayContaining(["mcp__everything__echo", "mcp__filesystem__read_text_file", "mcp__memory__read_graph"]));
    expect(names.every((name) => /^mcp__[a-z]+__[A-Za-z0-9_-]+$/.test(name) && name.length <= 64)).toBe(true);
    for (const server of status) expect(server.pid).toBeGreaterThan(0);
  });

  it("sends the model the servers' descriptions and JSON Schemas as given, and maps readOnlyHint to readOnly", async () => {
    const { tools } = await callThroughAgent("mcp__everything__echo", { message: "hi" });
    const echo = tools.find((tool) => tool.name === "mcp__everything__echo");
    expect(echo?.description).toBe("Echoes back the input string");
    expect(echo?.parameters).toMatchObject({ type: "object", properties: { message: { type: "string" } }, required: ["message"] });
    const byName = new Map(mcp.tools().map((tool) => [tool.name, tool]));
    expect(byName.get("mcp__everything__echo")?.readOnly).toBe(true);
    expect(byName.get("mcp__filesystem__write_file")?.readOnly).toBe(false);
    expect(byName.get("mcp__filesystem__write_file")?.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    expect(byName.get("mcp__filesystem__write_file")).toMatchObject({ server: "filesystem", mcpName: "write_file" });
  });

  it("answers a call with the server's text", async () => {
    const { observation, result } = await callThroughAgent("mcp__everything__echo", { message: "hello over stdio" });
    expect(observation?.content).toBe("Echo: hello over stdio");
    expect(observation?.isError).toBeFalsy();
    expect(result.final).toBe("done");
  });

  it("gives the model an image result as an image part, its text saying it is attached", async () => {
    const { observation } = await callThroughAgent("mcp__everything__get-tiny-image", {});
    expect(observation?.content).toMatch(/^\[image image\/png: attached\]$/m);
    expect(observation?.content).not.toMatch(/iVBOR/); // no base64 in the text
    expect(observation?.parts).toEqual([{ type: "image", mediaType: "image/png", data: expect.stringMatching(/^iVBOR/) }]);
  });

  it("passes an embedded text resource with its uri, and structured content as JSON", async () => {
    const resource = await callThroughAgent("mcp__everything__get-resource-reference", { resourceType: "Text", resourceId: 2 });
    expect(resource.observation?.content).toMatch(/^\[resource demo:\/\/resource\/dynamic\/text\/2, text\/plain\]\nResource 2:/m);
    const structured = await callThroughAgent("mcp__everything__get-structured-content", { location: "Chicago" });
    expect(JSON.parse(structured.observation?.content ?? "")).toMatchObject({
      temperature: expect.any(Number),
      conditions: expect.any(String),
    });
  });

  it("turns a result with isError into an error observation", async () => {
    const { observation } = await callThroughAgent("mcp__filesystem__read_text_file", { path: join(root, "missing.txt") });
    expect(observation?.isError).toBe(true);
    expect(observation?.content).toMatch(/ENOENT|no such file/i);
  });

  it("reads inside the filesystem server's root, and sees it refuse a path outside", async () => {
    const inside = await callThroughAgent("mcp__filesystem__read_text_file", { path: join(root, "notes.txt") });
    expect(inside.observation).toMatchObject({ content: "first line\nsecond line\n" });
    const outside = await callThroughAgent("mcp__filesystem__read_text_file", { path: join(folder, "outside.txt") });
    expect(outside.observation?.isError).toBe(true);
    expect(outside.observation?.content).toMatch(/Access denied - path outside allowed directories/);
    expect(outside.observation?.content).not.toContain("not for the server");
  });

  it("keeps what the memory server was told, across calls", async () => {
    await callThroughAgent("mcp__memory__create_entities", {
      entities: [{ name: "Ada", entityType: "person", observations: ["prefers tea"] }],
    });
    const { observation } = await callThroughAgent("mcp__memory__search_nodes", { query: "tea" });
    expect(JSON.parse(observation?.content ?? "{}")).toMatchObject({ entities: [{ name: "Ada", observations: ["prefers tea"] }] });
    expect(readFileSync(join(folder, "memory.jsonl"), "utf8")).toContain("prefers tea");
  });

  it("gives a program the whole result through callTool, structured content included", async () => {
    const result = await mcp.callTool("filesystem", "read_text_file", { path: join(root, "notes.txt") });
    expect(result.structuredContent).toEqual({ content: "first line\nsecond line\n" });
    await expect(mcp.callTool("nowhere", "x")).rejects.toThrow(
      'There is no MCP server named "nowhere" (servers: everything, filesystem, memory).',
    );
  });

  it("lets plan mode run a read-only MCP tool and refuse one that writes", async () => {
    const registry = planMode({ approve: () => false, startInPlanMode: true }).install(new ToolRegistry());
    const model = new FakeModel([
      reply(
        "",
        toolCall("mcp__filesystem__read_text_file", { path: join(root, "notes.txt") }, "read"),
        toolCall("mcp__filesystem__write_file", { path: join(root, "new.txt"), content: "x" }, "write"),
      ),
      "done",
    ]);
    const result = await new Agent(model, registry, { prepareTurn: mcp.prepareTurn(registry) }).run("plan");
    const [read, write] = result.messages.filter((message) => message.role === "tool");
    expect(read).toMatchObject({ content: "first line\nsecond line\n" });
    expect(write).toMatchObject({ isError: true, content: expect.stringMatching(/plan mode/i) });
    expect(() => readFileSync(join(root, "new.txt"))).toThrow(/ENOENT/);
  });

  it("runs read-only MCP calls of one turn at once when the registry orders effects", async () => {
    const registry = new ToolRegistry({ orderEffects: true });
    const order: string[] = [];
    const slow = (id: string) => toolCall("mcp__everything__trigger-long-running-operation", { duration: 0.3, steps: 1 }, id);
    const model = new FakeModel([
      reply("", slow("a"), slow("b"), toolCall("mcp__filesystem__write_file", { path: join(root, "w.txt"), content: "w" }, "w")),
      "done",
    ]);
    await new Agent(model, registry, {
      prepareTurn: mcp.prepareTurn(registry),
      onEvent: (event) => {
        if (event.type === "tool-call-start" || event.type === "tool-call-end")
          order.push(`${event.type === "tool-call-start" ? "start" : "end"} ${event.toolCall.id}`);
      },
    }).run("go");
    // The two read-only calls overlap; the write waits until they are done, and runs alone.
    expect(order.slice(0, 2)).toEqual(["start a", "start b"]);
    expect(order.slice(4)).toEqual(["start w", "end w"]);
  });

  it("validates arguments against the server's schema before anything is sent", async () => {
    const { observation } = await callThroughAgent("mcp__everything__get-sum", { a: "one", b: 2 });
    expect(observation?.isError).toBe(true);
    expect(observation?.content).toMatch(/Invalid arguments for tool "mcp__everything__get-sum":\n- a: must be number/);
  });
});
