import { describe, expect, it } from "vitest";
import { Agent, FakeModel, ToolRegistry } from "../../src/index.js";
import { reply, toolCall, withUsage } from "../../src/testing/index.js";
import { formatDuration, formatTraceTree } from "../../src/trace/format-trace-tree.js";
import { MemoryTraceExporter } from "../../src/trace/memory-trace-exporter.js";
import type { Trace, TraceSpan } from "../../src/trace/trace.js";
import { Tracer } from "../../src/trace/tracer.js";
import { deepTrace, wideTrace } from "./large-traces.js";

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

describe("formatTraceTree on large traces", () => {
  it("draws a 40,001-span run in one pass: every span once, in order, under its parent", () => {
    const trace = wideTrace(40_001);
    const started = performance.now();
    const lines = formatTraceTree(trace, { timelineWidth: 0 }).split("\n");
    const elapsed = performance.now() - started;
    expect(lines).toHaveLength(1 + 40_001 + 1); // header, spans, final newline
    const tree = lines.slice(1, -1).map((line) => line.slice(11));
    expect(tree.slice(0, 6)).toEqual([
      "invoke_agent long  ✓ completed in 10000 turns",
      "├─ turn 0",
      "│  ├─ chat fake-model  tool_use",
      '│  └─ execute_tool weather  {"city":"c0"}',
      "│     └─ weather  → sunny 0",
      "├─ turn 1",
    ]);
    expect(tree.slice(-4)).toEqual([
      "└─ turn 9999",
      "   ├─ chat fake-model  tool_use",
      '   └─ execute_tool weather  {"city":"c9999"}',
      "      └─ weather  → sunny 9999",
    ]);
    expect(tree.filter((line) => /^├─ turn \d+$/.test(line))).toHaveLength(9_999);
    expect(elapsed).toBeLessThan(5_000); // a sanity bound: it took 21 s when each span searched all spans for its children
  });

  it("draws runs nested 20,000 deep without overflowing the stack, indenting 40 levels at most", () => {
    const lines = formatTraceTree(deepTrace(20_000), { timelineWidth: 0 }).split("\n");
    expect(lines).toHaveLength(20_002);
    expect(lines[2]?.slice(11)).toBe("└─ invoke_agent 1");
    expect(lines[42]?.slice(11)).toBe(`${"   ".repeat(40)}└─ invoke_agent 41`);
    expect(lines[43]?.slice(11)).toBe(`…1 ${"   ".repeat(40)}└─ invoke_agent 42`);
    expect(lines[20_000]?.slice(11)).toBe(`…19958 ${"   ".repeat(40)}└─ invoke_agent 19999`);
  });

  it("says how many spans are not under the run span, and survives a cycle", () => {
    const trace = wideTrace(5);
    const [root, turn, chat] = trace.spans as [TraceSpan, TraceSpan, TraceSpan];
    trace.spans.push({ ...chat, spanId: "f".repeat(16), parentSpanId: "e".repeat(16) });
    turn.parentSpanId = chat.spanId; // turn ↔ chat: a cycle cut off from the root
    const text = formatTraceTree(trace, { timelineWidth: 0 });
    const [, run, note] = text.split("\n");
    expect(run?.slice(11)).toBe("invoke_agent long  ✓ completed in 1 turn");
    expect(note).toBe("(5 spans not under the run span: not drawn)");
    expect(root.parentSpanId).toBeUndefined();
  });
});
