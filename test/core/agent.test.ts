import { describe, expect, it } from "vitest";
import { Agent, FakeModel, type Message, type ModelResponse, ReActAgent, ToolRegistry, UsageError } from "../../src/index.js";
import { reply, toolCall, withUsage } from "../../src/testing/index.js";

const forecasts: Record<string, string> = { 北京: "晴 24°C", 上海: "多云 27°C" };

function weatherRegistry(): ToolRegistry {
  return new ToolRegistry().add({
    name: "weather",
    description: "查询某城市当前天气",
    parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
    execute: ({ city }) => forecasts[city as string] ?? "未知",
  });
}

function demoScript(): FakeModel {
  return new FakeModel([
    reply("Thought: 用户要比两城天气，先查北京。", toolCall("weather", { city: "北京" }, "c1")),
    reply("Thought: 北京拿到了，再查上海。", toolCall("weather", { city: "上海" }, "c2")),
    "北京晴 24°C，上海多云 27°C，两地都适合出行。",
  ]);
}

describe("ReActAgent on the book's demo (5.1.4)", () => {
  it("records thought, action, observation per tool turn and a final answer, in 7 messages", async () => {
    const result = await new ReActAgent(demoScript(), weatherRegistry(), { system: "你是一个天气助手，先想再做。" }).run(
      "对比北京和上海的天气",
    );
    expect(result.steps.map((step) => step.kind)).toEqual([
      "thought",
      "action",
      "observation",
      "thought",
      "action",
      "observation",
      "final",
    ]);
    expect(result.steps.map((step) => step.index)).toEqual([0, 0, 0, 1, 1, 1, 2]);
    expect(result.steps[1]?.detail).toBe('weather({"city":"北京"})');
    expect(result.steps[2]?.detail).toBe("晴 24°C");
    expect(result.final).toBe("北京晴 24°C，上海多云 27°C，两地都适合出行。");
    expect(result.messages).toHaveLength(7);
    expect(result.messages.map((message) => message.role)).toEqual([
      "system",
      "user",
      "assistant",
      "tool",
      "assistant",
      "tool",
      "assistant",
    ]);
    expect(result.messages[3]).toEqual({ role: "tool", content: "晴 24°C", toolCallId: "c1" });
  });

  it("sends the model the growing conversation and the tool schemas on every call", async () => {
    const model = demoScript();
    await new ReActAgent(model, weatherRegistry(), { system: "sys" }).run("对比北京和上海的天气");
    expect(model.requests.map((request) => request.messages.length)).toEqual([2, 4, 6]);
    expect(model.requests[0]?.tools).toEqual([
      {
        name: "weather",
        description: "查询某城市当前天气",
        parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
      },
    ]);
    expect(model.requests[2]?.messages.at(-1)).toEqual({ role: "tool", content: "多云 27°C", toolCallId: "c2" });
  });

  it("records extended thinking as thought steps, without parsing it; the plain Agent does not", async () => {
    const thinking = (response: ModelResponse, text: string): ModelResponse => ({
      ...response,
      message: { ...response.message, reasoning: [{ text, signature: "sig", provider: "anthropic" }] },
    });
    const script = () =>
      new FakeModel([
        thinking(reply("", toolCall("weather", { city: "北京" })), "Need Beijing first."),
        thinking(reply("晴"), "Thought: that answers it."),
      ]);
    const react = await new ReActAgent(script(), weatherRegistry()).run("?");
    expect(react.steps.map((step) => [step.index, step.kind, step.detail])).toEqual([
      [0, "thought", "Need Beijing first."],
      [0, "action", 'weather({"city":"北京"})'],
      [0, "observation", "晴 24°C"],
      [1, "thought", "Thought: that answers it."],
      [1, "final", "晴"],
    ]);
    const plain = await new Agent(script(), weatherRegistry()).run("?");
    expect(plain.steps.map((step) => step.kind)).toEqual(["action", "observation", "final"]);
  });

  it("records no thought for a turn with tool calls but no text", async () => {
    const model = new FakeModel([reply("", toolCall("weather", { city: "北京" })), "done"]);
    const result = await new ReActAgent(model, weatherRegistry()).run("?");
    expect(result.steps.map((step) => step.kind)).toEqual(["action", "observation", "final"]);
  });
});

