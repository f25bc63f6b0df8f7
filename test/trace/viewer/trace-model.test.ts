import { describe, expect, it } from "vitest";
import type { Trace, TraceSpan } from "../../../src/trace/trace.js";
import { TraceModel } from "../../../src/trace/viewer/page/trace-model.js";

function span(spanId: string, parentSpanId?: string, name = spanId): TraceSpan {
  return {
    spanId,
    ...(parentSpanId !== undefined && { parentSpanId }),
    name,
    type: "turn",
    kind: "internal",
    startTime: 1000,
    endTime: 1010,
    durationMs: 10,
    status: { code: "ok" },
    attributes: {},
  } as TraceSpan;
}

/**
 * A trace whose spans count how often their ids are read, and throw past a bound: a walk that never ends fails
 * the test instead of hanging it (a synchronous loop cannot be timed out).
 */
function trace(spans: TraceSpan[]): Trace {
  let reads = 0;
  const counted = spans.map((original) => {
    const copy = { ...original };
    Object.defineProperty(copy, "spanId", {
      enumerable: true,
      get: () => {
        if (++reads > 10_000) throw new Error("the tree walk does not end");
        return original.spanId;
      },
    });
    return copy;
  });
  return { format: "minagent-trace", version: 1, traceId: "0".repeat(32), spans: counted } as Trace;
}

// The page builds its model from whatever the file holds: a repeated span id or a loop of parents must not make
// its tree walk endless (the tab would run out of memory, and live mode would do it again at each change).
describe("the viewer's TraceModel, given a trace whose span ids repeat or loop", () => {
  it("builds from a span that repeats its parent's id, drawing the id once", () => {
    const model = new TraceModel(trace([span("a"), span("a", "a", "again")]), {});
    expect(model.rows.map((row) => row.span.name)).toEqual(["a"]);
    expect(model.visible).toEqual([0]);
  });

  it("builds from a repeated id deeper down, and from spans whose parents form a loop", () => {
    const repeated = new TraceModel(trace([span("r"), span("a", "r"), span("b", "a"), span("a", "b", "a again")]), {});
    expect(repeated.rows.map((row) => [row.span.name, row.depth])).toEqual([
      ["r", 0],
      ["a", 1],
      ["b", 2],
    ]);
    const loop = new TraceModel(trace([span("x", "y"), span("y", "x"), span("self", "self")]), {});
    expect(loop.rows.map((row) => [row.span.name, row.depth])).toEqual([
      ["x", 0],
      ["y", 1],
      ["self", 0],
    ]);
    expect(loop.hasChildren(0)).toBe(true);
    expect(loop.search("self")).toEqual([2]);
  });
});
