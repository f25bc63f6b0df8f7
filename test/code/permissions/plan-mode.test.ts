import { describe, expect, it, vi } from "vitest";
import { createCodePermissions } from "../../../src/code/permissions/index.js";
import { Agent, FakeModel, type Tool, ToolRegistry } from "../../../src/index.js";
import { reply, toolCall } from "../../../src/testing/index.js";
import { permissionContext } from "../helpers/permission-context.js";

const workspace = { root: "/work", directories: ["/work"] };

function codeTools() {
  const written: string[] = [];
  const read: Tool = {
    name: "Read",
    description: "reads",
    parameters: { type: "object", properties: { file_path: { type: "string" } }, required: ["file_path"] },
    readOnly: true,
    execute: ({ file_path }) => `contents of ${file_path}`,
  };
  const write: Tool = {
    name: "Write",
    description: "writes",
    parameters: {
      type: "object",
      properties: { file_path: { type: "string" }, content: { type: "string" } },
      required: ["file_path", "content"],
    },
    execute: ({ file_path }) => {
      written.push(String(file_path));
      return `wrote ${file_path}`;
    },
  };
  const bash: Tool = {
    name: "Bash",
    description: "runs",
    parameters: { type: "object", properties: { command: { type: "string" } }, required: ["command"] },
    execute: ({ command }) => `ran ${command}`,
  };
  return { written, registry: new ToolRegistry().add(read).add(write).add(bash) };
}

const plan = "1. Add the parser\n2. Test it";

