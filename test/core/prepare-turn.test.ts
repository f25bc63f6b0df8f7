import { describe, expect, it, vi } from "vitest";
import { Agent, FakeModel, type Message, ToolRegistry, type TurnContext, UsageError } from "../../src/index.js";
import { reply, toolCall, withUsage } from "../../src/testing/index.js";

const registry = () =>
  new ToolRegistry()
    .add({ name: "read", description: "reads", parameters: { type: "object" }, readOnly: true, execute: () => "text" })
    .add({ name: "write", description: "writes", parameters: { type: "object" }, execute: vi.fn(() => "written") });

describe("prepareTurn: the per-turn seam", () => {
  it("is called before every model call with the run id, the turn, the conversation and the usage so far", async () => {
    const seen: TurnContext[] = [];
    const model = new FakeModel([withUsage(reply("", toolCall("read", {}, "r")), { inputTokens: 10, outputTokens: 2 }), "done"]);
    const result = await new Agent(model, registry(), {
      prepareTurn: (context) => {
        seen.push({ ...context, messages: [...context.messages], usage: { ...context.usage } });
      },
    }).run("go");
    expect(seen.map(({ runId, turn, messages, usage }) => ({ runId, turn, count: messages.length, usage }))).toEqual([
      { runId: result.runId, turn: 0, count: 1, usage: { inputTokens: 0, outputTokens: 0 } },
      { runId: result.runId, turn: 1, count: 3, usage: { inputTokens: 10, outputTokens: 2 } },
    ]);
  });

  it("messages replace the run's history: later turns send them and the result keeps them (compaction)", async () => {
    const model = new FakeModel([reply("", toolCall("read", {}, "r1")), reply("", toolCall("read", {}, "r2")), "done"]);
    const summary: Message = { role: "user", content: "Summary: the file was read once." };
    const result = await new Agent(model, registry(), {
      prepareTurn: ({ turn, messages }) => (turn === 2 ? { messages: [summary, ...messages.slice(-2)] } : undefined),
    }).run("go");
    expect(model.requests[2]?.messages.map((message) => message.content)).toEqual([summary.content, "", "text"]);
    expect(result.messages.map((message) => message.content)).toEqual([summary.content, "", "text", "done"]);
  });

  it("the array it returns stays the caller's: the run appends to its own copy", async () => {
    const model = new FakeModel(["done"]);
    const replacement: Message[] = [{ role: "user", content: "rewritten" }];
    const result = await new Agent(model, registry(), { prepareTurn: () => ({ messages: replacement }) }).run("go");
    expect(replacement).toHaveLength(1);
    expect(result.messages.map((message) => message.content)).toEqual(["rewritten", "done"]);
  });

  it("tools offers some of the registry's tools: the others are not sent, and a call to one is refused with an observation", async () => {
    const tools = registry();
    const write = tools.get("write")?.execute;
    const model = new FakeModel([reply("", toolCall("write", {}, "w")), "ok"]);
    const result = await new Agent(model, tools, { prepareTurn: () => ({ tools: ["read"] }) }).run("go");
    expect(model.requests[0]?.tools.map((tool) => tool.name)).toEqual(["read"]);
    expect(result.messages[2]).toEqual({
      role: "tool",
      toolCallId: "w",
      isError: true,
      content: 'Tool "write" is not available at this step. Available tools: read.',
    });
    expect(write).not.toHaveBeenCalled();
  });

  it("toolChoice reaches the model in the call options, turn by turn", async () => {
    const model = new FakeModel([reply("", toolCall("read", {}, "r")), "done"]);
    await new Agent(model, registry(), {
      prepareTurn: ({ turn }) => (turn === 0 ? { toolChoice: { name: "read" } } : { toolChoice: "none" }),
    }).run("go");
    expect(model.requests.map((request) => request.toolChoice)).toEqual([{ name: "read" }, "none"]);
  });

  it("an async prepareTurn is awaited", async () => {
    const model = new FakeModel(["done"]);
    await new Agent(model, registry(), { prepareTurn: async () => ({ tools: [] }) }).run("go");
    expect(model.requests[0]?.tools).toEqual([]);
  });

  it("naming a tool the registry lacks, or choosing one not offered, is a UsageError that says which", async () => {
    const unknown = new Agent(new FakeModel(["x"]), registry(), { prepareTurn: () => ({ tools: ["read", "delete"] }) });
    await expect(unknown.run("go")).rejects.toThrow(new UsageError('prepareTurn offered "delete", which the registry does not have.'));
    const notOffered = new Agent(new FakeModel(["x"]), registry(), {
      prepareTurn: () => ({ tools: ["read"], toolChoice: { name: "write" } }),
    });
    await expect(notOffered.run("go")).rejects.toThrow(/chose the tool "write", which is not offered this turn/);
  });
});
