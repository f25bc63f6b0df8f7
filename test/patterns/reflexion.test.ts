import { describe, expect, it } from "vitest";
import { FakeModel, llmJudge, ReflexionAgent, ToolRegistry } from "../../src/index.js";
import { reply, toolCall } from "../../src/testing/index.js";

const calculator = () =>
  new ToolRegistry().add({
    name: "multiply",
    description: "multiplies",
    parameters: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] },
    execute: ({ a, b }) => (a as number) * (b as number),
  });

describe("ReflexionAgent (book 5.3)", () => {
  it("reflects after a failed trial, and the next trial sees the reflection", async () => {
    const model = new FakeModel([
      "17 × 23 = 381", // trial 1: guesses
      "I guessed instead of calculating. Next time I will use the multiply tool.", // reflection
      reply("", toolCall("multiply", { a: 17, b: 23 }, "m")), // trial 2
      "17 × 23 = 391",
    ]);
    const evaluate = (result: { final: string }) =>
      result.final.includes("391") ? { pass: true } : { pass: false, feedback: "The product is wrong." };
    const result = await new ReflexionAgent(model, calculator(), { evaluate, maxTrials: 3 }).run("What is 17 × 23?");

    expect(result.passed).toBe(true);
    expect(result.trials).toBe(2);
    expect(result.final).toBe("17 × 23 = 391");
    expect(result.steps.map((step) => [step.index, step.kind])).toEqual([
      [0, "final"],
      [1, "reflection"],
      [2, "action"],
      [2, "observation"],
      [3, "final"],
    ]);
    expect(result.reflections).toEqual(["I guessed instead of calculating. Next time I will use the multiply tool."]);
    // The reflection call sees the failed trial and the feedback, with no tools offered.
    expect(model.requests[1]?.tools).toEqual([]);
    expect(model.requests[1]?.messages.map((message) => message.role)).toEqual(["user", "assistant", "user"]);
    expect(model.requests[1]?.messages[2]?.content).toMatch(/judged a failure[\s\S]*Feedback: The product is wrong\./);
    // The second trial starts afresh, with the episodic memory in its prompt.
    const secondTrial = model.requests[2]?.messages;
    expect(secondTrial).toHaveLength(1);
    expect(secondTrial?.[0]?.content).toBe(
      "What is 17 × 23?\n\nReflections on your earlier attempts at this task (learn from them):\n1. I guessed instead of calculating. Next time I will use the multiply tool.",
    );
    expect(result.messages[0]?.content).toBe(secondTrial?.[0]?.content); // the result is the last trial's conversation
    expect(result.messages.map((message) => message.role)).toEqual(["user", "assistant", "tool", "assistant"]);
  });

  it("returns the last trial's answer with passed: false when no trial passes", async () => {
    const model = new FakeModel(["wrong 1", "reflect 1", "wrong 2", "reflect 2", "wrong 3"]);
    const result = await new ReflexionAgent(model, calculator(), { evaluate: () => ({ pass: false }), maxTrials: 3 }).run("?");
    expect(result).toMatchObject({ passed: false, trials: 3, final: "wrong 3", reflections: ["reflect 1", "reflect 2"] });
    expect(model.requests[4]?.messages[0]?.content).toMatch(/1\. reflect 1\n2\. reflect 2$/);
    expect(model.remaining).toBe(0);
  });

  it("accepts an async evaluator and sums usage over trials and reflections", async () => {
    const model = new FakeModel([
      { message: { role: "assistant", content: "a" }, stopReason: "end_turn", usage: { inputTokens: 5, outputTokens: 1 } },
      { message: { role: "assistant", content: "r" }, stopReason: "end_turn", usage: { inputTokens: 7, outputTokens: 2 } },
      { message: { role: "assistant", content: "b" }, stopReason: "end_turn", usage: { inputTokens: 9, outputTokens: 3 } },
    ]);
    const evaluate = async (result: { final: string }) => ({ pass: result.final === "b" });
    const result = await new ReflexionAgent(model, calculator(), { evaluate }).run("?");
    expect(result.usage).toEqual({ inputTokens: 21, outputTokens: 6 });
  });

  it("llmJudge turns a judge model's PASS / FAIL line into an evaluation", async () => {
    const judgeModel = new FakeModel(["PASS", "FAIL: the answer ignores the tool result"]);
    const evaluate = llmJudge(judgeModel, { criteria: "states 391" });
    const run = (final: string) => ({
      runId: "r",
      status: "completed" as const,
      messages: [],
      steps: [],
      final,
      usage: { inputTokens: 0, outputTokens: 0 },
      turns: 1,
      pending: [],
    });
    expect(await evaluate(run("391"))).toEqual({ pass: true });
    expect(await evaluate(run("381"))).toEqual({ pass: false, feedback: "the answer ignores the tool result" });
    expect(judgeModel.requests[1]?.messages.at(-1)?.content).toBe("Criteria: states 391\n\nAnswer to judge:\n381");
  });

  it("requires an evaluate function", () => {
    expect(() => new ReflexionAgent(new FakeModel([]), calculator(), {} as never)).toThrow(/needs options.evaluate/);
  });
});
