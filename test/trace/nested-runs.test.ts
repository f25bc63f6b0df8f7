import { describe, expect, it } from "vitest";
import { Agent, FakeModel, type FakeModelScriptItem, type Model, RunContext, type ToolContext, ToolRegistry } from "../../src/index.js";
import { reply, toolCall, withUsage } from "../../src/testing/index.js";
import { formatTraceTree } from "../../src/trace/format-trace-tree.js";
import { MemoryTraceExporter } from "../../src/trace/memory-trace-exporter.js";
import { childSpans, type Trace, type TraceSpan } from "../../src/trace/trace.js";
import { Tracer } from "../../src/trace/tracer.js";

/** A scripted model with its own name, so a child's model-call spans can be told from its parent's. */
function scripted(modelId: string, script: readonly FakeModelScriptItem[]): Model {
  const fake = new FakeModel(script);
  return { provider: "fake", modelId, complete: (messages, tools, options) => fake.complete(messages, tools, options) };
}

const wait = (milliseconds: number) => new Promise((resolve) => setTimeout(resolve, milliseconds));

/** A clock that moves 1 ms per reading, so timings are exact. */
function steppingClock(start = Date.UTC(2025, 0, 1)) {
  let now = start;
  return () => (now += 1);
}

/** A `research` tool that runs a child agent (made per call by `child`) with the tool's context as its parent. */
function researchRegistry(child: (topic: string) => Agent, delayMs = 0) {
  return new ToolRegistry().add({
    name: "research",
    description: "Researches a topic with a sub-agent",
    parameters: { type: "object", properties: { topic: { type: "string" } }, required: ["topic"] },
    execute: async ({ topic }, context: ToolContext) => {
      if (delayMs > 0) await wait(delayMs);
      return (await child(topic as string).run(`Research ${topic as string}`, { parent: context })).final;
    },
  });
}

const weatherTool = (delayMs = 0) =>
  new ToolRegistry().add({
    name: "weather",
    description: "Current weather of a city",
    parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
    execute: async ({ city }) => {
      if (delayMs > 0) await wait(delayMs);
      return `sunny in ${city as string}`;
    },
  });

function setup(now?: () => number) {
  const memory = new MemoryTraceExporter();
  const errors: unknown[] = [];
  const tracer = new Tracer({ exporters: [memory], onError: (error) => errors.push(error), ...(now && { now }) });
  return { memory, tracer, errors };
}

const byId = (trace: Trace) => new Map(trace.spans.map((span) => [span.spanId, span]));
const runSpans = (trace: Trace) => trace.spans.filter((span) => span.type === "run");
const parentOf = (trace: Trace, span: TraceSpan | undefined) => (span?.parentSpanId ? byId(trace).get(span.parentSpanId) : undefined);
/** Every span under `span`, at any depth. */
const descendants = (trace: Trace, span: TraceSpan): TraceSpan[] =>
  childSpans(trace, span).flatMap((child) => [child, ...descendants(trace, child)]);

