import { describe, expect, it, vi } from "vitest";
import { Agent, FakeModel, planMode, ReActAgent, ToolRegistry } from "../../src/index.js";
import { reply, toolCall } from "../../src/testing/index.js";

function files() {
  const disk = new Map([["notes.txt", "buy milk"]]);
  const write = vi.fn(({ path, text }: Record<string, unknown>) => {
    disk.set(path as string, text as string);
    return `wrote ${path}`;
  });
  const registry = new ToolRegistry()
    .add({
      name: "read_file",
      description: "reads a file",
      parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
      readOnly: true,
      execute: ({ path }) => disk.get(path as string) ?? "no such file",
    })
    .add({
      name: "write_file",
      description: "writes a file",
      parameters: { type: "object", properties: { path: { type: "string" }, text: { type: "string" } }, required: ["path", "text"] },
      execute: write,
    });
  return { disk, write, registry };
}

describe("plan mode: two tools and a permission check", () => {
  it("refuses a write while planning (execute never called), then allows it after the plan is approved", async () => {
    const { disk, write, registry } = files();
    const approve = vi.fn(() => true);
    const mode = planMode({ approve, startInPlanMode: true });
    mode.install(registry);
    const model = new FakeModel([
      reply("", toolCall("read_file", { path: "notes.txt" }, "r")),
      reply("", toolCall("write_file", { path: "notes.txt", text: "buy milk and eggs" }, "w1")),
      reply("", toolCall("ExitPlanMode", { plan: "1. Append eggs to notes.txt" }, "x")),
      reply("", toolCall("write_file", { path: "notes.txt", text: "buy milk and eggs" }, "w2")),
      "Added eggs.",
    ]);
    const result = await new ReActAgent(model, registry).run("Add eggs to my notes");

    const tool = (id: string) => result.messages.find((message) => message.toolCallId === id);
    expect(tool("r")?.content).toBe("buy milk");
    expect(tool("w1")).toMatchObject({ isError: true });
    expect(tool("w1")?.content).toMatch(/"write_file" is not allowed in plan mode[\s\S]*call ExitPlanMode/);
    expect(approve).toHaveBeenCalledWith("1. Append eggs to notes.txt");
    expect(tool("x")?.content).toBe("The user approved the plan. Plan mode is over: carry it out now.");
    expect(tool("w2")?.content).toBe("wrote notes.txt");
    expect(write).toHaveBeenCalledTimes(1);
    expect(disk.get("notes.txt")).toBe("buy milk and eggs");
    expect(mode.active).toBe(false);
    expect(mode.approvedPlans).toEqual(["1. Append eggs to notes.txt"]);
    expect(model.requests[0]?.tools.map((schema) => schema.name)).toEqual(["read_file", "write_file", "EnterPlanMode", "ExitPlanMode"]);
  });

  it("a rejected plan's feedback reaches the model, which revises it", async () => {
    const { registry, write } = files();
    const approve = vi.fn().mockResolvedValueOnce({ approved: false, feedback: "Keep a backup first." }).mockResolvedValueOnce(true);
    planMode({ approve, startInPlanMode: true }).install(registry);
    const model = new FakeModel([
      reply("", toolCall("ExitPlanMode", { plan: "1. Overwrite notes.txt" }, "x1")),
      reply("", toolCall("ExitPlanMode", { plan: "1. Copy notes.txt to notes.bak\n2. Overwrite notes.txt" }, "x2")),
      "Plan approved; starting.",
    ]);
    const result = await new Agent(model, registry).run("Rewrite my notes");
    expect(model.requests[1]?.messages.at(-1)).toEqual({
      role: "tool",
      toolCallId: "x1",
      content: "The user rejected the plan. Their feedback: Keep a backup first.\nRevise the plan and call ExitPlanMode again.",
    });
    expect(approve).toHaveBeenCalledTimes(2);
    expect(result.final).toBe("Plan approved; starting.");
    expect(write).not.toHaveBeenCalled();
  });

  it("the model can enter plan mode itself", async () => {
    const { registry, write } = files();
    const mode = planMode({ approve: () => true });
    mode.install(registry);
    const model = new FakeModel([
      reply("", toolCall("EnterPlanMode", {}, "e")),
      reply("", toolCall("write_file", { path: "a", text: "b" }, "w")),
      "ok",
    ]);
    const result = await new Agent(model, registry).run("big change");
    expect(result.messages.find((message) => message.toolCallId === "e")?.content).toMatch(/^Entered plan mode/);
    expect(result.messages.find((message) => message.toolCallId === "w")?.isError).toBe(true);
    expect(write).not.toHaveBeenCalled();
    expect(mode.active).toBe(true);
  });

  it("outside plan mode every tool runs, and ExitPlanMode says there is nothing to approve", async () => {
    const { registry } = files();
    const approve = vi.fn(() => true);
    planMode({ approve }).install(registry);
    expect(await registry.call(toolCall("write_file", { path: "a", text: "b" }))).toBe("wrote a");
    expect(await registry.call(toolCall("ExitPlanMode", { plan: "x" }))).toBe("Not in plan mode: go ahead without approval.");
    expect(approve).not.toHaveBeenCalled();
  });
});
