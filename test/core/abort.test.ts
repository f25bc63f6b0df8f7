import { describe, expect, it } from "vitest";
import { Agent, FakeModel, type Model, ToolRegistry } from "../../src/index.js";
import { reply, toolCall } from "../../src/testing/index.js";

function hangingToolRegistry(seen: { signal?: AbortSignal }) {
  return new ToolRegistry().add({
    name: "hang",
    description: "never returns and ignores its signal",
    parameters: { type: "object" },
    execute: (_args, context) => {
      seen.signal = context.signal;
      return new Promise(() => {});
    },
  });
}

describe("aborting a run", () => {
  it("during a tool call: rejects promptly with an AbortError and aborts the tool's signal", async () => {
    const seen: { signal?: AbortSignal } = {};
    const controller = new AbortController();
    const agent = new Agent(new FakeModel([reply("", toolCall("hang"))]), hangingToolRegistry(seen), { signal: controller.signal });
    const run = agent.run("go");
    setTimeout(() => controller.abort(), 20);
    const started = performance.now();
    await expect(run).rejects.toMatchObject({ name: "AbortError" });
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(seen.signal?.aborted).toBe(true);
  });

  it("during a model call that ignores the signal: rejects promptly", async () => {
    const stuck: Model = { complete: () => new Promise(() => {}) };
    const controller = new AbortController();
    const run = new Agent(stuck, new ToolRegistry()).run("go", { signal: controller.signal });
    setTimeout(() => controller.abort(new Error("user pressed ctrl-c")), 10);
    await expect(run).rejects.toMatchObject({ name: "AbortError", message: "The operation was aborted: user pressed ctrl-c" });
  });

  it("passes the run's signal to the model", async () => {
    let received: AbortSignal | undefined;
    const model: Model = {
      complete: async (_messages, _tools, options) => {
        received = options?.signal;
        return reply("hi");
      },
    };
    const controller = new AbortController();
    await new Agent(model, new ToolRegistry()).run("go", { signal: controller.signal });
    expect(received).toBeDefined();
    controller.abort();
    expect(received?.aborted).toBe(true);
  });

  it("an already-aborted signal rejects before any model call", async () => {
    const model = new FakeModel(["never"]);
    await expect(new Agent(model, new ToolRegistry()).run("go", { signal: AbortSignal.abort() })).rejects.toMatchObject({
      name: "AbortError",
    });
    expect(model.requests).toHaveLength(0);
  });

  it("either the agent's or the run's signal aborts the run", async () => {
    const agentController = new AbortController();
    const agent = new Agent(new FakeModel([reply("", toolCall("hang"))]), hangingToolRegistry({}), { signal: agentController.signal });
    const run = agent.run("go", { signal: new AbortController().signal });
    setTimeout(() => agentController.abort(), 10);
    await expect(run).rejects.toMatchObject({ name: "AbortError" });
  });
});
