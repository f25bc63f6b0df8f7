import { describe, expect, it } from "vitest";
import { Agent, FakeModel, ToolRegistry } from "../../src/index.js";
import { reply, toolCall, withUsage } from "../../src/testing/index.js";
import { formatDuration, formatTraceTree } from "../../src/trace/format-trace-tree.js";
import { MemoryTraceExporter } from "../../src/trace/memory-trace-exporter.js";
import type { Trace } from "../../src/trace/trace.js";
import { Tracer } from "../../src/trace/tracer.js";

/** A run with a parallel pair of tool calls, one failing, on a clock that moves 1 ms per reading. */
async function tracedRun(): Promise<Trace> {
  let now = Date.UTC(2025, 0, 1);
  const memory = new MemoryTraceExporter();
  const tracer = new Tracer({ exporters: [memory], now: () => (now += 1) });
  const registry = new ToolRegistry().add({
    name: "weather",
    description: "Current weather of a city",
    parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
    execute: ({ city }) => (city === "Beijing" ? "sunny, 24°C" : Promise.reject(new Error(`no forecast for ${city as string}`))),
  });
  const model = new FakeModel([
    withUsage(reply("Both at once.", toolCall("weather", { city: "Beijing" }, "c1"), toolCall("weather", { city: "Atlantis" }, "c2")), {
      inputTokens: 90,
      outputTokens: 30,
      cacheReadTokens: 64,
    }),
    withUsage(reply("Beijing is sunny; Atlantis has no forecast."), { inputTokens: 150, outputTokens: 12 }),
  ]);
  await new Agent(model, registry, { onEvent: tracer.listener({ model }), stream: true }).run("Weather in Beijing and Atlantis?");
  return memory.traces[0] as Trace;
}

describe("formatTraceTree", () => {
  it("draws the tree with durations, timeline, tokens, arguments, results and errors", async () => {
    const text = formatTraceTree(await tracedRun());
    // Timings follow from the fake clock: each event reads it once. The client span of a tool call starts
    // when the model asks for it; its server span when the tool starts running.
    expect(text.replace(/^trace [0-9a-f]{32}/, "trace <id>")).toBe(`trace <id>  2025-01-01T00:00:00.001Z
  11.0 ms  [████████████████████████]  invoke_agent  ✓ completed in 2 turns · 240 in / 42 out tokens (64 cached)
  6.00 ms  [  ██████████████        ]  ├─ turn 0
  2.00 ms  [  █████                 ]  │  ├─ chat fake-model  tool_use · 90 in / 30 out tokens (64 cached)
  3.00 ms  [      ████████          ]  │  ├─ execute_tool weather  {"city":"Beijing"}
  2.00 ms  [        ██████          ]  │  │  └─ weather  → sunny, 24°C
  4.00 ms  [      ██████████        ]  │  └─ execute_tool weather  {"city":"Atlantis"}
  2.00 ms  [          ██████        ]  │     └─ weather  ✗ Error: no forecast for Atlantis
  2.00 ms  [                 █████  ]  └─ turn 1
  2.00 ms  [                 █████  ]     └─ chat fake-model  end_turn · 150 in / 12 out tokens
`);
  });

  it("can leave out the timeline and shorten previews", async () => {
    const lines = formatTraceTree(await tracedRun(), { timelineWidth: 0, previewLength: 10 }).split("\n");
    expect(lines[4]).toBe('  3.00 ms  │  ├─ execute_tool weather  {"city":"…');
  });

  it.each([
    [0.123, "0.12 ms"],
    [9.999, "10.00 ms"],
    [12.34, "12.3 ms"],
    [2412, "2.41 s"],
  ])("formatDuration(%d) is %s", (milliseconds, expected) => {
    expect(formatDuration(milliseconds)).toBe(expected);
  });
});
