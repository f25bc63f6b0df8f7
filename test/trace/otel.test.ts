import { SpanKind, SpanStatusCode } from "@opentelemetry/api";
import { BasicTracerProvider, InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { describe, expect, it } from "vitest";
import { Agent, FakeModel, ToolRegistry } from "../../src/index.js";
import { reply, toolCall, withUsage } from "../../src/testing/index.js";
import { MemoryTraceExporter } from "../../src/trace/memory-trace-exporter.js";
import { OpenTelemetryExporter } from "../../src/trace/otel/index.js";
import type { Trace } from "../../src/trace/trace.js";
import { Tracer } from "../../src/trace/tracer.js";

function weatherRegistry() {
  return new ToolRegistry().add({
    name: "weather",
    description: "Current weather of a city",
    parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
    execute: ({ city }) => (city === "北京" ? "晴 24°C" : Promise.reject(new Error("unknown city"))),
  });
}

async function tracedRun() {
  const otel = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(otel)] });
  const memory = new MemoryTraceExporter();
  const tracer = new Tracer({ exporters: [memory, new OpenTelemetryExporter({ tracerProvider: provider })] });
  const registry = weatherRegistry();
  const model = new FakeModel([
    withUsage(reply("", toolCall("weather", { city: "北京" }, "c1"), toolCall("weather", { city: "Atlantis" }, "c2")), {
      inputTokens: 30,
      outputTokens: 9,
    }),
    withUsage(reply("北京晴 24°C。"), { inputTokens: 50, outputTokens: 7 }),
  ]);
  await new Agent(model, registry, { onEvent: tracer.listener({ model, agentName: "weather-bot" }) }).run("天气？");
  await provider.forceFlush();
  // Finished spans arrive children first; start order reads like the recorded trace.
  const spans = [...otel.getFinishedSpans()].sort((a, b) => millis(a.startTime) - millis(b.startTime));
  return { spans, trace: memory.traces[0] as Trace };
}

const millis = (time: [number, number]) => time[0] * 1000 + time[1] / 1e6;
const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId;

describe("OpenTelemetryExporter", () => {
  it("sends every span with its parent link, kind, and times", async () => {
    const { spans, trace } = await tracedRun();
    expect(spans).toHaveLength(trace.spans.length);
    const byName = (name: string) => spans.filter((span) => span.name === name);
    const [run] = byName("invoke_agent weather-bot") as [ReadableSpan];
    const [turn0, turn1] = [byName("turn 0")[0], byName("turn 1")[0]] as [ReadableSpan, ReadableSpan];
    const chats = byName("chat fake-model");
    const clients = byName("execute_tool weather");
    const servers = byName("weather");
    expect([chats.length, clients.length, servers.length]).toEqual([2, 2, 2]);

    expect(parentOf(run)).toBeUndefined();
    expect(new Set(spans.map((span) => span.spanContext().traceId)).size).toBe(1);
    expect(parentOf(turn0)).toBe(run.spanContext().spanId);
    expect(parentOf(turn1)).toBe(run.spanContext().spanId);
    expect(chats.map(parentOf)).toEqual([turn0.spanContext().spanId, turn1.spanContext().spanId]);
    expect(clients.map(parentOf)).toEqual([turn0.spanContext().spanId, turn0.spanContext().spanId]);
    expect(servers.map(parentOf).sort()).toEqual(clients.map((span) => span.spanContext().spanId).sort());

    expect(run.kind).toBe(SpanKind.INTERNAL);
    expect(chats[0]?.kind).toBe(SpanKind.CLIENT);
    expect(clients[0]?.kind).toBe(SpanKind.CLIENT);
    expect(servers[0]?.kind).toBe(SpanKind.SERVER);

    // The recorded times, not the export time.
    for (const recorded of trace.spans) {
      const distance = (span: ReadableSpan) => Math.abs(millis(span.startTime) - recorded.startTime);
      const callId = recorded.attributes["gen_ai.tool.call.id"];
      const candidates = spans.filter((span) => span.name === recorded.name && span.attributes["gen_ai.tool.call.id"] === callId);
      const [sent] = candidates.sort((a, b) => distance(a) - distance(b));
      expect(distance(sent as ReadableSpan), recorded.name).toBeLessThan(0.01);
      expect(millis(sent?.endTime as [number, number]), recorded.name).toBeCloseTo(recorded.endTime, 2);
    }
  });

  it("carries the GenAI attributes and error statuses", async () => {
    const { spans } = await tracedRun();
    const run = spans.find((span) => span.name.startsWith("invoke_agent"));
    expect(run?.attributes).toMatchObject({
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.agent.name": "weather-bot",
      "gen_ai.usage.input_tokens": 80,
      "gen_ai.usage.output_tokens": 16,
    });
    const chat = spans.find((span) => span.name === "chat fake-model");
    expect(chat?.attributes).toMatchObject({
      "gen_ai.operation.name": "chat",
      "gen_ai.provider.name": "fake",
      "gen_ai.request.model": "fake-model",
      "gen_ai.response.finish_reasons": ["tool_use"],
      "gen_ai.usage.input_tokens": 30,
      "gen_ai.usage.output_tokens": 9,
    });
    const client = spans.find((span) => span.name === "execute_tool weather" && span.attributes["gen_ai.tool.call.id"] === "c1");
    expect(client?.attributes).toMatchObject({
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.tool.name": "weather",
      "gen_ai.tool.call.arguments": '{"city":"北京"}',
    });
    expect(client?.status.code).toBe(SpanStatusCode.UNSET);
    const failed = spans.find((span) => span.kind === SpanKind.SERVER && span.attributes["gen_ai.tool.call.id"] === "c2");
    expect(failed?.status).toEqual({ code: SpanStatusCode.ERROR, message: "Error: unknown city" });
    expect(failed?.attributes["error.type"]).toBe("tool_error");
  });
});

