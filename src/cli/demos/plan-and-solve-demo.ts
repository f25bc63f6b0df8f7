import type { RunResult } from "../../core/types.js";
import { FakeModel } from "../../models/fake-model.js";
import { PlanAndSolveAgent } from "../../patterns/plan-and-solve.js";
import { reply, toolCall } from "../../testing/script.js";
import { ToolRegistry } from "../../tools/tool-registry.js";
import type { DemoContext } from "./demo-context.js";

const facts: Record<string, number> = { "population:Vienna": 2_005_000, "area:Vienna": 414.8 };

/** Plan-and-Solve (book 5.2): the model must write its plan first (the write_plan tool), then the same run carries it out. */
export async function runPlanAndSolveDemo({ tracer }: DemoContext): Promise<RunResult> {
  const registry = new ToolRegistry()
    .add({
      name: "lookup",
      description: "Looks up a fact by key, e.g. population:Vienna or area:Vienna",
      parameters: { type: "object", properties: { key: { type: "string" } }, required: ["key"] },
      readOnly: true,
      execute: ({ key }) => facts[key as string] ?? "unknown",
    })
    .add({
      name: "divide",
      description: "Divides a by b",
      parameters: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] },
      readOnly: true,
      execute: ({ a, b }) => Math.round(((a as number) / (b as number)) * 10) / 10,
    });
  const model = new FakeModel([
    reply(
      "",
      toolCall(
        "write_plan",
        { steps: ["Look up the population of Vienna.", "Look up the area of Vienna.", "Divide population by area."] },
        "p1",
      ),
    ),
    reply("", toolCall("lookup", { key: "population:Vienna" }, "c1")),
    reply("", toolCall("lookup", { key: "area:Vienna" }, "c2")),
    reply("", toolCall("divide", { a: 2_005_000, b: 414.8 }, "c3")),
    "Vienna has about 4,834 people per km² (2,005,000 people on 414.8 km²).",
  ]);
  const agent = new PlanAndSolveAgent(model, registry, { system: "You are a careful research assistant." });
  const onEvent = tracer?.listener({ agentName: "density-researcher" });
  return agent.run("What is the population density of Vienna?", onEvent ? { onEvent } : {});
}
