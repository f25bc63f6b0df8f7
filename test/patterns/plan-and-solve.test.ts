import { describe, expect, it } from "vitest";
import { type AgentEvent, FakeModel, PlanAndSolveAgent, planToolName, ToolRegistry } from "../../src/index.js";
import { reply, toolCall } from "../../src/testing/index.js";

const lookup = () =>
  new ToolRegistry().add({
    name: "lookup",
    description: "looks a fact up",
    parameters: { type: "object", properties: { key: { type: "string" } }, required: ["key"] },
    readOnly: true,
    execute: ({ key }) => ({ population: "8.9M", area: "1,572 km²" })[key as string] ?? "unknown",
  });

const plan = (steps: string[], id = "plan") => reply("", toolCall(planToolName, { steps }, id));

describe("PlanAndSolveAgent (book 5.2)", () => {
  it("makes the model write its plan first (only write_plan, forced), records each item as a plan step, then solves with the plan in context", async () => {
    const model = new FakeModel([
      plan(["Look up the population.", "Look up the area.", "Compute the density."]),
      reply("", toolCall("lookup", { key: "population" }, "p")),
      reply("", toolCall("lookup", { key: "area" }, "a")),
      "About 5,660 people per km².",
    ]);
    const result = await new PlanAndSolveAgent(model, lookup(), { system: "You are careful." }).run("Population density of Vienna?");

    expect(result.status).toBe("completed");
    expect(result.steps.map((step) => [step.index, step.kind])).toEqual([
      [0, "plan"],
      [0, "plan"],
      [0, "plan"],
      [1, "action"],
      [1, "observation"],
      [2, "action"],
      [2, "observation"],
      [3, "final"],
    ]);
    expect(result.steps.filter((step) => step.kind === "plan").map((step) => step.detail)).toEqual([
      "Look up the population.",
      "Look up the area.",
      "Compute the density.",
    ]);
    expect(result.final).toBe("About 5,660 people per km².");
    // The planning call is offered only the plan tool and must call it; the solving calls get the registry's tools.
    expect(model.requests[0]?.tools.map((tool) => tool.name)).toEqual([planToolName]);
    expect(model.requests[0]?.toolChoice).toEqual({ name: planToolName });
    expect(model.requests[0]?.messages.map((message) => message.role)).toEqual(["system", "user"]);
    expect(model.requests[0]?.messages[1]?.content).toMatch(/^Population density of Vienna\?\n\n.*write_plan/s);
    expect(model.requests[1]?.tools.map((tool) => tool.name)).toEqual(["lookup"]);
    expect(model.requests[1]?.toolChoice).toBeUndefined();
    expect(model.requests[1]?.messages.map((message) => [message.role, message.content.slice(0, 20)])).toEqual([
      ["system", "You are careful."],
      ["user", "Population density o"],
      ["assistant", ""],
      ["tool", "Plan recorded. Now c"],
    ]);
    expect(result.messages).toHaveLength(2 + 2 + 4 + 1); // task, plan call + its result, two tool turns, final
    expect(result.turns).toBe(4);
  });

  it("is one run: every event carries the same runId, and the run starts and ends once", async () => {
    const events: AgentEvent[] = [];
    const model = new FakeModel([plan(["Answer."]), "42"]);
    const result = await new PlanAndSolveAgent(model, lookup(), { onEvent: (event) => events.push(event) }).run("?");
    expect(new Set(events.map((event) => event.runId))).toEqual(new Set([result.runId]));
    expect(events.filter((event) => event.type === "run-start")).toHaveLength(1);
    expect(events.filter((event) => event.type === "run-end")).toHaveLength(1);
  });

  it("replans once when a plan's solving turns run out, then solves again", async () => {
    const model = new FakeModel([
      plan(["Look up the population."], "p1"),
      reply("", toolCall("lookup", { key: "nope" }, "x1")),
      reply("", toolCall("lookup", { key: "nope" }, "x2")),
      plan(["Look up the area instead."], "p2"),
      reply("", toolCall("lookup", { key: "area" }, "a")),
      "The area is 1,572 km².",
    ]);
    const result = await new PlanAndSolveAgent(model, lookup(), { maxSteps: 2 }).run("Area of Vienna?");
    expect(result.steps.map((step) => step.kind)).toEqual([
      "plan",
      "action",
      "observation",
      "action",
      "observation",
      "plan",
      "action",
      "observation",
      "final",
    ]);
    expect(result.steps.find((step) => step.kind === "plan" && step.detail.includes("instead"))?.index).toBe(3);
    expect(model.requests[3]?.tools.map((tool) => tool.name)).toEqual([planToolName]);
    expect(model.requests[3]?.toolChoice).toEqual({ name: planToolName });
    expect(model.requests[3]?.messages.at(-1)).toEqual({ role: "user", content: expect.stringMatching(/revised plan/) });
    // The first task message carries the plan prompt once, not again at the replan.
    expect(model.requests[3]?.messages.filter((message) => message.content.includes("Before doing anything"))).toHaveLength(1);
    expect(result.final).toBe("The area is 1,572 km².");
    expect(result.status).toBe("completed");
  });

  it("gives up after maxReplans with status max_steps", async () => {
    const model = new FakeModel([plan(["Try."]), reply("", toolCall("lookup", { key: "nope" }))]);
    const result = await new PlanAndSolveAgent(model, lookup(), { maxSteps: 1, maxReplans: 0 }).run("?");
    expect(result.status).toBe("max_steps");
    expect(result.final).toBe("");
    expect(result.steps.map((step) => step.kind)).toEqual(["plan", "action", "observation", "error"]);
    expect(model.requests).toHaveLength(2);
  });

  it("a call to write_plan during solving is refused: the plan tool is offered on planning turns only", async () => {
    const model = new FakeModel([plan(["Look."]), reply("", toolCall(planToolName, { steps: ["again"] }, "again")), "done"]);
    const result = await new PlanAndSolveAgent(model, lookup()).run("?");
    expect(result.messages.find((message) => message.toolCallId === "again")).toMatchObject({
      isError: true,
      content: expect.stringMatching(/not available at this step.*lookup/s),
    });
  });

  describe("when the plan tool cannot be forced (a thinking model, a server that ignores tool_choice)", () => {
    it("takes a planning turn's text as the plan (a plan step per line), sends the solve prompt, and solves", async () => {
      const model = new FakeModel([
        "1. Look up the population.\n2. Look up the area.\n3. Divide.",
        reply("", toolCall("lookup", { key: "population" }, "p")),
        reply("", toolCall("lookup", { key: "area" }, "a")),
        "About 5,660 people per km².",
      ]);
      const result = await new PlanAndSolveAgent(model, lookup()).run("Population density of Vienna?");

      expect(result.status).toBe("completed");
      expect(result.final).toBe("About 5,660 people per km².");
      expect(result.steps.filter((step) => step.kind === "plan").map((step) => [step.index, step.detail])).toEqual([
        [0, "Look up the population."],
        [0, "Look up the area."],
        [0, "Divide."],
      ]);
      expect(result.steps.filter((step) => step.kind === "final")).toEqual([{ index: 3, kind: "final", detail: result.final }]);
      // The second call solves: the registry's tools, the plan and the solve prompt in context, the plan prompt not repeated.
      expect(model.requests[1]?.tools.map((tool) => tool.name)).toEqual(["lookup"]);
      expect(model.requests[1]?.toolChoice).toBeUndefined();
      expect(model.requests[1]?.messages.map((message) => [message.role, message.content.slice(0, 20)])).toEqual([
        ["user", "Population density o"],
        ["assistant", "1. Look up the popul"],
        ["user", "Plan recorded. Now c"],
      ]);
      expect(model.requests[2]?.tools.map((tool) => tool.name)).toEqual(["lookup"]);
      expect(result.turns).toBe(4);
    });

    it("replans in text too, and counts the solving turns from the text plan", async () => {
      const model = new FakeModel([
        "Look up the population.",
        reply("", toolCall("lookup", { key: "nope" }, "x1")),
        reply("", toolCall("lookup", { key: "nope" }, "x2")),
        "Look up the area instead.",
        reply("", toolCall("lookup", { key: "area" }, "a")),
        "The area is 1,572 km².",
      ]);
      const result = await new PlanAndSolveAgent(model, lookup(), { maxSteps: 2 }).run("Area of Vienna?");
      expect(result.status).toBe("completed");
      expect(result.final).toBe("The area is 1,572 km².");
      expect(model.requests[3]?.tools.map((tool) => tool.name)).toEqual([planToolName]);
      expect(model.requests[3]?.messages.at(-1)?.content).toMatch(/revised plan/);
      expect(model.requests[4]?.messages.at(-1)?.content).toMatch(/^Plan recorded/);
      expect(model.requests[4]?.tools.map((tool) => tool.name)).toEqual(["lookup"]);
      expect(result.steps.map((step) => step.kind)).toEqual([
        "plan",
        "action",
        "observation",
        "action",
        "observation",
        "plan",
        "action",
        "observation",
        "final",
      ]);
    });

    it("a text answer on a solving turn is the final answer, as usual", async () => {
      const model = new FakeModel([plan(["Answer."]), "42"]);
      const result = await new PlanAndSolveAgent(model, lookup()).run("?");
      expect(result.final).toBe("42");
      expect(model.requests).toHaveLength(2);
    });
  });
});
