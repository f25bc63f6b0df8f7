// Behaviours found missing in review, each kept by a test.
import { afterEach, describe, expect, it, vi } from "vitest";
import { Agent, type AgentEvent, FakeModel, PlanAndSolveAgent, planToolName, type Tool, ToolRegistry } from "../../src/index.js";
import { reply, toolCall, withUsage } from "../../src/testing/index.js";

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("aborts and permission checks", () => {
  it("aborting the run while a permission check waits ends the wait at once, tells the check, and runs nothing afterwards", async () => {
    const execute = vi.fn(() => "ran");
    const registry = new ToolRegistry().add({ name: "act", description: "", parameters: { type: "object" }, execute });
    const controller = new AbortController();
    let checkSignal: AbortSignal | undefined;
    const agent = new Agent(new FakeModel([reply("", toolCall("act", {}, "a")), "done"]), registry, {
      signal: controller.signal,
      canUseTool: async (_call, { signal }) => {
        checkSignal = signal;
        await wait(200);
        return { behavior: "allow" };
      },
    });
    const started = performance.now();
    const run = agent.run("go");
    setTimeout(() => controller.abort(), 20);
    await expect(run).rejects.toThrow(/aborted/);
    expect(performance.now() - started).toBeLessThan(150);
    expect(checkSignal?.aborted).toBe(true);
    await wait(250);
    expect(execute).not.toHaveBeenCalled();
  });
});

describe("child runs", () => {
  const warnings: Error[] = [];
  const onWarning = (warning: Error) => warnings.push(warning);
  afterEach(() => {
    process.off("warning", onWarning);
    warnings.length = 0;
  });

  function delegate(makeChild: () => Agent, extra: Partial<Tool> = {}): Tool {
    return {
      name: "delegate",
      description: "",
      parameters: { type: "object" },
      execute: async (_args, context) => (await makeChild().run("sub", { parent: context })).final,
      ...extra,
    };
  }

  it("a child run stops when the tool call that started it times out", async () => {
    let childCalls = 0;
    const slowChild = () =>
      new Agent(
        {
          complete: async (_messages, _tools, options) => {
            childCalls++;
            await new Promise((resolve, reject) => {
              const timer = setTimeout(resolve, 40);
              options?.signal?.addEventListener("abort", () => {
                clearTimeout(timer);
                reject(options.signal?.reason);
              });
            });
            return reply("", toolCall("noop", {}, `n${childCalls}`));
          },
        },
        new ToolRegistry().add({ name: "noop", description: "", parameters: { type: "object" }, execute: () => "" }),
        { maxSteps: 50 },
      );
    const registry = new ToolRegistry({ timeoutMs: 100 }).add(delegate(slowChild));
    const result = await new Agent(new FakeModel([reply("", toolCall("delegate", {}, "d")), "gave up"]), registry).run("go");
    expect(result.messages[2]?.content).toMatch(/timed out after 100 ms/);
    const callsAtEnd = childCalls;
    await wait(150);
    expect(childCalls).toBe(callsAtEnd);
    expect(callsAtEnd).toBeLessThanOrEqual(4);
  });

  it("eight sub-agents at once under a run with a signal add no MaxListenersExceededWarning", async () => {
    process.on("warning", onWarning);
    const answerLater = async () => {
      await wait(5);
      return reply("ok");
    };
    const child = () => new Agent({ complete: answerLater }, new ToolRegistry());
    const calls = Array.from({ length: 8 }, (_, i) => toolCall("delegate", {}, `d${i}`));
    const registry = new ToolRegistry().add(delegate(child));
    await new Agent(new FakeModel([reply("", ...calls), "done"]), registry, { signal: new AbortController().signal }).run("go");
    await new Promise((resolve) => setImmediate(resolve));
    expect(warnings.filter((warning) => warning.name === "MaxListenersExceededWarning")).toEqual([]);
  });

  it("a listener given to both a parent and its child hears each child event once", async () => {
    const events: AgentEvent[] = [];
    const listener = (event: AgentEvent) => events.push(event);
    const child = new Agent(new FakeModel(["child answer"]), new ToolRegistry(), { onEvent: listener });
    const registry = new ToolRegistry().add(delegate(() => child));
    await new Agent(new FakeModel([reply("", toolCall("delegate", {}, "d")), "done"]), registry, { onEvent: listener }).run("go");
    const starts = events.filter((event) => event.type === "run-start");
    expect(starts).toHaveLength(2);
    expect(events.filter((event) => event.type === "run-end")).toHaveLength(2);
  });
});