describe("plan mode drives the permission mode", () => {
  it("EnterPlanMode switches to plan; writes are denied, reads run; an approved ExitPlanMode (the run's ask) returns to the mode before", async () => {
    const permissions = await createCodePermissions({ workspace, mode: "acceptEdits", settingsFiles: [] });
    const { registry, written } = codeTools();
    permissions.planMode.install(registry);
    const model = new FakeModel([
      reply("", toolCall("EnterPlanMode", {}, "enter")),
      reply("", toolCall("Write", { file_path: "a.ts", content: "x" }, "w1"), toolCall("Read", { file_path: "a.ts" }, "r1")),
      reply("", toolCall("Bash", { command: "ls src && cat a.ts" }, "b1"), toolCall("Bash", { command: "npm test" }, "b2")),
      reply("", toolCall("ExitPlanMode", { plan }, "exit")),
      reply("", toolCall("Write", { file_path: "a.ts", content: "x" }, "w2")),
      "Done.",
    ]);
    const agent = new Agent(model, registry, { canUseTool: permissions.canUseTool });
    const interrupted = await agent.run("Add a parser");
    expect(interrupted.status).toBe("interrupted");
    expect(permissions.mode).toBe("plan");
    expect(interrupted.pending).toEqual([{ toolCall: expect.objectContaining({ id: "exit" }), reason: expect.stringContaining(plan) }]);
    const results = interrupted.messages.filter((message) => message.role === "tool");
    expect(results.map((message) => [message.toolCallId, message.isError ?? false])).toEqual([
      ["enter", false],
      ["w1", true],
      ["r1", false],
      ["b1", false],
      ["b2", true],
    ]);
    expect(results[1]?.content).toMatch(/plan mode does not allow.*ExitPlanMode/);
    expect(written).toEqual([]);

    const resumed = await agent.resume(interrupted, { exit: { behavior: "allow" } });
    expect(resumed.status).toBe("completed");
    expect(permissions.mode).toBe("acceptEdits");
    expect(permissions.planMode.approvedPlans).toEqual([plan]);
    expect(written).toEqual(["a.ts"]);
    expect(model.requests[4]?.messages.at(-1)?.content).toMatch(/approved the plan/);
  });

  it("a rejected plan (deny with feedback) keeps plan mode, and the model reads the feedback", async () => {
    const permissions = await createCodePermissions({ workspace, mode: "plan", settingsFiles: [] });
    const { registry } = codeTools();
    permissions.planMode.install(registry);
    const model = new FakeModel([reply("", toolCall("ExitPlanMode", { plan }, "exit")), "I will revise it."]);
    const agent = new Agent(model, registry, { canUseTool: permissions.canUseTool });
    const interrupted = await agent.run("Plan it");
    const resumed = await agent.resume(interrupted, { exit: { behavior: "deny", message: "Add tests first." } });
    expect(resumed.status).toBe("completed");
    expect(model.requests[1]?.messages.at(-1)).toMatchObject({ role: "tool", isError: true, content: "Add tests first." });
    expect(permissions.mode).toBe("plan");
    expect(permissions.planMode.approvedPlans).toEqual([]);
  });

  it("with approvePlan, ExitPlanMode runs and asks in process; a rejection's feedback goes to the model", async () => {
    const approvePlan = vi.fn().mockResolvedValueOnce({ approved: false, feedback: "Smaller steps." }).mockResolvedValueOnce(true);
    const permissions = await createCodePermissions({ workspace, mode: "plan", settingsFiles: [], approvePlan });
    const { registry } = codeTools();
    permissions.planMode.install(registry);
    const model = new FakeModel([
      reply("", toolCall("ExitPlanMode", { plan }, "exit1")),
      reply("", toolCall("ExitPlanMode", { plan: "1. Small step" }, "exit2")),
      "Going.",
    ]);
    const result = await new Agent(model, registry, { canUseTool: permissions.canUseTool }).run("Plan it");
    expect(result.status).toBe("completed");
    expect(model.requests[1]?.messages.at(-1)?.content).toMatch(/rejected the plan.*Smaller steps\./);
    expect(approvePlan).toHaveBeenCalledTimes(2);
    expect(permissions.mode).toBe("default");
    expect(permissions.planMode.approvedPlans).toEqual(["1. Small step"]);
  });

  it("a person's shift-tab: setting plan makes ExitPlanMode ask; leaving plan makes it say so; entering again works", async () => {
    const permissions = await createCodePermissions({ workspace, settingsFiles: [], approvePlan: () => true });
    const [enter, exit] = permissions.planMode.tools as [Tool, Tool];
    const context = {} as never;
    permissions.mode = "plan";
    expect(permissions.planMode.active).toBe(true);
    expect(await exit.execute({ plan }, context)).toMatch(/approved the plan/);
    expect(permissions.mode).toBe("default");

    expect(await enter.execute({}, context)).toMatch(/^Entered plan mode/);
    expect(await enter.execute({}, context)).toBe("Already in plan mode.");
    permissions.mode = "acceptEdits"; // leaves plan mode at once
    expect(await exit.execute({ plan }, context)).toBe("Not in plan mode: go ahead without approval.");
    expect(await enter.execute({}, context)).toMatch(/^Entered plan mode/);
    expect(permissions.mode).toBe("plan");
    expect(await exit.execute({ plan }, context)).toMatch(/approved the plan/);
    expect(permissions.mode).toBe("acceptEdits");
  });

  it("EnterPlanMode is denied in dontAsk mode (no one could approve the plan) unless a rule allows it", async () => {
    const permissions = await createCodePermissions({ workspace, mode: "dontAsk", settingsFiles: [] });
    const context = permissionContext(permissions.planMode.tools[0] as Tool);
    expect(await permissions.canUseTool({ id: "1", name: "EnterPlanMode", arguments: {} }, context)).toMatchObject({ behavior: "deny" });
    const allowed = await createCodePermissions({ workspace, mode: "dontAsk", settingsFiles: [], rules: { allow: ["EnterPlanMode"] } });
    expect(await allowed.canUseTool({ id: "1", name: "EnterPlanMode", arguments: {} }, context)).toEqual({ behavior: "allow" });
  });
});

describe("through the Agent", () => {
  it("a compound command with one part not allowed interrupts the run with a reason a person can read", async () => {
    const permissions = await createCodePermissions({ workspace, settingsFiles: [], rules: { allow: ["Bash(npm test)"] } });
    const { registry } = codeTools();
    const model = new FakeModel([reply("", toolCall("Bash", { command: "npm test && rm -rf build" }, "b")), "ok"]);
    const agent = new Agent(model, registry, { canUseTool: permissions.canUseTool });
    const result = await agent.run("test and clean");
    expect(result.status).toBe("interrupted");
    expect(result.pending[0]?.reason).toBe(
      "`rm -rf build` (in Bash command `npm test && rm -rf build`) is not allowed by any rule; file changes need approval in default mode",
    );
    const resumed = await agent.resume(result, { b: { behavior: "allow" } });
    expect(resumed.messages.at(-2)?.content).toBe("ran npm test && rm -rf build");
  });
});
