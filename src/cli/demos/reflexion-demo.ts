import type { RunResult } from "../../core/types.js";
import { FakeModel } from "../../models/fake-model.js";
import { ReflexionAgent, type ReflexionResult } from "../../patterns/reflexion.js";
import { reply, toolCall } from "../../testing/script.js";
import { ToolRegistry } from "../../tools/tool-registry.js";
import type { DemoContext } from "./demo-context.js";

/** Reflexion (book 5.3): a guessed answer fails the check, the model reflects, and the second trial uses the tool. */
export async function runReflexionDemo({ tracer }: DemoContext): Promise<ReflexionResult> {
  const registry = new ToolRegistry().add({
    name: "multiply",
    description: "Multiplies two numbers",
    parameters: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] },
    readOnly: true,
    execute: ({ a, b }) => (a as number) * (b as number),
  });
  const model = new FakeModel([
    "17 × 23 = 381",
    "I answered from memory and the product was wrong. Next time I will compute it with the multiply tool.",
    reply("", toolCall("multiply", { a: 17, b: 23 }, "c1")),
    "17 × 23 = 391",
  ]);
  const evaluate = (result: RunResult) =>
    result.final.includes("391") ? { pass: true } : { pass: false, feedback: "The product is wrong: check it with a tool." };
  const agent = new ReflexionAgent(model, registry, { evaluate, maxTrials: 3 });
  const onEvent = tracer?.listener({ agentName: "calculator" });
  return agent.run("What is 17 × 23?", onEvent ? { onEvent } : {});
}