describe("resume", () => {
  it("a deferred call is held on resume to the tools its turn offered", async () => {
    const secret = vi.fn(() => "leaked");
    const registry = new ToolRegistry({ orderEffects: true })
      .add({ name: "ask", description: "", parameters: { type: "object" }, needsApproval: true, execute: () => "asked" })
      .add({ name: "secret", description: "", parameters: { type: "object" }, execute: secret });
    const agent = new Agent(new FakeModel([reply("", toolCall("ask", {}, "a"), toolCall("secret", {}, "s")), "done"]), registry, {
      prepareTurn: () => ({ tools: ["ask"] }),
    });
    const interrupted = await agent.run("go");
    expect(interrupted.pending.map((entry) => [entry.toolCall.id, entry.deferred ?? false])).toEqual([
      ["a", false],
      ["s", true],
    ]);
    const resumed = await agent.resume(JSON.stringify(interrupted), { a: { behavior: "allow" } });
    expect(secret).not.toHaveBeenCalled();
    expect(resumed.messages.find((message) => message.toolCallId === "s")?.content).toMatch(/not available at this step/);
  });

  it("refuses a state whose turns were changed", async () => {
    const registry = new ToolRegistry().add({
      name: "ask",
      description: "",
      parameters: { type: "object" },
      needsApproval: true,
      execute: () => "",
    });
    const agent = new Agent(new FakeModel([reply("", toolCall("ask", {}, "a"))]), registry);
    const state = await agent.run("go");
    await expect(agent.resume({ ...state, turns: -1000 }, { a: { behavior: "allow" } })).rejects.toThrow(/turns \(-1000\) is not a count/);
  });
});

describe("Plan-and-Solve with a model that does not call write_plan", () => {
  it("asks for the plan once, not on every turn, and composes with the caller's prepareTurn", async () => {
    const seen: number[] = [];
    const model = new FakeModel([reply("", toolCall("lookup", {}, "l")), reply("", toolCall(planToolName, { steps: ["a"] }, "p")), "done"]);
    const registry = new ToolRegistry().add({ name: "lookup", description: "", parameters: { type: "object" }, execute: () => "x" });
    const result = await new PlanAndSolveAgent(model, registry, { prepareTurn: ({ turn }) => void seen.push(turn) }).run("task");
    expect(seen).toEqual([0, 1, 2]);
    const askedTimes = (model.requests[1]?.messages ?? []).filter((message) => message.content.includes("Before doing anything")).length;
    expect(askedTimes).toBe(1);
    expect(result.status).toBe("completed");
  });
});

describe("usage", () => {
  it("a child that outlives nothing adds its usage once", async () => {
    const child = new Agent(new FakeModel([withUsage(reply("c"), { inputTokens: 3, outputTokens: 1 })]), new ToolRegistry());
    const registry = new ToolRegistry().add({
      name: "d",
      description: "",
      parameters: { type: "object" },
      execute: async (_a, context) => (await child.run("x", { parent: context })).final,
    });
    const result = await new Agent(
      new FakeModel([withUsage(reply("", toolCall("d", {}, "1")), { inputTokens: 10, outputTokens: 2 }), "ok"]),
      registry,
    ).run("go");
    expect(result.usage).toEqual({ inputTokens: 13, outputTokens: 3 });
  });
});
