import { describe, expect, it } from "vitest";
import { Agent, type AgentEvent, FakeModel, ReflexionAgent, RunContext, type Tool, ToolRegistry } from "../../src/index.js";
import { reply, toolCall, withUsage } from "../../src/testing/index.js";

/** A tool that hands its task to a child agent, tied to the calling run. */
function delegate(child: () => Agent): Tool {
  return {
    name: "delegate",
    description: "hands a task to a helper agent",
    parameters: { type: "object", properties: { task: { type: "string" } }, required: ["task"] },
    execute: async ({ task }, context) => (await child().run(task as string, { parent: context })).final,
  };
}

describe("run identity and nested runs", () => {
  it("every event carries its run's id; a child's events reach the parent's listeners tagged with the child's id", async () => {
    const childModel = new FakeModel([withUsage(reply("child answer"), { inputTokens: 3, outputTokens: 1 })]);
    const events: AgentEvent[] = [];
    const registry = new ToolRegistry().add(delegate(() => new Agent(childModel, new ToolRegistry())));
    const parentModel = new FakeModel([
      withUsage(reply("", toolCall("delegate", { task: "sub" }, "call_1")), { inputTokens: 10, outputTokens: 2 }),
      withUsage(reply("parent answer"), { inputTokens: 20, outputTokens: 4 }),
    ]);
    const result = await new Agent(parentModel, registry, { onEvent: (event) => events.push(event) }).run("go");

    const childStart = events.find((event) => event.type === "run-start" && event.runId !== result.runId);
    expect(childStart).toMatchObject({ type: "run-start", parentRunId: result.runId, parentToolCallId: "call_1", input: "sub" });
    const childId = childStart?.runId;
    expect(events.filter((event) => event.runId === childId).map((event) => event.type)).toEqual([
      "run-start",
      "model-call-start",
      "model-call-end",
      "run-end",
    ]);
    expect(events.every((event) => event.runId === result.runId || event.runId === childId)).toBe(true);
    expect(events[0]).toEqual(expect.not.objectContaining({ parentRunId: expect.anything() }));
    // The child's usage counts in the parent's; the parent's trajectory holds only its own steps.
    expect(result.usage).toEqual({ inputTokens: 33, outputTokens: 7 });
    expect(result.steps.map((step) => step.kind)).toEqual(["action", "observation", "final"]);
    expect(result.steps[1]?.detail).toBe("child answer");
  });

  it("aborting the parent aborts the child", async () => {
    const controller = new AbortController();
    let childSignal: AbortSignal | undefined;
    const child = new Agent(
      {
        complete: (_messages, _tools, options) => {
          childSignal = options?.signal;
          controller.abort();
          return new Promise(() => {}); // never answers: only the abort ends it
        },
      },
      new ToolRegistry(),
    );
    const registry = new ToolRegistry().add(delegate(() => child));
    const parent = new Agent(new FakeModel([reply("", toolCall("delegate", { task: "sub" }))]), registry, { signal: controller.signal });
    await expect(parent.run("go")).rejects.toThrow(/aborted/);
    expect(childSignal?.aborted).toBe(true);
  });

  it("a RunContext made by hand is a parent too: its listeners hear the children, and it sums their usage", async () => {
    const events: AgentEvent[] = [];
    const parent = new RunContext({ listeners: [(event) => events.push(event)] });
    const agent = new Agent(
      new FakeModel([
        withUsage(reply("a"), { inputTokens: 1, outputTokens: 1 }),
        withUsage(reply("b"), { inputTokens: 2, outputTokens: 2 }),
      ]),
      new ToolRegistry(),
    );
    const first = await agent.run("1", { parent });
    const second = await agent.run("2", { parent });
    expect(parent.usage).toEqual({ inputTokens: 3, outputTokens: 3 });
    expect(first.usage).toEqual({ inputTokens: 1, outputTokens: 1 });
    expect(events.filter((event) => event.type === "run-start").map((event) => event.type === "run-start" && event.parentRunId)).toEqual([
      parent.runId,
      parent.runId,
    ]);
    expect(second.runId).not.toBe(first.runId);
  });

  it("Reflexion is one run: its trials and reflections are children of it, and its usage is their sum", async () => {
    const events: AgentEvent[] = [];
    const model = new FakeModel([
      withUsage(reply("381"), { inputTokens: 5, outputTokens: 1 }),
      withUsage(reply("I should compute."), { inputTokens: 7, outputTokens: 2 }),
      withUsage(reply("391"), { inputTokens: 9, outputTokens: 3 }),
    ]);
    const agent = new ReflexionAgent(model, new ToolRegistry(), {
      evaluate: (result) => ({ pass: result.final === "391" }),
      onEvent: (event) => events.push(event),
    });
    const result = await agent.run("17 × 23?");
    const starts = events.filter((event) => event.type === "run-start");
    expect(starts[0]).toMatchObject({ runId: result.runId, input: "17 × 23?" });
    expect(starts.slice(1).map((event) => event.type === "run-start" && event.parentRunId)).toEqual([
      result.runId,
      result.runId,
      result.runId,
    ]);
    expect(events.filter((event) => event.type === "run-end" && event.runId === result.runId)).toHaveLength(1);
    expect(result.usage).toEqual({ inputTokens: 21, outputTokens: 6 });
    expect(result).toMatchObject({ status: "completed", trials: 2, passed: true, turns: 3 });
  });
});