describe("OpenTelemetryExporter with nested runs", () => {
  it("keeps a child run under the tool execution that started it, in one OTel trace", async () => {
    const otel = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(otel)] });
    const tracer = new Tracer({ exporters: [new OpenTelemetryExporter({ tracerProvider: provider })] });
    const researcher = new Agent(new FakeModel([reply("", toolCall("weather", { city: "北京" }, "w1")), "北京晴。"]), weatherRegistry());
    const research = new ToolRegistry().add({
      name: "research",
      description: "Asks a sub-agent",
      parameters: { type: "object", properties: {} },
      execute: async (_args, context) => (await researcher.run("北京天气？", { parent: context })).final,
    });
    const model = new FakeModel([reply("", toolCall("research", {}, "r1")), "晴。"]);
    await new Agent(model, research, { onEvent: tracer.listener({ agentName: "boss" }) }).run("天气？");
    await provider.forceFlush();
    const spans = otel.getFinishedSpans();
    expect(spans).toHaveLength(14); // each run: its span, 2 turns, 2 chats, a tool call and its execution
    expect(new Set(spans.map((span) => span.spanContext().traceId)).size).toBe(1);
    const byId = new Map(spans.map((span) => [span.spanContext().spanId, span]));
    const [root, child] = spans
      .filter((span) => span.name.startsWith("invoke_agent"))
      .sort((a, b) => millis(a.startTime) - millis(b.startTime));
    expect(root?.name).toBe("invoke_agent boss");
    expect(parentOf(root as ReadableSpan)).toBeUndefined();
    const execution = byId.get(parentOf(child as ReadableSpan) ?? "");
    expect(execution).toMatchObject({ name: "research", kind: SpanKind.SERVER, attributes: { "gen_ai.tool.call.id": "r1" } });
    const weather = spans.find((span) => span.name === "weather") as ReadableSpan;
    const ancestors: string[] = [];
    for (let span: ReadableSpan | undefined = weather; span; span = byId.get(parentOf(span) ?? "")) ancestors.push(span.name);
    expect(ancestors).toEqual([
      "weather",
      "execute_tool weather",
      "turn 0",
      "invoke_agent",
      "research",
      "execute_tool research",
      "turn 0",
      "invoke_agent boss",
    ]);
  });
});

describe("the minagent/otel entry point", () => {
  it('is the only place that imports @opentelemetry, so `import "minagent"` never loads it', async () => {
    const { readdir, readFile } = await import("node:fs/promises");
    const files = (await readdir(new URL("../../src/", import.meta.url), { recursive: true })).filter((file) => file.endsWith(".ts"));
    const importing = [];
    for (const file of files) {
      const text = await readFile(new URL(`../../src/${file}`, import.meta.url), "utf8");
      if (/from "@opentelemetry\//.test(text)) importing.push(file.replaceAll("\\", "/"));
    }
    expect(importing).toEqual(["trace/otel/open-telemetry-exporter.ts"]);
  });
});
