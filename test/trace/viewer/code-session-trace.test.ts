import { readFileSync } from "node:fs";
import { beforeAll, describe, expect, it } from "vitest";
import { readSession } from "../../../src/code/sessions/index.js";
import type { LoadedSession } from "../../../src/code/sessions/session-store.js";
import { estimateCost } from "../../../src/trace/model-prices.js";
import type { Trace, TraceSpan } from "../../../src/trace/trace.js";
import { TraceModel } from "../../../src/trace/viewer/page/trace-model.js";
import { readSessionAsTrace } from "../../../src/trace/viewer/session-trace.js";
import { spanCosts, summarizeTrace, type TraceSummary } from "../../../src/trace/viewer/trace-summary.js";
import { temporaryFolder } from "../../helpers/temporary-folder.js";
import { codeSessionPrompt, type RecordedCodeSession, writeCodeSession } from "./make-code-session.js";

// A session written by the session recorder from a real CodingAgent's runs (an Explore subagent started by the
// Agent tool, a Bash call stopped while it ran), read as the viewer reads it.

let recorded: RecordedCodeSession;
let session: LoadedSession;
let trace: Trace;
let summary: TraceSummary;

beforeAll(async () => {
  recorded = await writeCodeSession(temporaryFolder("minagent-viewer-code-session-"));
  const text = readFileSync(recorded.file, "utf8");
  session = readSession(text, recorded.file);
  trace = readSessionAsTrace(text, recorded.file);
  summary = summarizeTrace(trace, "session.jsonl", "session", 0);
}, 60_000);

const spansOf = (type: TraceSpan["type"]) => trace.spans.filter((span) => span.type === type);
const childrenOf = (span: TraceSpan | undefined) => trace.spans.filter((child) => child.parentSpanId === span?.spanId);
const root = () => trace.spans[0] as TraceSpan;

describe("a minagent code session in the viewer", () => {
  it("draws the subagent an Agent call started under that call, with the tokens its calls spent", () => {
    const agentCall = spansOf("tool-execution").find((span) => span.name === "Agent");
    const [subagent] = childrenOf(agentCall);
    expect(subagent).toMatchObject({
      type: "run",
      name: "invoke_agent Explore: find the tests",
      attributes: expect.objectContaining({
        "gen_ai.agent.name": "Explore",
        "minagent.run.input": "List the test files.",
        // Its answer is the Agent call's result.
        "minagent.run.final": "One test file: test/math.test.js.",
        "minagent.run.status": "completed",
      }),
    });
    // Its own calls are in the file (the recorder's child-* lines): two turns, each a model call, the first with its Glob call.
    const within = (span: TraceSpan | undefined): TraceSpan[] => childrenOf(span).flatMap((child) => [child, ...within(child)]);
    const calls = within(subagent).filter((span) => span.type === "model-call");
    expect(calls).toHaveLength(2);
    expect(calls.every((span) => span.attributes["minagent.session.unrecorded_calls"] === undefined)).toBe(true);
    expect(calls.reduce((sum, span) => sum + Number(span.attributes["gen_ai.usage.input_tokens"]), 0)).toBe(
      recorded.subagentUsage.inputTokens,
    );
    expect(calls.reduce((sum, span) => sum + Number(span.attributes["gen_ai.usage.output_tokens"]), 0)).toBe(
      recorded.subagentUsage.outputTokens,
    );
    expect(
      within(subagent)
        .filter((span) => span.type === "tool-call")
        .map((span) => span.name),
    ).toEqual([expect.stringContaining("Glob")]);
    // It lies within the Agent call, in time as in the tree.
    expect(subagent?.startTime).toBeGreaterThanOrEqual(agentCall?.startTime ?? Number.NaN);
    expect(subagent?.endTime).toBeLessThanOrEqual(agentCall?.endTime ?? Number.NaN);
  });

  it("totals the same tokens in the header, on the root span, in the list and in the session (the subagent's included)", () => {
    const tokens = { inputTokens: session.usage.inputTokens, outputTokens: session.usage.outputTokens };
    expect(tokens).toEqual(recorded.usage);
    const header = new TraceModel(trace, spanCosts(trace)).totals();
    expect({ inputTokens: header.inputTokens, outputTokens: header.outputTokens }).toEqual(tokens);
    expect({
      inputTokens: root().attributes["gen_ai.usage.input_tokens"],
      outputTokens: root().attributes["gen_ai.usage.output_tokens"],
    }).toEqual(tokens);
    expect({ inputTokens: summary.inputTokens, outputTokens: summary.outputTokens }).toEqual(tokens);
    // The conversation's four model calls and the subagent's two are all in the file as calls.
    expect(header.modelCalls).toBe(6);
  });

  it("costs what minagent code says the session cost: every token at the session's model", () => {
    const sessionCost = estimateCost("claude-sonnet-4-5", session.usage) as number;
    expect(sessionCost).toBeGreaterThan(0);
    expect(summary.cost).toBeCloseTo(sessionCost, 10);
    expect(new TraceModel(trace, spanCosts(trace)).totals().cost).toBeCloseTo(sessionCost, 10);
  });

  it("gives the session and its completed runs their input and final answer; a stopped run has none", () => {
    expect(root().attributes).toMatchObject({
      "minagent.run.input": codeSessionPrompt,
      "minagent.run.final": "Stopped; nothing failed before the stop.",
      "minagent.run.status": "completed",
    });
    const runs = childrenOf(root()).filter((span) => span.type === "run");
    expect(runs.map((run) => [run.attributes["minagent.run.input"], run.attributes["minagent.run.final"]])).toEqual([
      [codeSessionPrompt, "There is one test file, test/math.test.js."],
      ["Now run them.", undefined],
      ["What happened?", "Stopped; nothing failed before the stop."],
    ]);
    expect(runs[1]?.status).toEqual({ code: "error", message: "AbortError: The operation was aborted" });
  });

  it("draws a Bash call stopped while it ran until the stop, marked interrupted, with what the model was told", () => {
    const bash = trace.spans.filter((span) => span.attributes["gen_ai.tool.name"] === "Bash");
    expect(bash.map((span) => span.type)).toEqual(["tool-call", "tool-execution"]);
    const stoppedRun = childrenOf(root()).filter((span) => span.type === "run")[1] as TraceSpan;
    for (const span of bash) {
      expect(span.attributes["minagent.tool.interrupted"]).toBe(true);
      expect(span.status).toEqual({
        code: "error",
        message: "Interrupted: the run was stopped (AbortError: The operation was aborted) before this call returned.",
      });
      // The run was stopped 300 ms after the call started: the call lasts until then, not 0 µs.
      expect(span.durationMs).toBeGreaterThanOrEqual(250);
      expect(span.endTime).toBe(stoppedRun.endTime);
    }
    expect(bash[1]?.attributes["gen_ai.tool.call.result"]).toMatch(/^This tool call was interrupted before it returned a result/);
    // The failed run and its call count as errors; the session ended well.
    expect(summary).toMatchObject({ status: "completed", errorCount: 2 });
  });

  it("is listed under its first prompt, on one line cut to 80 characters", () => {
    expect(codeSessionPrompt.length).toBeGreaterThan(80);
    expect(summary.title).toBe(`${codeSessionPrompt.slice(0, 79)}…`);
    expect(summary.title).toHaveLength(80);
    expect(summary.agent).toBe("minagent code");
  });
});