describe("nested runs: one trace per top-level run", () => {
  it("draws a child run started by a tool under that call's execution span, in the parent's trace", async () => {
    const { memory, tracer } = setup();
    const child = () =>
      new Agent(
        scripted("child-model", [
          withUsage(reply("", toolCall("weather", { city: "Paris" }, "w1")), { inputTokens: 10, outputTokens: 5 }),
          withUsage(reply("Paris is sunny."), { inputTokens: 20, outputTokens: 4 }),
        ]),
        weatherTool(),
      );
    const parentModel = scripted("parent-model", [
      withUsage(reply("Delegating.", toolCall("research", { topic: "Paris" }, "r1")), { inputTokens: 100, outputTokens: 10 }),
      withUsage(reply("Paris: sunny."), { inputTokens: 200, outputTokens: 8 }),
    ]);
    const parent = new Agent(parentModel, researchRegistry(child), { onEvent: tracer.listener({ agentName: "boss" }) });
    const result = await parent.run("What is Paris like?");

    expect(memory.traces).toHaveLength(1);
    const trace = memory.traces[0] as Trace;
    const [root, childRun] = runSpans(trace) as [TraceSpan, TraceSpan];
    expect(root.parentSpanId).toBeUndefined();
    expect(root.name).toBe("invoke_agent boss");
    expect(childRun.name).toBe("invoke_agent"); // the listener's subject names the agent it is attached to, not its children
    const execution = parentOf(trace, childRun);
    expect(execution).toMatchObject({ type: "tool-execution", name: "research", attributes: { "gen_ai.tool.call.id": "r1" } });
    expect(parentOf(trace, execution)).toMatchObject({ type: "tool-call", name: "execute_tool research" });
    expect(childRun.attributes).toMatchObject({
      "minagent.run.status": "completed",
      "minagent.run.input": "Research Paris",
      "minagent.run.final": "Paris is sunny.",
    });
    expect(root.attributes["minagent.run.id"]).toBe(result.runId);
    expect(childRun.attributes["minagent.run.id"]).not.toBe(result.runId);

    // The child's model calls and tool calls are inside its run span; the parent's are not.
    const inChild = descendants(trace, childRun);
    expect(inChild.filter((span) => span.type === "model-call").map((span) => span.name)).toEqual(["chat child-model", "chat child-model"]);
    expect(inChild.filter((span) => span.type === "tool-execution").map((span) => span.name)).toEqual(["weather"]);
    const parentCalls = trace.spans.filter((span) => span.type === "model-call" && !inChild.includes(span));
    expect(parentCalls.map((span) => span.name)).toEqual(["chat parent-model", "chat parent-model"]);
    // A run span's tokens are those of every model call beneath it.
    expect(childRun.attributes).toMatchObject({ "gen_ai.usage.input_tokens": 30, "gen_ai.usage.output_tokens": 9 });
    expect(root.attributes).toMatchObject({ "gen_ai.usage.input_tokens": 330, "gen_ai.usage.output_tokens": 27 });
    // Parents before children, every span inside its parent's time.
    const spans = byId(trace);
    for (const [index, span] of trace.spans.entries()) {
      const parentSpan = span.parentSpanId ? spans.get(span.parentSpanId) : undefined;
      if (!parentSpan) continue;
      expect(trace.spans.indexOf(parentSpan)).toBeLessThan(index);
      expect(span.startTime).toBeGreaterThanOrEqual(parentSpan.startTime);
      expect(span.endTime).toBeLessThanOrEqual(parentSpan.endTime);
    }
  });

  it("draws the nested tree (the docs' example)", async () => {
    const { memory, tracer } = setup(steppingClock());
    const child = () => new Agent(scripted("haiku", [reply("", toolCall("weather", { city: "Paris" }, "w1")), "Sunny."]), weatherTool());
    const parent = new Agent(
      scripted("sonnet", [reply("", toolCall("research", { topic: "Paris" }, "r1")), "Paris is sunny."]),
      researchRegistry(child),
      { onEvent: tracer.listener({ agentName: "planner" }) },
    );
    await parent.run("Paris?");
    const text = formatTraceTree(memory.traces[0] as Trace);
    expect(text.replace(/^trace [0-9a-f]{32}/, "trace <id>")).toBe(`trace <id>  2025-01-01T00:00:00.001Z
  15.0 ms  [████████████████████████]  invoke_agent planner  ✓ completed in 2 turns
  11.0 ms  [ ███████████████████    ]  ├─ turn 0
  1.00 ms  [ ███                    ]  │  ├─ chat sonnet  tool_use
  10.0 ms  [   █████████████████    ]  │  └─ execute_tool research  {"topic":"Paris"}
  9.00 ms  [    ████████████████    ]  │     └─ research  → Sunny.
  7.00 ms  [      ████████████      ]  │        └─ invoke_agent  ✓ completed in 2 turns
  3.00 ms  [        █████           ]  │           ├─ turn 0
  1.00 ms  [        ██              ]  │           │  ├─ chat haiku  tool_use
  2.00 ms  [         ████           ]  │           │  └─ execute_tool weather  {"city":"Paris"}
  1.00 ms  [           ██           ]  │           │     └─ weather  → sunny in Paris
  1.00 ms  [              ██        ]  │           └─ turn 1
  1.00 ms  [              ██        ]  │              └─ chat haiku  end_turn
  1.00 ms  [                    ███ ]  └─ turn 1
  1.00 ms  [                    ███ ]     └─ chat sonnet  end_turn
`);
  });

  it("gives concurrent children of one turn each their own subtree", async () => {
    const { memory, tracer } = setup();
    // Each child waits in its tool, so the two children's events interleave.
    const child = (topic: string) =>
      new Agent(
        scripted(`model-${topic}`, [reply("", toolCall("weather", { city: topic }, `w-${topic}`)), `${topic} done`]),
        weatherTool(10),
      );
    const parent = new Agent(
      scripted("parent-model", [
        reply("", toolCall("research", { topic: "A" }, "rA"), toolCall("research", { topic: "B" }, "rB")),
        "both done",
      ]),
      researchRegistry(child),
      { onEvent: tracer.listener() },
    );
    await parent.run("A and B");

    expect(memory.traces).toHaveLength(1);
    const trace = memory.traces[0] as Trace;
    const children = runSpans(trace).slice(1);
    expect(children).toHaveLength(2);
    for (const topic of ["A", "B"]) {
      const childRun = children.find((span) => span.attributes["minagent.run.input"] === `Research ${topic}`) as TraceSpan;
      expect(parentOf(trace, childRun)?.attributes["gen_ai.tool.call.id"]).toBe(`r${topic}`);
      const inside = descendants(trace, childRun);
      expect(inside.map((span) => span.name)).toEqual([
        "turn 0",
        `chat model-${topic}`,
        "execute_tool weather",
        "weather",
        "turn 1",
        `chat model-${topic}`,
      ]);
      expect(inside.find((span) => span.type === "tool-call")?.attributes["gen_ai.tool.call.id"]).toBe(`w-${topic}`);
      expect(childRun.attributes["minagent.run.final"]).toBe(`${topic} done`);
    }
    // They ran at the same time.
    const [first, second] = children as [TraceSpan, TraceSpan];
    expect(first.startTime).toBeLessThan(second.endTime);
    expect(second.startTime).toBeLessThan(first.endTime);
  });

  it("ends a failed child's spans as errors, and the parent goes on", async () => {
    const { memory, tracer } = setup();
    // The child's model fails on its second call (its script runs out).
    const child = () => new Agent(scripted("child-model", [reply("", toolCall("weather", { city: "Paris" }))]), weatherTool());
    const parent = new Agent(
      scripted("parent-model", [reply("", toolCall("research", { topic: "Paris" }, "r1")), "The research failed."]),
      researchRegistry(child),
      { onEvent: tracer.listener() },
    );
    const result = await parent.run("Paris?");
    expect(result.status).toBe("completed");

    expect(memory.traces).toHaveLength(1);
    const trace = memory.traces[0] as Trace;
    const [root, childRun] = runSpans(trace) as [TraceSpan, TraceSpan];
    expect(childRun.status).toMatchObject({ code: "error", message: expect.stringMatching(/^UsageError: FakeModel script ran out/) });
    expect(childRun.attributes["error.type"]).toBe("UsageError");
    const failedInChild = descendants(trace, childRun).filter((span) => span.status.code === "error");
    expect(failedInChild.map((span) => span.name)).toEqual(["turn 1", "chat child-model"]);
    // The tool that ran the child threw: an observation for the parent, marked on its spans.
    const execution = parentOf(trace, childRun) as TraceSpan;
    expect(execution.status.code).toBe("error");
    expect(execution.attributes["error.type"]).toBe("tool_error");
    expect(root.status).toEqual({ code: "ok" });
    expect(root.attributes["minagent.run.status"]).toBe("completed");
  });

  it("exports the trace once when the parent fails, with its open spans (and an open child's) ended as errors", async () => {
    const { memory, tracer, errors } = setup();
    const controller = new AbortController();
    // The child's tool never returns by itself: the parent's abort ends everything.
    const stuck = new ToolRegistry().add({
      name: "wait",
      description: "Waits forever",
      parameters: { type: "object", properties: {} },
      execute: () => new Promise(() => {}),
    });
    const child = () => new Agent(scripted("child-model", [reply("", toolCall("wait", {}, "w1"))]), stuck);
    const parent = new Agent(
      scripted("parent-model", [reply("", toolCall("research", { topic: "Paris" }, "r1"))]),
      researchRegistry(child),
      {
        onEvent: tracer.listener(),
        signal: controller.signal,
      },
    );
    const running = parent.run("Paris?");
    await wait(10);
    controller.abort();
    await expect(running).rejects.toThrow(/abort/i);
    await wait(10); // anything the child reports late must not produce a second trace

    expect(errors).toEqual([]);
    expect(memory.traces).toHaveLength(1);
    const trace = memory.traces[0] as Trace;
    const [root, childRun] = runSpans(trace) as [TraceSpan, TraceSpan];
    expect(root.status).toMatchObject({ code: "error", message: expect.stringMatching(/^AbortError/) });
    expect(childRun.status.code).toBe("error");
    const open = trace.spans.filter((span) => span.status.code !== "error").map((span) => `${span.type} ${span.name}`);
    expect(open).toEqual(["model-call chat parent-model", "model-call chat child-model"]); // they had answered
  });

  it("draws a pattern's runs (a RunContext parent, no tool call) directly under its run span", async () => {
    const { memory, tracer } = setup();
    const trialAgent = new Agent(scripted("actor", ["first try", "second try"]), new ToolRegistry());
    const run = new RunContext({ listeners: [tracer.listener({ agentName: "reflexion" })] });
    run.start("Solve it", [], { provider: "fake", modelId: "actor" });
    const first = await trialAgent.run("Solve it", { parent: run });
    const second = await trialAgent.run("Solve it, again", { parent: run });
    run.end({ status: "completed", final: second.final, turns: first.turns + second.turns, usage: run.usage });

    expect(memory.traces).toHaveLength(1);
    const trace = memory.traces[0] as Trace;
    const [root, ...trials] = runSpans(trace) as [TraceSpan, ...TraceSpan[]];
    expect(root.name).toBe("invoke_agent reflexion");
    expect(trials.map((span) => span.parentSpanId)).toEqual([root.spanId, root.spanId]);
    expect(trials.map((span) => span.attributes["minagent.run.final"])).toEqual(["first try", "second try"]);
    expect(childSpans(trace, root).map((span) => span.type)).toEqual(["run", "run"]);
  });

  it("draws a child agent that has a listener of the same tracer once, named by that listener", async () => {
    const { memory, tracer } = setup();
    const child = () =>
      new Agent(scripted("child-model", ["found it"]), new ToolRegistry(), { onEvent: tracer.listener({ agentName: "researcher" }) });
    const parent = new Agent(
      scripted("parent-model", [reply("", toolCall("research", { topic: "x" }, "r1")), "done"]),
      researchRegistry(child),
      {
        onEvent: tracer.listener({ agentName: "boss" }),
      },
    );
    await parent.run("go");
    expect(memory.traces).toHaveLength(1);
    const trace = memory.traces[0] as Trace;
    expect(runSpans(trace).map((span) => span.name)).toEqual(["invoke_agent boss", "invoke_agent researcher"]);
    expect(trace.spans.filter((span) => span.type === "model-call")).toHaveLength(3);
  });

  it("gives a child run its own trace in a tracer that does not hear its parent", async () => {
    const own = setup();
    const other = setup();
    const child = () => new Agent(scripted("child-model", ["found it"]), new ToolRegistry(), { onEvent: own.tracer.listener() });
    const parent = new Agent(
      scripted("parent-model", [reply("", toolCall("research", { topic: "x" }, "r1")), "done"]),
      researchRegistry(child),
      {
        onEvent: other.tracer.listener(),
      },
    );
    await parent.run("go");
    expect(own.memory.traces.map((trace) => runSpans(trace).length)).toEqual([1]);
    expect(other.memory.traces.map((trace) => runSpans(trace).length)).toEqual([2]);
  });
});

