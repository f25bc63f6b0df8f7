import type { SpanType, Trace, TraceSpan } from "../../src/trace/trace.js";

/** Builds spans in start order, 0.01 ms apart, each 1 ms long. */
function spanFactory() {
  const spans: TraceSpan[] = [];
  let time = Date.UTC(2026, 10, 30);
  const create = (parent: TraceSpan | undefined, name: string, type: SpanType, attributes: TraceSpan["attributes"] = {}): TraceSpan => {
    const span: TraceSpan = {
      spanId: (spans.length + 1).toString(16).padStart(16, "0"),
      ...(parent && { parentSpanId: parent.spanId }),
      name,
      type,
      kind: type === "model-call" || type === "tool-call" ? "client" : type === "tool-execution" ? "server" : "internal",
      startTime: time,
      endTime: time + 1,
      durationMs: 1,
      status: { code: "ok" },
      attributes,
    };
    time += 0.01;
    spans.push(span);
    return span;
  };
  const finish = (root: TraceSpan): Trace => {
    root.endTime = time + 1;
    root.durationMs = root.endTime - root.startTime;
    return { format: "minagent-trace", version: 1, traceId: `${"0".repeat(31)}1`, spans };
  };
  return { create, finish };
}

/**
 * A trace of `spans` spans (1 + 4k): one run of k turns, each a model call and a tool call with its
 * execution, as a long agent run records them.
 */
export function wideTrace(spans = 40_001): Trace {
  const { create, finish } = spanFactory();
  const root = create(undefined, "invoke_agent long", "run", { "minagent.run.turns": (spans - 1) / 4, "minagent.run.status": "completed" });
  for (let turn = 0; turn < (spans - 1) / 4; turn++) {
    const turnSpan = create(root, `turn ${turn}`, "turn");
    create(turnSpan, "chat fake-model", "model-call", { "gen_ai.response.finish_reasons": ["tool_use"] });
    const call = create(turnSpan, "execute_tool weather", "tool-call", { "gen_ai.tool.call.arguments": `{"city":"c${turn}"}` });
    create(call, "weather", "tool-execution", { "gen_ai.tool.call.result": `sunny ${turn}` });
  }
  return finish(root);
}

/** A trace of `depth` runs, each the only child of the one before (sub-agents calling sub-agents). */
export function deepTrace(depth: number): Trace {
  const { create, finish } = spanFactory();
  const root = create(undefined, "invoke_agent 0", "run");
  let parent = root;
  for (let level = 1; level < depth; level++) parent = create(parent, `invoke_agent ${level}`, "run");
  return finish(root);
}
