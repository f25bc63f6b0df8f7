import { expectTypeOf, it } from "vitest";
import { z } from "zod";
import { Agent, FakeModel, PlanAndSolveAgent, ReActAgent, type RunResult, ToolRegistry } from "../../src/index.js";

it("infers result.output from a zod schema, unknown for a JSON Schema, and a given type argument wins", async () => {
  const typed = new Agent(new FakeModel([]), new ToolRegistry(), { output: z.object({ city: z.string(), celsius: z.number() }) });
  expectTypeOf<Awaited<ReturnType<typeof typed.run>>["output"]>().toEqualTypeOf<{ city: string; celsius: number } | undefined>();
  const json = new Agent(new FakeModel([]), new ToolRegistry(), { output: { type: "object", properties: { a: { type: "number" } } } });
  expectTypeOf<Awaited<ReturnType<typeof json.run>>["output"]>().toEqualTypeOf<unknown>();
  const given = new Agent<{ a: number }>(new FakeModel([]), new ToolRegistry(), { output: { type: "object" } });
  expectTypeOf<Awaited<ReturnType<typeof given.run>>["output"]>().toEqualTypeOf<{ a: number } | undefined>();
  const plain = new Agent(new FakeModel([]), new ToolRegistry(), { system: "x" });
  expectTypeOf(plain.run).returns.resolves.toEqualTypeOf<RunResult<unknown>>();
  expectTypeOf(typed.stream("?").result).resolves.toHaveProperty("output").toEqualTypeOf<{ city: string; celsius: number } | undefined>();
  const coerced = new Agent(new FakeModel([]), new ToolRegistry(), { output: z.array(z.coerce.number()) });
  expectTypeOf<Awaited<ReturnType<typeof coerced.run>>["output"]>().toEqualTypeOf<number[] | undefined>();
});

it("the patterns infer it too", () => {
  const output = z.object({ n: z.number() });
  const react = new ReActAgent(new FakeModel([]), new ToolRegistry(), { output });
  expectTypeOf(react.run).returns.resolves.toHaveProperty("output").toEqualTypeOf<{ n: number } | undefined>();
  const planned = new PlanAndSolveAgent(new FakeModel([]), new ToolRegistry(), { output, maxReplans: 0 });
  expectTypeOf(planned.run).returns.resolves.toHaveProperty("output").toEqualTypeOf<{ n: number } | undefined>();
});
