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

  it("gives a session's small images to the page with their bytes, for a thumbnail, and large ones by size and hash", () => {
    const small = Buffer.from("a small image's bytes").toString("base64");
    const large = Buffer.alloc(600 * 1024, 7).toString("base64");
    const text = [
      header,
      line(0, {
        type: "message",
        message: {
          role: "user",
          content: "What are these?",
          parts: [
            { type: "image", mediaType: "image/png", data: small },
            { type: "image", mediaType: "image/jpeg", data: large },
          ],
        },
      }),
      line(1, { type: "message", message: { role: "assistant", content: "Two images." }, usage: { inputTokens: 10, outputTokens: 2 } }),
    ].join("\n");
    const trace = readSessionAsTrace(text, "images.jsonl");
    const call = byType(trace.spans, "model-call")[0];
    const [user] = JSON.parse(String(call?.attributes["minagent.request.new_messages"])) as { parts: Record<string, unknown>[] }[];
    expect(user?.parts[1]).toMatchObject({ type: "blob", modality: "image", mime_type: "image/png", content: small });
    expect(user?.parts[2]).toMatchObject({ type: "blob", mime_type: "image/jpeg", size_bytes: 600 * 1024, sha256: expect.any(String) });
    expect(user?.parts[2]).not.toHaveProperty("content");
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

  it("reads sub-agents' own lines (child-run-start, child-message, child-run-end) into runs under the calls that started them", () => {
    const agentCall = {
      id: "a1",
      name: "Agent",
      arguments: { description: "find tests", prompt: "List the tests", subagent_type: "Explore" },
    };
    const text = [
      header,
      line(0, { type: "message", message: { role: "user", content: "Find the tests" } }),
      line(1, {
        type: "message",
        message: { role: "assistant", content: "", toolCalls: [agentCall] },
        usage: { inputTokens: 100, outputTokens: 10 },
      }),
      line(2, {
        type: "child-run-start",
        runId: "run_child",
        parentRunId: "run_conversation",
        parentToolCallId: "a1",
        name: "Explore: find tests",
        model: { provider: "anthropic", modelId: "claude-haiku-4-5" },
        messages: [
          { role: "system", content: "You explore." },
          { role: "user", content: "List the tests" },
        ],
      }),
      line(3, {
        type: "child-message",
        runId: "run_child",
        message: { role: "assistant", content: "", toolCalls: [{ id: "g1", name: "Glob", arguments: { pattern: "test/**" } }] },
        usage: { inputTokens: 50, outputTokens: 5 },
      }),
      line(4, {
        type: "child-run-start",
        runId: "run_grandchild",
        parentRunId: "run_child",
        parentToolCallId: "g1",
        messages: [{ role: "user", content: "deeper" }],
      }),
      line(5, {
        type: "child-message",
        runId: "run_grandchild",
        message: { role: "assistant", content: "deep" },
        usage: { inputTokens: 7, outputTokens: 1 },
      }),
      line(5, { type: "child-run-end", runId: "run_grandchild", status: "completed" }),
      line(6, { type: "child-message", runId: "run_child", message: { role: "tool", toolCallId: "g1", content: "test/a.test.js" } }),
      line(7, {
        type: "child-message",
        runId: "run_child",
        message: { role: "assistant", content: "One: test/a.test.js" },
        usage: { inputTokens: 60, outputTokens: 6 },
      }),
      line(7, { type: "child-run-end", runId: "run_child", status: "completed" }),
      line(8, { type: "message", message: { role: "tool", toolCallId: "a1", content: "One: test/a.test.js" }, event: "tool-call-end" }),
      line(9, { type: "message", message: { role: "assistant", content: "There is one." }, usage: { inputTokens: 200, outputTokens: 4 } }),
      line(9, { type: "run-end", status: "completed" }),
      "",
    ].join("\n");
    const trace = readSessionAsTrace(text, "children.jsonl");
    const parentOf = (span: TraceSpan | undefined) => trace.spans.find((candidate) => candidate.spanId === span?.parentSpanId);
    const child = trace.spans.find((span) => span.name === "invoke_agent Explore: find tests");
    expect(parentOf(child)).toMatchObject({ type: "tool-execution", name: "Agent" });
    expect(child?.attributes).toMatchObject({
      "minagent.run.input": "List the tests",
      "minagent.run.final": "One: test/a.test.js",
      "minagent.run.status": "completed",
      "gen_ai.request.model": "claude-haiku-4-5",
      // Its own calls and its sub-agent's.
      "gen_ai.usage.input_tokens": 117,
      "gen_ai.usage.output_tokens": 12,
    });
    const childCalls = trace.spans.filter((span) => span.type === "model-call" && parentOf(parentOf(span)) === child);
    expect(childCalls.map((span) => [span.name, span.attributes["gen_ai.usage.input_tokens"]])).toEqual([
      ["chat claude-haiku-4-5", 50],
      ["chat claude-haiku-4-5", 60],
    ]);
    const glob = trace.spans.find((span) => span.type === "tool-execution" && span.name === "Glob");
    expect(glob?.attributes["gen_ai.tool.call.result"]).toBe("test/a.test.js");
    expect(parentOf(trace.spans.find((span) => span.attributes["minagent.run.input"] === "deeper"))).toBe(glob);
    // Every token once: the root's total is the sum of the model calls', and no span stands for unrecorded calls.
    const summary = summarizeTrace(trace, "children.jsonl", "session", 0);
    expect(summary).toMatchObject({ inputTokens: 417, outputTokens: 26, turns: 2 });
    expect(trace.spans.filter((span) => span.attributes["minagent.session.unrecorded_calls"])).toEqual([]);
  });

  it("refuses a file whose first line is not a session header", () => {
    expect(() => readSessionAsTrace('{"type":"message"}\n', "other.jsonl")).toThrow(UsageError);
    expect(() => readSessionAsTrace("", "empty.jsonl")).toThrow(/not a minagent session/);
  });
});
