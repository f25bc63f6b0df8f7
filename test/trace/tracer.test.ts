import { describe, expect, it } from "vitest";
import { Agent, FakeModel, ReActAgent, ToolRegistry } from "../../src/index.js";
import { reply, toolCall, withUsage } from "../../src/testing/index.js";
import { MemoryTraceExporter } from "../../src/trace/memory-trace-exporter.js";
import { childSpans, type Trace, type TraceSpan } from "../../src/trace/trace.js";
import { Tracer, type TracerOptions } from "../../src/trace/tracer.js";

const forecasts: Record<string, string> = { 北京: "晴 24°C", 上海: "多云 27°C" };

function weatherRegistry(delayMs = 0) {
  return new ToolRegistry().add({
    name: "weather",
    description: "Current weather of a city",
    parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
    execute: async ({ city }) => {
      if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
      if (!((city as string) in forecasts)) throw new Error(`no forecast for ${city as string}`);
      return forecasts[city as string];
    },
  });
}

/** A clock that moves 1 ms per reading, so timings are exact. */
function steppingClock(start = 1_700_000_000_000) {
  let now = start;
  return () => (now += 1);
}

function setup(options: Partial<TracerOptions> = {}) {
  const memory = new MemoryTraceExporter();
  const tracer = new Tracer({ exporters: [memory], ...options });
  return { memory, tracer };
}

function only(trace: Trace, type: TraceSpan["type"]): TraceSpan[] {
  return trace.spans.filter((span) => span.type === type);
}

/** The tree as nested [name, children] pairs, for readable assertions. */
function shape(trace: Trace, span: TraceSpan = trace.spans[0] as TraceSpan): unknown {
  const children = childSpans(trace, span);
  return children.length === 0 ? span.name : [span.name, children.map((child) => shape(trace, child))];
}

