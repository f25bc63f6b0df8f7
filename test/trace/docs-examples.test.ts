import { describe, expect, it } from "vitest";
import { Agent, FakeModel, ToolRegistry, type ToolResult } from "../../src/index.js";
import { toolCall } from "../../src/testing/index.js";
import { ConsoleTraceExporter } from "../../src/trace/console-trace-exporter.js";
import { MemoryTraceExporter } from "../../src/trace/memory-trace-exporter.js";
import { Tracer } from "../../src/trace/tracer.js";

describe("what docs/testing.md and docs/tracing.md promise", () => {
  const registry = new ToolRegistry().add({
    name: "weather",
    description: "Current weather of a city",
    parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
    execute: ({ city }) => (city === "北京" ? "晴 24°C" : "未知"),
  });

  it("a tool is unit-tested through the registry, bad arguments included", async () => {
    expect(await registry.call(toolCall("weather", { city: "北京" }))).toBe("晴 24°C");
    const result = (await registry.execute(toolCall("weather", { town: "北京" }))) as ToolResult;
    expect(result.isError).toBe(true);
    expect(result.content).toMatch(/city/);
  });

  it("the console exporter prints each run's tree", async () => {
    const printed: string[] = [];
    const tracer = new Tracer({
      exporters: [new ConsoleTraceExporter({ write: (text) => printed.push(text), timelineWidth: 0 }), new MemoryTraceExporter()],
    });
    await new Agent(new FakeModel(["hello"]), registry, { onEvent: tracer.listener() }).run("hi");
    expect(printed).toHaveLength(1);
    expect(printed[0]).toMatch(/invoke_agent {2}✓ completed in 1 turn\n.*└─ turn 0\n.* {3}└─ chat fake-model {2}end_turn\n$/);
  });
});
