import { describe, expect, it } from "vitest";
import { FakeModel, PlanAndSolveAgent, parsePlan, ToolRegistry } from "../../src/index.js";
import { reply, toolCall } from "../../src/testing/index.js";

const lookup = () =>
  new ToolRegistry().add({
    name: "lookup",
    description: "looks a fact up",
    parameters: { type: "object", properties: { key: { type: "string" } }, required: ["key"] },
    readOnly: true,
    execute: ({ key }) => ({ population: "8.9M", area: "1,572 km²" })[key as string] ?? "unknown",
  });

describe("PlanAndSolveAgent (book 5.2)", () => {
  it("plans without tools, records each item as a plan step, then solves with tools with the plan in context", async () => {
    const model = new FakeModel([
      "1. Look up the population.\n2. Look up the area.\n3. Compute the density.",
      reply("", toolCall("lookup", { key: "population" }, "p")),
      reply("", toolCall("lookup", { key: "area" }, "a")),
      "About 5,660 people per km².",
    ]);
    const result = await new PlanAndSolveAgent(model, lookup(), { system: "You are careful." }).run("Population density of Vienna?");

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
    // The planning call is offered no tools; the solving calls are, and they see the plan.
    expect(model.requests[0]?.tools).toEqual([]);
    expect(model.requests[0]?.messages.map((message) => message.role)).toEqual(["system", "user"]);
    expect(model.requests[0]?.messages[1]?.content).toMatch(/^Population density of Vienna\?\n\n.*numbered plan/s);
    expect(model.requests[1]?.tools.map((tool) => tool.name)).toEqual(["lookup"]);
    expect(model.requests[1]?.messages.map((message) => [message.role, message.content.slice(0, 20)])).toEqual([
      ["system", "You are careful."],
      ["user", "Population density o"],
      ["assistant", "1. Look up the popul"],
      ["user", "Now carry out the pl"],
    ]);
    expect(result.messages).toHaveLength(4 + 4 + 1); // planning 3 + solve prompt 1 + two tool turns 4 + final 1
  });

  it("replans once when solving does not converge, then solves again", async () => {
    const model = new FakeModel([
      "1. Look up the population.",
      reply("", toolCall("lookup", { key: "nope" }, "x1")),
      reply("", toolCall("lookup", { key: "nope" }, "x2")),
      "1. Look up the area instead.",
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
      "error",
      "plan",
      "action",
      "observation",
      "final",
    ]);
    expect(result.steps.find((step) => step.kind === "plan" && step.detail.includes("instead"))?.index).toBe(3);
    expect(model.requests[3]?.tools).toEqual([]); // the replanning call has no tools either
    expect(model.requests[3]?.messages.at(-1)?.content).toMatch(/revised numbered plan/);
    expect(result.final).toBe("The area is 1,572 km².");
  });

  it("gives up after maxReplans with an empty final answer", async () => {
    const model = new FakeModel(["1. Try.", reply("", toolCall("lookup", { key: "nope" }))]);
    const result = await new PlanAndSolveAgent(model, lookup(), { maxSteps: 1, maxReplans: 0 }).run("?");
    expect(result.final).toBe("");
    expect(result.steps.map((step) => step.kind)).toEqual(["plan", "action", "observation", "error"]);
  });

  it("parses numbered and bulleted plans, and keeps an unnumbered plan whole", () => {
    expect(parsePlan("Plan:\n1) first\n2. second\n- third\n")).toEqual(["first", "second", "third"]);
    expect(parsePlan("Just answer directly.")).toEqual(["Just answer directly."]);
  });
});