describe("interrupted runs: calls that wait for approval", () => {
  const deleteTool = () =>
    new ToolRegistry().add({
      name: "delete_file",
      description: "Deletes a file",
      parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
      needsApproval: true,
      execute: ({ path }) => `deleted ${path as string}`,
    });

  it("marks the run interrupted (not an error) and the pending call's spans as pending", async () => {
    const { memory, tracer } = setup();
    const model = new FakeModel([reply("Deleting.", toolCall("delete_file", { path: "build" }, "d1")), "Deleted."]);
    const agent = new Agent(model, deleteTool(), { onEvent: tracer.listener() });
    const result = await agent.run("Clean up");
    expect(result.status).toBe("interrupted");

    const trace = memory.traces[0] as Trace;
    const [run] = runSpans(trace) as [TraceSpan];
    expect(run.status).toEqual({ code: "ok" });
    expect(run.attributes).toMatchObject({
      "minagent.run.status": "interrupted",
      "minagent.run.pending_count": 1,
      "minagent.run.turns": 1,
    });
    const pending = trace.spans.filter((span) => span.attributes["minagent.tool.pending"] === true);
    expect(pending.map((span) => span.type)).toEqual(["tool-call", "tool-execution"]);
    for (const span of pending) expect(span.status).toEqual({ code: "ok" });
    expect(trace.spans.every((span) => span.status.code === "ok")).toBe(true);
    expect(formatTraceTree(trace, { timelineWidth: 0 }).replace(/^ +[\d.]+ m?s {2}/gm, "")).toMatch(
      /invoke_agent {2}⏸ interrupted: 1 call awaits approval\n└─ turn 0\n {3}├─ chat fake-model {2}tool_use\n {3}└─ execute_tool delete_file {2}\{"path":"build"\}\n {6}└─ delete_file {2}⏸ awaits approval\n$/,
    );

    // The resumed run is a new trace: the pending turn's call runs (no model call in this run), then the next turn.
    await agent.resume(result, { d1: { behavior: "allow" } });
    const resumed = memory.traces[1] as Trace;
    expect(formatTraceTree(resumed, { timelineWidth: 0 }).replace(/^ +[\d.]+ m?s {2}/gm, "")).toMatch(
      /invoke_agent {2}✓ completed in 2 turns\n├─ turn 0 {2}resumed\n│ {2}└─ execute_tool delete_file {2}\{"path":"build"\}\n│ {5}└─ delete_file {2}→ deleted build\n└─ turn 1\n {3}└─ chat fake-model {2}end_turn\n$/,
    );
  });

  it("records why a call waits when the permission check says (a payload: not with payloads off)", async () => {
    const canUseTool = () => ({ behavior: "ask" as const, reason: "deletes files" });
    const run = async (recordPayloads: boolean) => {
      const memory = new MemoryTraceExporter();
      const tracer = new Tracer({ exporters: [memory], recordPayloads });
      const model = new FakeModel([reply("", toolCall("delete_file", { path: "a" }, "d1"), toolCall("delete_file", { path: "b" }, "d2"))]);
      await new Agent(model, deleteTool(), { onEvent: tracer.listener(), canUseTool }).run("Clean up");
      return memory.traces[0] as Trace;
    };
    const trace = await run(true);
    const executions = trace.spans.filter((span) => span.type === "tool-execution");
    expect(executions.map((span) => span.attributes["minagent.tool.pending_reason"])).toEqual(["deletes files", "deletes files"]);
    expect(formatTraceTree(trace)).toMatch(/⏸ interrupted: 2 calls await approval/);
    expect(formatTraceTree(trace)).toMatch(/└─ delete_file {2}⏸ awaits approval: deletes files\n$/);
    const quiet = await run(false);
    expect(JSON.stringify(quiet)).not.toContain("deletes files");
    expect(quiet.spans.filter((span) => span.attributes["minagent.tool.pending"] === true)).toHaveLength(4);
  });

  it("shows a run that reached maxSteps as such", async () => {
    const { memory, tracer } = setup();
    const model = new FakeModel([reply("", toolCall("weather", { city: "a" })), reply("", toolCall("weather", { city: "b" }))]);
    await new Agent(model, weatherTool(), { maxSteps: 2, onEvent: tracer.listener() }).run("go");
    expect(formatTraceTree(memory.traces[0] as Trace, { timelineWidth: 0 })).toMatch(/invoke_agent {2}✗ max_steps after 2 turns\n/);
  });
});
