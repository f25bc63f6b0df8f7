import fc from "fast-check";
import { expect, it } from "vitest";
import { z } from "zod";
import { Agent, FakeModel, type FakeModelScriptItem, ReActAgent, type StopReason, ToolError, ToolRegistry } from "../../src/index.js";

/** Tools of every temperament: strict schema, zod, throwing, slow, and odd results. */
function registry(): ToolRegistry {
  return new ToolRegistry({ maxResultLength: 2_000 })
    .add({
      name: "add",
      description: "adds two numbers",
      parameters: {
        type: "object",
        properties: { a: { type: "number" }, b: { type: "number" } },
        required: ["a", "b"],
        additionalProperties: false,
      },
      execute: ({ a, b }) => (a as number) + (b as number),
    })
    .add({
      name: "search",
      description: "zod-validated search",
      parameters: z.object({ query: z.string().min(1), limit: z.number().int().positive().max(10).optional() }),
      execute: ({ query, limit }: { query: string; limit?: number | undefined }) => ({
        query,
        hits: Array.from({ length: limit ?? 1 }, (_, i) => i),
      }),
    })
    .add({
      name: "fail",
      description: "always throws",
      parameters: { type: "object" },
      execute: (args) => {
        if ("tool" in args) throw new ToolError("chosen text");
        throw new Error(`failed with ${JSON.stringify(args).slice(0, 50)}`);
      },
    })
    .add({ name: "slow", description: "times out", parameters: { type: "object" }, timeoutMs: 1, execute: () => new Promise(() => {}) })
    .add({
      name: "echo",
      description: "returns its arguments",
      parameters: { type: "object" },
      execute: (args) => (Object.keys(args).length % 2 ? args : "x".repeat(5_000)),
    });
}

const weirdString = fc.oneof(
  fc.string(),
  fc.string({ unit: "grapheme" }),
  fc.string({ unit: "binary" }), // lone surrogates and control characters
  fc.constantFrom("", " ", "\u0000", "🙂".repeat(3_000), "__proto__", "constructor", "\ud800"),
  // huge strings, built cheaply: generating 30,000 characters one by one would dominate the test's time
  fc.tuple(fc.string({ minLength: 1, maxLength: 4 }), fc.integer({ min: 5_000, max: 10_000 })).map(([unit, times]) => unit.repeat(times)),
);
const toolName = fc.oneof(
  fc.constantFrom("add", "search", "fail", "slow", "echo"),
  fc.constantFrom("rm_rf", "Add", "add ", ""),
  weirdString,
);
const argumentsOfAnyShape = fc.oneof(
  fc.record({ a: fc.oneof(fc.integer(), fc.double(), fc.string()), b: fc.anything() }, { requiredKeys: [] }),
  fc.record({ query: fc.oneof(weirdString, fc.integer()), limit: fc.anything() }, { requiredKeys: [] }),
  fc.dictionary(weirdString, fc.anything({ maxDepth: 4 })),
  fc.anything({
    maxDepth: 6,
    withNullPrototype: true,
    withBigInt: true,
    withDate: true,
    withMap: true,
    withSet: true,
    withTypedArray: true,
  }),
);
const toolCall = fc.record({ id: fc.oneof(fc.uuid(), weirdString), name: toolName, arguments: argumentsOfAnyShape });
const stopReason = fc.constantFrom<StopReason>("tool_use", "end_turn", "max_tokens", "stop_sequence", "refusal", "pause_turn");
// Deliberately looser than ModelResponse: arguments of every shape, as a buggy provider or model could send.
const response = fc.record({
  message: fc.record({ role: fc.constant("assistant" as const), content: weirdString, toolCalls: fc.array(toolCall, { maxLength: 8 }) }),
  stopReason,
});

let responsesServed = 0;
const tools = registry(); // stateless tools: one registry serves every run

it("every generated model response ends in a RunResult with one tool message per tool call", { timeout: 240_000 }, async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(response, { minLength: 1, maxLength: 8 }), fc.boolean(), async (script, react) => {
      const model = new FakeModel(script as unknown as FakeModelScriptItem[]);
      const Kind = react ? ReActAgent : Agent;
      const result = await new Kind(model, tools, { maxSteps: script.length }).run("fuzz");
      responsesServed += model.requests.length;

      const assistantTurns = result.messages.filter((message) => message.role === "assistant");
      expect(assistantTurns).toHaveLength(model.requests.length);
      // After each assistant message with k tool calls come exactly k tool messages, answering them in order.
      for (let i = 0; i < result.messages.length; i++) {
        const message = result.messages[i];
        if (message?.role !== "assistant") continue;
        const calls = message.toolCalls ?? [];
        const answers = result.messages.slice(i + 1, i + 1 + calls.length);
        expect(answers.map((answer) => [answer.role, answer.toolCallId])).toEqual(calls.map((call) => ["tool", call.id]));
        for (const answer of answers) expect(typeof answer.content).toBe("string");
      }
      const callCount = assistantTurns.reduce((sum, message) => sum + (message.toolCalls?.length ?? 0), 0);
      expect(result.messages.filter((message) => message.role === "tool")).toHaveLength(callCount);
      expect(result.steps.filter((step) => step.kind === "observation")).toHaveLength(callCount);
      const last = result.steps.at(-1);
      expect(last?.kind === "final" ? last.detail === result.final : last?.kind === "error" && result.final === "").toBe(true);
    }),
    { numRuns: Number(process.env.FUZZ_RUNS ?? 3_000) },
  );
  if (!process.env.FUZZ_RUNS) expect(responsesServed).toBeGreaterThanOrEqual(10_000);
});
