import { beforeAll, describe, expect, it } from "vitest";
import { Agent, FakeModel, ReActAgent, ToolRegistry } from "../../src/index.js";
import { countRequestTokens, loadO200kTokenizer, reply, type Tokenizer, toolCall, withTokenCounting } from "../../src/testing/index.js";

let tokenize: Tokenizer;
beforeAll(async () => {
  tokenize = await loadO200kTokenizer();
}, 30_000);

const registry = () =>
  new ToolRegistry().add({
    name: "weather",
    description: "Current weather of a city",
    parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
    execute: () => "sunny",
  });

describe("token counting for offline runs", () => {
  it("uses the real o200k_base tokenizer", () => {
    expect(tokenize("hello world")).toBe(2);
    expect(tokenize("")).toBe(0);
  });

  it("fills in usage for responses without it, counting what each request sends and each reply", async () => {
    const model = new FakeModel([reply("Let me check.", toolCall("weather", { city: "Paris" }, "c")), "Sunny in Paris."]);
    const result = await new Agent(withTokenCounting(model, tokenize), registry()).run("Weather in Paris?");
    const [first, second] = model.requests;
    const expectedInput =
      countRequestTokens(first?.messages ?? [], first?.tools ?? [], tokenize) +
      countRequestTokens(second?.messages ?? [], second?.tools ?? [], tokenize);
    expect(result.usage.inputTokens).toBe(expectedInput);
    expect(result.usage.outputTokens).toBeGreaterThan(tokenize("Let me check.") + tokenize("Sunny in Paris."));
    // The second request carries the first turn again, so it costs more.
    expect(countRequestTokens(second?.messages ?? [], second?.tools ?? [], tokenize)).toBeGreaterThan(
      countRequestTokens(first?.messages ?? [], first?.tools ?? [], tokenize),
    );
  });

  it("keeps usage a response reports itself", async () => {
    const model = new FakeModel([
      { message: { role: "assistant", content: "hi" }, stopReason: "end_turn", usage: { inputTokens: 1, outputTokens: 1 } },
    ]);
    const result = await new Agent(withTokenCounting(model, tokenize), new ToolRegistry()).run("x");
    expect(result.usage).toEqual({ inputTokens: 1, outputTokens: 1 });
  });

  it("shows a thought's cost again on every later turn (the article's claim)", async () => {
    const thought = "Thought: I should look up the weather in each city, one after another, and then compare them carefully.";
    const script = () => [
      reply(thought, toolCall("weather", { city: "A" }, "a")),
      reply(thought, toolCall("weather", { city: "B" }, "b")),
      reply(thought, toolCall("weather", { city: "C" }, "c")),
      "All sunny.",
    ];
    const silent = () => script().map((item) => (typeof item === "string" ? item : { ...item, message: { ...item.message, content: "" } }));
    const react = await new ReActAgent(withTokenCounting(new FakeModel(script()), tokenize), registry()).run("Compare A, B, C");
    const plain = await new Agent(withTokenCounting(new FakeModel(silent()), tokenize), registry()).run("Compare A, B, C");
    const perThought = tokenize(thought);
    // Thought i is paid as output once, then as input on each of the 3 - i later calls: 3 + 2 + 1 = 6 times in all.
    expect(react.usage.inputTokens - plain.usage.inputTokens).toBe(perThought * 6);
    expect(react.usage.outputTokens - plain.usage.outputTokens).toBe(perThought * 3);
  });
});