describe("Agent (the plain loop)", () => {
  it("records actions, observations and the final answer, not thoughts", async () => {
    const result = await new Agent(demoScript(), weatherRegistry(), { system: "s" }).run("对比北京和上海的天气");
    expect(result.steps.map((step) => step.kind)).toEqual(["action", "observation", "action", "observation", "final"]);
    expect(result.messages).toHaveLength(7);
  });

  it("ends with an error step and an empty final answer when maxSteps is reached", async () => {
    const looping = new FakeModel(Array.from({ length: 3 }, (_, i) => reply(`try ${i}`, toolCall("weather", { city: "北京" }, `c${i}`))));
    const result = await new ReActAgent(looping, weatherRegistry(), { maxSteps: 3 }).run("loop forever");
    expect(result.final).toBe("");
    expect(result.steps.at(-1)).toEqual({ index: 3, kind: "error", detail: "Did not converge within maxSteps (3 model calls)." });
    expect(looping.requests).toHaveLength(3);
    expect(looping.remaining).toBe(0);
  });

  it("defaults maxSteps to 8 model calls", async () => {
    const looping = new FakeModel(Array.from({ length: 9 }, (_, i) => reply("", toolCall("weather", { city: "北京" }, `c${i}`))));
    const result = await new Agent(looping, weatherRegistry()).run("loop");
    expect(looping.requests).toHaveLength(8);
    expect(result.steps.at(-1)?.kind).toBe("error");
  });

  it("sums usage over all model calls", async () => {
    const model = new FakeModel([
      withUsage(reply("", toolCall("weather", { city: "北京" })), { inputTokens: 10, outputTokens: 3, cacheReadTokens: 4 }),
      withUsage(reply("ok"), { inputTokens: 20, outputTokens: 5 }),
    ]);
    const result = await new Agent(model, weatherRegistry()).run("?");
    expect(result.usage).toEqual({ inputTokens: 30, outputTokens: 8, cacheReadTokens: 4 });
  });

  it("continues a conversation from a previous result's messages without repeating the system prompt", async () => {
    const model = new FakeModel(["Hello!", "You said hi."]);
    const agent = new Agent(model, new ToolRegistry(), { system: "be brief" });
    const first = await agent.run("hi");
    const second = await agent.run("what did I say?", { history: first.messages });
    expect(second.messages.map((message: Message) => [message.role, message.content])).toEqual([
      ["system", "be brief"],
      ["user", "hi"],
      ["assistant", "Hello!"],
      ["user", "what did I say?"],
      ["assistant", "You said hi."],
    ]);
    expect(first.messages).toHaveLength(3); // the history passed in is not mutated
    expect(model.requests[1]?.messages).toHaveLength(4);
  });

  it("continues after pause_turn by sending the paused turn back", async () => {
    const model = new FakeModel([{ message: { role: "assistant", content: "searching…" }, stopReason: "pause_turn" }, "found it"]);
    const result = await new Agent(model, new ToolRegistry()).run("search");
    expect(result.final).toBe("found it");
    expect(result.steps.map((step) => step.kind)).toEqual(["final"]);
    expect(model.requests[1]?.messages.at(-1)).toEqual({ role: "assistant", content: "searching…" });
  });

  it("streams events to listeners and through agent.stream()", async () => {
    const seen: string[] = [];
    const agent = new Agent(demoScript(), weatherRegistry(), { onEvent: (event) => seen.push(event.type) });
    const stream = agent.stream("对比北京和上海的天气");
    const types: string[] = [];
    for await (const event of stream) types.push(event.type);
    const result = await stream.result;
    expect(result.final).toContain("北京晴");
    expect(types[0]).toBe("run-start");
    expect(types.at(-1)).toBe("run-end");
    expect(types).toContain("text-delta");
    expect(types.filter((type) => type === "tool-call-end")).toHaveLength(2);
    expect(seen).toEqual(types);
  });

  it("agent.stream() rethrows the run's error at the end of iteration", async () => {
    const stream = new Agent(new FakeModel([]), new ToolRegistry()).stream("hi");
    await expect(async () => {
      for await (const _ of stream) {
        // drain
      }
    }).rejects.toThrow(/script ran out/);
    await expect(stream.result).rejects.toThrow(UsageError);
  });

  it("rejects misuse with clear errors", () => {
    const model = new FakeModel([]);
    expect(() => new Agent(model, new ToolRegistry(), { maxSteps: 0 })).toThrow(/maxSteps must be a positive integer, got 0/);
    expect(() => new Agent(model, new ToolRegistry(), { toolConcurrency: 1.5 })).toThrow(/toolConcurrency/);
    expect(() => new Agent({} as never, new ToolRegistry())).toThrow(/complete\(\) method/);
    expect(() => new Agent(model, undefined as never)).toThrow(/ToolRegistry/);
  });

  it("propagates a model failure as a rejection (API errors are thrown, not observed)", async () => {
    const failing = new FakeModel([
      () => {
        throw new Error("HTTP 500 from provider");
      },
    ]);
    await expect(new Agent(failing, new ToolRegistry()).run("hi")).rejects.toThrow("HTTP 500 from provider");
  });
});
