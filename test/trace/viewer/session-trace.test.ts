import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { UsageError } from "../../../src/errors.js";
import type { TraceSpan } from "../../../src/trace/trace.js";
import { readSessionAsTrace } from "../../../src/trace/viewer/session-trace.js";
import { summarizeTrace } from "../../../src/trace/viewer/trace-summary.js";
import { temporaryFolder } from "../../helpers/temporary-folder.js";
import { writeSession } from "./make-traces.js";

const header = JSON.stringify({
  type: "session",
  version: 1,
  sessionId: "0b7f4c1e-2d3a-4e5f-8a9b-0c1d2e3f4a5b",
  cwd: "/home/me/app",
  createdAt: "2026-11-30T10:00:00.000Z",
  model: { provider: "anthropic", modelId: "claude-sonnet-4-5" },
});
const line = (at: number, value: Record<string, unknown>) =>
  JSON.stringify({ ...value, at: new Date(Date.UTC(2026, 10, 30, 10, 0, at)).toISOString() });

const byType = (spans: TraceSpan[], type: TraceSpan["type"]) => spans.filter((span) => span.type === type);

describe("a minagent code session read as a trace", () => {
  it("draws each prompt as a run, each answer as a turn with its model call, each result as a tool call, timed by its lines", async () => {
    const session = await writeSession(temporaryFolder("minagent-session-trace-"));
    const trace = readSessionAsTrace(readFileSync(session.file, "utf8"), session.file);
    expect(trace.spans.map((span) => span.type)).toEqual([
      "run",
      ...["run", "turn", "model-call", "tool-call", "tool-execution", "tool-call", "tool-execution", "turn", "model-call"],
      ...["run", "turn", "model-call"],
    ]);
    const [root, first, second] = byType(trace.spans, "run") as TraceSpan[];
    expect(root?.name).toMatch(/^session [0-9a-f-]{36}$/);
    expect(first?.parentSpanId).toBe(root?.spanId);
    expect(second?.attributes["minagent.run.input"]).toBe("Thanks!");
    expect(second?.attributes["minagent.run.final"]).toBe("You are welcome.");
    for (const span of trace.spans) {
      expect(span.endTime).toBeGreaterThanOrEqual(span.startTime);
      const parent = trace.spans.find((candidate) => candidate.spanId === span.parentSpanId);
      if (parent) expect(span.startTime).toBeGreaterThanOrEqual(parent.startTime);
    }
    const answer = byType(trace.spans, "model-call")[0];
    expect(JSON.parse(String(answer?.attributes["gen_ai.output.messages"]))[0]).toMatchObject({
      role: "assistant",
      finish_reason: "tool_use",
    });
    expect(answer?.attributes["gen_ai.usage.input_tokens"]).toBe(400);
  });

  it("shows a session cut short (no run-end, a torn last line) as running, its unanswered call ended with its turn", () => {
    const text = [
      header,
      line(0, { type: "message", message: { role: "user", content: "Fix the test" } }),
      line(2, {
        type: "message",
        message: { role: "assistant", content: "Running it.", toolCalls: [{ id: "b1", name: "Bash", arguments: { command: "npm test" } }] },
        usage: { inputTokens: 100, outputTokens: 10 },
      }),
      '{"type":"message","message":{"role":"tool","content":"PASS',
    ].join("\n");
    const trace = readSessionAsTrace(text, "cut.jsonl");
    const summary = summarizeTrace(trace, "cut.jsonl", "session", 0);
    expect(summary).toMatchObject({ status: "running", turns: 1, inputTokens: 100, outputTokens: 10, errorCount: 0 });
    const call = byType(trace.spans, "tool-execution")[0];
    expect(call?.attributes["gen_ai.tool.call.result"]).toBeUndefined();
    expect(call?.endTime).toBe(call?.startTime);
  });

  it("marks a failed run and a failing tool call as errors", () => {
    const text = [
      header,
      line(0, { type: "message", message: { role: "user", content: "Go" } }),
      line(1, {
        type: "message",
        message: { role: "assistant", content: "", toolCalls: [{ id: "r1", name: "Read", arguments: { path: "nope" } }] },
      }),
      line(2, {
        type: "message",
        message: { role: "tool", toolCallId: "r1", content: "Error: no such file", isError: true },
        event: "tool-call-end",
      }),
      line(3, { type: "run-end", status: "failed", error: "AbortError: aborted" }),
      "",
    ].join("\n");
    const trace = readSessionAsTrace(text, "failed.jsonl");
    const failed = trace.spans
      .filter((span) => span.status.code === "error")
      .map((span) => [span.type, span.status.code === "error" && span.status.message]);
    expect(failed).toEqual([
      ["run", "AbortError: aborted"],
      ["tool-call", "Error: no such file"],
      ["tool-execution", "Error: no such file"],
    ]);
    expect(summarizeTrace(trace, "failed.jsonl", "session", 0)).toMatchObject({ status: "failed", errorCount: 2 });
  });

  it("refuses a file whose first line is not a session header", () => {
    expect(() => readSessionAsTrace('{"type":"message"}\n', "other.jsonl")).toThrow(UsageError);
    expect(() => readSessionAsTrace("", "empty.jsonl")).toThrow(/not a minagent session/);
  });
});
