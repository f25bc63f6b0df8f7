import { describe, expect, it, vi } from "vitest";
import { Agent, type CanUseTool, FakeModel, type PermissionContext, planMode, ToolRegistry } from "../../src/index.js";
import { reply, toolCall } from "../../src/testing/index.js";

const deleteSchema = { type: "object", properties: { path: { type: "string" } }, required: ["path"], additionalProperties: false };

function tools(needsApproval?: boolean | ((args: Record<string, unknown>) => boolean)) {
  const execute = vi.fn(({ path }: Record<string, unknown>) => `deleted ${path}`);
  const registry = new ToolRegistry()
    .add({ name: "read", description: "reads", parameters: { type: "object" }, readOnly: true, execute: () => "text" })
    .add({
      name: "delete",
      description: "deletes",
      parameters: deleteSchema,
      execute,
      ...(needsApproval !== undefined && { needsApproval }),
    });
  return { registry, execute };
}

const deleteCall = (path = "build", id = "d") => reply("", toolCall("delete", { path }, id));

describe("canUseTool: one decision between validation and execute", () => {
  it("allow runs the tool; allow with arguments runs it with the rewritten (and revalidated) arguments", async () => {
    const { registry, execute } = tools();
    const canUseTool: CanUseTool = (call) =>
      call.arguments.path === "/" ? { behavior: "allow", arguments: { path: "./sandbox" } } : { behavior: "allow" };
    const model = new FakeModel([deleteCall("/"), "ok"]);
    const result = await new Agent(model, registry, { canUseTool }).run("clean");
    expect(execute).toHaveBeenCalledWith({ path: "./sandbox" }, expect.anything());
    expect(result.messages[2]?.content).toBe("deleted ./sandbox");
  });

  it("rewritten arguments that break the schema are an observation, and the tool does not run", async () => {
    const { registry, execute } = tools();
    const model = new FakeModel([deleteCall(), "ok"]);
    const result = await new Agent(model, registry, { canUseTool: () => ({ behavior: "allow", arguments: { path: 7 } }) }).run("clean");
    expect(execute).not.toHaveBeenCalled();
    expect(result.messages[2]).toMatchObject({
      isError: true,
      content: expect.stringMatching(/permission check gave tool "delete" are invalid:\n- path: must be string/),
    });
  });

  it("deny: the model reads the message as an error observation, and the tool does not run", async () => {
    const { registry, execute } = tools();
    const model = new FakeModel([deleteCall(), "ok"]);
    const result = await new Agent(model, registry, { canUseTool: () => ({ behavior: "deny", message: "Deleting is off today." }) }).run(
      "clean",
    );
    expect(execute).not.toHaveBeenCalled();
    expect(model.requests[1]?.messages.at(-1)).toEqual({ role: "tool", toolCallId: "d", isError: true, content: "Deleting is off today." });
    expect(result.status).toBe("completed");
  });

  it("is asked only after the arguments are valid, with the run id, the tool, a signal and what needsApproval says", async () => {
    const { registry } = tools(true);
    const contexts: PermissionContext[] = [];
    const canUseTool = vi.fn<CanUseTool>((_call, context) => {
      contexts.push(context);
      return { behavior: "allow" };
    });
    const model = new FakeModel([reply("", toolCall("delete", { path: 1 }, "bad")), deleteCall(), "ok"]);
    const result = await new Agent(model, registry, { canUseTool }).run("clean");
    expect(canUseTool).toHaveBeenCalledTimes(1);
    expect(canUseTool).toHaveBeenCalledWith({ id: "d", name: "delete", arguments: { path: "build" } }, expect.anything());
    expect(contexts[0]).toMatchObject({ runId: result.runId, tool: registry.get("delete"), needsApproval: true });
    expect(contexts[0]?.signal).toBeInstanceOf(AbortSignal);
  });

  it("a check that returns something that is not a decision is an error observation naming the contract", async () => {
    const { registry, execute } = tools();
    const model = new FakeModel([deleteCall(), "ok"]);
    const result = await new Agent(model, registry, { canUseTool: (() => "yes") as unknown as CanUseTool }).run("clean");
    expect(execute).not.toHaveBeenCalled();
    expect(result.messages[2]?.content).toMatch(/returned "yes", which is not a decision/);
  });
});

describe("needsApproval", () => {
  it("true means ask: the run ends interrupted with the call pending, and the tool does not run", async () => {
    const { registry, execute } = tools(true);
    const model = new FakeModel([deleteCall()]);
    const result = await new Agent(model, registry).run("clean");
    expect(result.status).toBe("interrupted");
    expect(result.pending).toEqual([{ toolCall: { id: "d", name: "delete", arguments: { path: "build" } } }]);
    expect(execute).not.toHaveBeenCalled();
    expect(model.requests).toHaveLength(1);
  });

  it("a function decides from the validated arguments", async () => {
    const needsApproval = vi.fn(({ path }: Record<string, unknown>) => String(path).startsWith("/"));
    const { registry, execute } = tools(needsApproval);
    const model = new FakeModel([reply("", toolCall("delete", { path: "tmp" }, "a"), toolCall("delete", { path: "/etc" }, "b"))]);
    const result = await new Agent(model, registry).run("clean");
    expect(needsApproval).toHaveBeenCalledWith({ path: "tmp" });
    expect(execute).toHaveBeenCalledTimes(1);
    expect(result.pending.map(({ toolCall }) => toolCall.id)).toEqual(["b"]);
  });

  it("canUseTool's word is final over needsApproval (it can allow what the tool would ask about)", async () => {
    const { registry, execute } = tools(true);
    const model = new FakeModel([deleteCall(), "ok"]);
    const result = await new Agent(model, registry, { canUseTool: () => ({ behavior: "allow" }) }).run("clean");
    expect(execute).toHaveBeenCalledTimes(1);
    expect(result.status).toBe("completed");
  });

  it("a registry check's deny stands whatever canUseTool says (plan mode, rebuilt on the seam)", async () => {
    const { registry, execute } = tools();
    planMode({ approve: () => true, startInPlanMode: true }).install(registry);
    const model = new FakeModel([deleteCall(), "ok"]);
    const result = await new Agent(model, registry, { canUseTool: () => ({ behavior: "allow" }) }).run("clean");
    expect(execute).not.toHaveBeenCalled();
    expect(result.messages[2]).toMatchObject({ isError: true, content: expect.stringMatching(/not allowed in plan mode/) });
  });

  it("registry.call refuses a call that would need approval, saying how to run it", async () => {
    const { registry } = tools(true);
    await expect(registry.call({ id: "x", name: "delete", arguments: { path: "a" } })).rejects.toThrow(
      /needs approval; run it through an Agent/,
    );
  });
});