describe("Tracer: the span tree of a run", () => {
  it("builds run → turn → model call + (tool call client → tool execution server) for the book's demo", async () => {
    const { memory, tracer } = setup({ now: steppingClock() });
    const model = new FakeModel([
      withUsage(reply("先查北京。", toolCall("weather", { city: "北京" }, "c1")), { inputTokens: 20, outputTokens: 12 }),
      withUsage(reply("再查上海。", toolCall("weather", { city: "上海" }, "c2")), { inputTokens: 40, outputTokens: 12 }),
      withUsage(reply("北京晴，上海多云。"), { inputTokens: 60, outputTokens: 10 }),
    ]);
    const agent = new ReActAgent(model, weatherRegistry(), { onEvent: tracer.listener({ model, agentName: "weather-bot" }) });
    await agent.run("对比北京和上海的天气");

    expect(memory.traces).toHaveLength(1);
    const trace = memory.traces[0] as Trace;
    expect(trace).toMatchObject({ format: "minagent-trace", version: 1 });
    expect(trace.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(shape(trace)).toEqual([
      "invoke_agent weather-bot",
      [
        ["turn 0", ["chat fake-model", ["execute_tool weather", ["weather"]]]],
        ["turn 1", ["chat fake-model", ["execute_tool weather", ["weather"]]]],
        ["turn 2", ["chat fake-model"]],
      ],
    ]);
    const [run] = only(trace, "run");
    expect(run?.attributes).toMatchObject({
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.agent.name": "weather-bot",
      "gen_ai.provider.name": "fake",
      "gen_ai.request.model": "fake-model",
      "gen_ai.usage.input_tokens": 120,
      "gen_ai.usage.output_tokens": 34,
      "minagent.run.status": "completed",
      "minagent.run.converged": true,
      "minagent.run.turns": 3,
      "minagent.run.input": "对比北京和上海的天气",
      "minagent.run.final": "北京晴，上海多云。",
    });
    const [firstCall] = only(trace, "model-call");
    expect(firstCall).toMatchObject({ kind: "client", status: { code: "ok" } });
    expect(firstCall?.attributes).toMatchObject({
      "gen_ai.operation.name": "chat",
      "gen_ai.request.model": "fake-model",
      "gen_ai.response.finish_reasons": ["tool_use"],
      "gen_ai.usage.input_tokens": 20,
      "gen_ai.usage.output_tokens": 12,
      "minagent.request.tool_names": ["weather"],
      "minagent.request.message_count": 1,
    });
    expect(JSON.parse(firstCall?.attributes["gen_ai.input.messages"] as string)).toEqual([
      { role: "user", parts: [{ type: "text", content: "对比北京和上海的天气" }] },
    ]);
    expect(JSON.parse(firstCall?.attributes["gen_ai.output.messages"] as string)).toEqual([
      {
        role: "assistant",
        parts: [
          { type: "text", content: "先查北京。" },
          { type: "tool_call", id: "c1", name: "weather", arguments: { city: "北京" } },
        ],
        finish_reason: "tool_use",
      },
    ]);
    const [client] = only(trace, "tool-call");
    expect(client).toMatchObject({ kind: "client", name: "execute_tool weather" });
    expect(client?.attributes).toEqual({
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.tool.name": "weather",
      "gen_ai.tool.type": "function",
      "gen_ai.tool.call.id": "c1",
      "gen_ai.tool.call.arguments": '{"city":"北京"}',
    });
    const [server] = only(trace, "tool-execution");
    expect(server).toMatchObject({ kind: "server", parentSpanId: client?.spanId, status: { code: "ok" } });
    expect(server?.attributes).toMatchObject({ "gen_ai.tool.call.id": "c1", "gen_ai.tool.call.result": "晴 24°C" });
  });

  it("nests every span inside its parent's time, and parents precede children in the file", async () => {
    const { memory, tracer } = setup();
    const model = new FakeModel([reply("", toolCall("weather", { city: "北京" })), "done"]);
    await new Agent(model, weatherRegistry(5), { onEvent: tracer.listener() }).run("go");
    const trace = memory.traces[0] as Trace;
    const byId = new Map(trace.spans.map((span) => [span.spanId, span]));
    for (const [index, span] of trace.spans.entries()) {
      expect(span.endTime).toBeGreaterThanOrEqual(span.startTime);
      expect(span.durationMs).toBeCloseTo(span.endTime - span.startTime, 2);
      if (span.parentSpanId === undefined) {
        expect(index).toBe(0);
        continue;
      }
      const parent = byId.get(span.parentSpanId) as TraceSpan;
      expect(trace.spans.indexOf(parent)).toBeLessThan(index);
      expect(span.startTime).toBeGreaterThanOrEqual(parent.startTime);
      expect(span.endTime).toBeLessThanOrEqual(parent.endTime);
    }
    expect(only(trace, "tool-execution")[0]?.durationMs).toBeGreaterThanOrEqual(4);
  });

  it("shows parallel tool calls as sibling spans that overlap in time", async () => {
    const { memory, tracer } = setup();
    const model = new FakeModel([reply("", toolCall("weather", { city: "北京" }), toolCall("weather", { city: "上海" })), "done"]);
    await new Agent(model, weatherRegistry(30), { onEvent: tracer.listener() }).run("go");
    const trace = memory.traces[0] as Trace;
    const clients = only(trace, "tool-call");
    expect(clients).toHaveLength(2);
    expect(new Set(clients.map((span) => span.parentSpanId)).size).toBe(1); // siblings under one turn
    const [first, second] = only(trace, "tool-execution") as [TraceSpan, TraceSpan];
    expect(first.startTime).toBeLessThan(second.endTime);
    expect(second.startTime).toBeLessThan(first.endTime);
  });

  it("shows queueing under a concurrency limit: client spans overlap, server spans do not", async () => {
    const { memory, tracer } = setup();
    const model = new FakeModel([reply("", toolCall("weather", { city: "北京" }), toolCall("weather", { city: "上海" })), "done"]);
    await new Agent(model, weatherRegistry(15), { toolConcurrency: 1, onEvent: tracer.listener() }).run("go");
    const trace = memory.traces[0] as Trace;
    const [firstClient, secondClient] = only(trace, "tool-call") as [TraceSpan, TraceSpan];
    const [first, second] = only(trace, "tool-execution") as [TraceSpan, TraceSpan];
    expect(secondClient.startTime).toBeLessThan(firstClient.endTime); // requested together…
    expect(second.startTime).toBeGreaterThanOrEqual(first.endTime); // …executed one after the other
  });

  it("marks a failed tool call as an error on its client and server spans", async () => {
    const { memory, tracer } = setup();
    const model = new FakeModel([reply("", toolCall("weather", { city: "Atlantis" })), "sorry"]);
    await new Agent(model, weatherRegistry(), { onEvent: tracer.listener() }).run("go");
    const trace = memory.traces[0] as Trace;
    for (const span of [...only(trace, "tool-call"), ...only(trace, "tool-execution")]) {
      expect(span.status).toEqual({ code: "error", message: "Error: no forecast for Atlantis" });
      expect(span.attributes["error.type"]).toBe("tool_error");
    }
    expect(only(trace, "run")[0]?.status).toEqual({ code: "ok" });
  });

  it("marks a run that did not converge", async () => {
    const { memory, tracer } = setup();
    const model = new FakeModel([reply("", toolCall("weather", { city: "北京" })), reply("", toolCall("weather", { city: "上海" }))]);
    await new Agent(model, weatherRegistry(), { maxSteps: 2, onEvent: tracer.listener() }).run("go");
    const run = memory.traces[0]?.spans[0];
    expect(run?.status).toEqual({ code: "error", message: "Did not converge within 2 model calls." });
    expect(run?.attributes).toMatchObject({ "minagent.run.status": "max_steps", "minagent.run.converged": false, "minagent.run.turns": 2 });
  });

  it("exports a failed run with every open span ended as an error", async () => {
    const { memory, tracer } = setup();
    const model = new FakeModel([reply("", toolCall("weather", { city: "北京" }))]); // runs out on the second call
    const agent = new Agent(model, weatherRegistry(), { onEvent: tracer.listener() });
    await expect(agent.run("go")).rejects.toThrow(/script ran out/);
    const trace = memory.traces[0] as Trace;
    const failed = trace.spans.filter((span) => span.status.code === "error").map((span) => span.name);
    expect(failed).toEqual(["invoke_agent", "turn 1", "chat fake-model"]); // the model is named by run-start
    expect(trace.spans[0]?.status).toMatchObject({ message: expect.stringMatching(/^UsageError: FakeModel script ran out/) });
    expect(trace.spans[0]?.attributes["error.type"]).toBe("UsageError");
    expect(only(trace, "turn")[0]?.status).toEqual({ code: "ok" }); // the finished turn keeps its status
  });

  it("traces consecutive runs of one agent as separate traces", async () => {
    const { memory, tracer } = setup();
    const agent = new Agent(new FakeModel(["one", "two"]), new ToolRegistry(), { onEvent: tracer.listener() });
    await agent.run("first");
    await agent.run("second");
    expect(memory.traces.map((trace) => trace.spans[0]?.attributes["minagent.run.final"])).toEqual(["one", "two"]);
    expect(memory.traces[0]?.traceId).not.toBe(memory.traces[1]?.traceId);
  });

  it("traces concurrent runs on one listener as separate traces, whichever order their events interleave in", async () => {
    const { memory, tracer } = setup();
    const model = new FakeModel([
      reply("", toolCall("weather", { city: "北京" }, "a1")),
      reply("", toolCall("weather", { city: "上海" }, "b1")),
      "a done",
      "b done",
    ]);
    const agent = new Agent(model, weatherRegistry(5), { onEvent: tracer.listener() });
    const [a, b] = await Promise.all([agent.run("a"), agent.run("b")]);
    expect(memory.traces).toHaveLength(2);
    for (const [trace, result] of memory.traces.map((trace, i) => [trace, [a, b][i]] as const)) {
      expect(trace.spans[0]?.attributes).toMatchObject({ "minagent.run.id": result?.runId, "minagent.run.status": "completed" });
      expect(trace.spans.every((span) => span.status.code === "ok")).toBe(true);
      expect(shape(trace)).toEqual([
        "invoke_agent",
        [
          ["turn 0", ["chat fake-model", ["execute_tool weather", ["weather"]]]],
          ["turn 1", ["chat fake-model"]],
        ],
      ]);
    }
    expect(memory.traces.map((trace) => only(trace, "tool-call")[0]?.attributes["gen_ai.tool.call.id"])).toEqual(["a1", "b1"]);
    expect(memory.traces[0]?.traceId).not.toBe(memory.traces[1]?.traceId);
  });

  it("records names, counts and timings only when payloads are off", async () => {
    const { memory, tracer } = setup({ recordPayloads: false });
    const model = new FakeModel([reply("", toolCall("weather", { city: "北京" }, "c1")), "done"]);
    await new Agent(model, weatherRegistry(), { onEvent: tracer.listener({ model }) }).run("go");
    const text = JSON.stringify(memory.traces[0]);
    expect(text).not.toContain("北京");
    expect(text).not.toContain("done");
    expect(text).toContain("gen_ai.tool.name");
  });

  it("never fails a run: a throwing exporter is reported, the run resolves", async () => {
    const errors: unknown[] = [];
    const tracer = new Tracer({
      exporters: [
        {
          export: () => {
            throw new Error("disk full");
          },
        },
        { export: async () => Promise.reject(new Error("collector down")) },
      ],
      onError: (error) => errors.push(error),
    });
    const result = await new Agent(new FakeModel(["ok"]), new ToolRegistry(), { onEvent: tracer.listener() }).run("go");
    await tracer.flush();
    expect(result.final).toBe("ok");
    expect(errors.map((error) => (error as Error).message)).toEqual(["disk full", "collector down"]);
  });

  it("flush waits for asynchronous exporters", async () => {
    const exported: string[] = [];
    const tracer = new Tracer({
      exporters: [
        {
          export: async (trace) => {
            await new Promise((resolve) => setTimeout(resolve, 10));
            exported.push(trace.traceId);
          },
        },
      ],
    });
    await new Agent(new FakeModel(["ok"]), new ToolRegistry(), { onEvent: tracer.listener() }).run("go");
    expect(exported).toHaveLength(0);
    await tracer.flush();
    expect(exported).toHaveLength(1);
  });

  it("records time to first chunk when the model streams", async () => {
    const { memory, tracer } = setup({ now: steppingClock() });
    await new Agent(new FakeModel(["streamed"]), new ToolRegistry(), { onEvent: tracer.listener(), stream: true }).run("go");
    const [call] = only(memory.traces[0] as Trace, "model-call");
    expect(call?.attributes["gen_ai.response.time_to_first_chunk"]).toBeCloseTo(0.001, 6);
  });
});
