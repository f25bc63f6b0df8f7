import { describe, expect, it } from "vitest";
import { Agent, FakeModel, ToolRegistry } from "../../src/index.js";
import { reply, toolCall } from "../../src/testing/index.js";

/** A tool that sleeps `ms` milliseconds and tracks how many of its calls are in flight. */
function sleepyRegistry() {
  const stats = { inFlight: 0, peak: 0, finished: [] as string[] };
  const registry = new ToolRegistry().add({
    name: "sleep",
    description: "sleeps",
    parameters: { type: "object", properties: { ms: { type: "number" }, label: { type: "string" } }, required: ["ms", "label"] },
    execute: async ({ ms, label }) => {
      stats.inFlight++;
      stats.peak = Math.max(stats.peak, stats.inFlight);
      await new Promise((resolve) => setTimeout(resolve, ms as number));
      stats.inFlight--;
      stats.finished.push(label as string);
      return `slept ${label}`;
    },
  });
  return { registry, stats };
}

const calls = (durations: number[]) => durations.map((ms, i) => toolCall("sleep", { ms, label: `L${i}` }, `call_${i}`));

describe("parallel tool calls (book 4.3)", () => {
  it("runs the calls of one turn concurrently and appends results in call order", async () => {
    const { registry, stats } = sleepyRegistry();
    const model = new FakeModel([reply("", ...calls([80, 10, 50, 20])), "done"]);
    const started = performance.now();
    const result = await new Agent(model, registry).run("go");
    const elapsed = performance.now() - started;
    expect(stats.peak).toBe(4);
    expect(stats.finished).toEqual(["L1", "L3", "L2", "L0"]); // finished out of order…
    const toolMessages = result.messages.filter((message) => message.role === "tool");
    expect(toolMessages.map((message) => [message.toolCallId, message.content])).toEqual([
      ["call_0", "slept L0"],
      ["call_1", "slept L1"],
      ["call_2", "slept L2"],
      ["call_3", "slept L3"],
    ]); // …but were appended in call order
    expect(result.steps.map((step) => step.detail).filter((detail) => detail.startsWith("slept"))).toEqual([
      "slept L0",
      "slept L1",
      "slept L2",
      "slept L3",
    ]);
    expect(elapsed).toBeLessThan(80 + 10 + 50 + 20); // sequential execution would take at least the sum
  });

  it("respects the concurrency limit", async () => {
    const { registry, stats } = sleepyRegistry();
    const model = new FakeModel([reply("", ...calls([20, 20, 20, 20, 20, 20, 20])), "done"]);
    const result = await new Agent(model, registry, { toolConcurrency: 3 }).run("go");
    expect(stats.peak).toBe(3);
    expect(result.messages.filter((message) => message.role === "tool")).toHaveLength(7);
  });

  it("toolConcurrency 1 runs the calls one after another, in order", async () => {
    const { registry, stats } = sleepyRegistry();
    const model = new FakeModel([reply("", ...calls([30, 5, 15])), "done"]);
    await new Agent(model, registry, { toolConcurrency: 1 }).run("go");
    expect(stats.peak).toBe(1);
    expect(stats.finished).toEqual(["L0", "L1", "L2"]);
  });

  it("a failing call does not disturb its siblings", async () => {
    const registry = sleepyRegistry().registry;
    const model = new FakeModel([
      reply("", toolCall("sleep", { ms: 5, label: "ok" }, "a"), toolCall("nope", {}, "b"), toolCall("sleep", { ms: "x" }, "c")),
      "done",
    ]);
    const result = await new Agent(model, registry).run("go");
    const tools = result.messages.filter((message) => message.role === "tool");
    expect(tools.map((message) => [message.toolCallId, message.isError ?? false])).toEqual([
      ["a", false],
      ["b", true],
      ["c", true],
    ]);
    expect(result.final).toBe("done");
  });
});
