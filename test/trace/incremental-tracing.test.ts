import { describe, expect, it } from "vitest";
import type { AgentEvent, Message } from "../../src/index.js";
import { Agent, FakeModel, ToolRegistry } from "../../src/index.js";
import { reply, toolCall } from "../../src/testing/index.js";
import { describePartWithDigest } from "../../src/trace/describe-part.js";
import { toGenAiMessages, writeGenAiMessages } from "../../src/trace/gen-ai-attributes.js";
import { MemoryTraceExporter } from "../../src/trace/memory-trace-exporter.js";
import { createSecretScrubber, measureJson, redacted, stringifyBounded } from "../../src/trace/scrub-secrets.js";
import type { Trace, TraceSpan } from "../../src/trace/trace.js";
import { Tracer } from "../../src/trace/tracer.js";

const anthropicKey = "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789";

function counterRegistry(result: (i: number) => string = (i) => `step ${i} done`) {
  return new ToolRegistry().add({
    name: "step",
    description: "one step",
    parameters: { type: "object", properties: { i: { type: "integer" } }, required: ["i"] },
    execute: ({ i }) => result(i as number),
  });
}

async function tracedRun(turns: number, options: { maxPayloadLength?: number; result?: (i: number) => string } = {}) {
  const memory = new MemoryTraceExporter();
  const tracer = new Tracer({ exporters: [memory], ...(options.maxPayloadLength && { maxPayloadLength: options.maxPayloadLength }) });
  const script = [...Array.from({ length: turns }, (_, i) => reply(`Step ${i}.`, toolCall("step", { i }, `c${i}`))), reply("done")];
  await new Agent(new FakeModel(script), counterRegistry(options.result), { onEvent: tracer.listener() }).run("go");
  const trace = memory.traces[0] as Trace;
  return { trace, modelCalls: trace.spans.filter((span) => span.type === "model-call") };
}

const json = (span: TraceSpan | undefined, key: string): unknown => JSON.parse(span?.attributes[key] as string);

describe("model-call spans record what each call adds, not the whole history", () => {
  it("the first call records the conversation; later calls only the messages added since the previous reply", async () => {
    const { modelCalls } = await tracedRun(3);
    const [first, second, , last] = modelCalls;
    expect(first?.attributes).toMatchObject({ "minagent.request.message_count": 1, "minagent.request.new_message_index": 0 });
    expect(json(first, "gen_ai.input.messages")).toEqual([{ role: "user", parts: [{ type: "text", content: "go" }] }]);
    expect(first?.attributes["minagent.request.new_messages"]).toBeUndefined();
    // Sent: user, the first reply (recorded as the first call's output), its tool result.
    expect(second?.attributes).toMatchObject({ "minagent.request.message_count": 3, "minagent.request.new_message_index": 2 });
    expect(second?.attributes["gen_ai.input.messages"]).toBeUndefined();
    expect(json(second, "minagent.request.new_messages")).toEqual([
      { role: "tool", parts: [{ type: "tool_call_response", id: "c0", response: "step 0 done" }] },
    ]);
    expect(last?.attributes).toMatchObject({ "minagent.request.message_count": 7, "minagent.request.new_message_index": 6 });
    expect(json(last, "minagent.request.new_messages")).toEqual([
      { role: "tool", parts: [{ type: "tool_call_response", id: "c2", response: "step 2 done" }] },
    ]);
  });

  it("the conversation can be rebuilt: the first input, then each call's output and the next call's new messages", async () => {
    const memory = new MemoryTraceExporter();
    const tracer = new Tracer({ exporters: [memory] });
    const model = new FakeModel([reply("a", toolCall("step", { i: 0 }, "c0"), toolCall("step", { i: 1 }, "c1")), reply("b")]);
    const result = await new Agent(model, counterRegistry(), { onEvent: tracer.listener() }).run("go");
    const calls = (memory.traces[0] as Trace).spans.filter((span) => span.type === "model-call");
    const rebuilt = [
      ...(json(calls[0], "gen_ai.input.messages") as unknown[]),
      ...(json(calls[0], "gen_ai.output.messages") as { finish_reason?: string }[]).map(({ finish_reason, ...message }) => message),
      ...(json(calls[1], "minagent.request.new_messages") as unknown[]),
    ];
    expect(rebuilt).toEqual(toGenAiMessages((model.requests[1]?.messages ?? []) as Message[]));
    expect(result.final).toBe("b");
  });

  it("records the whole conversation again when the history was rewritten between calls", () => {
    const memory = new MemoryTraceExporter();
    const listener = new Tracer({ exporters: [memory] }).listener();
    const model = { provider: "test", modelId: "m" };
    const user: Message = { role: "user", content: "go" };
    const runId = "run_1";
    const answer = (text: string) => ({ message: { role: "assistant" as const, content: text }, stopReason: "pause_turn" as const });
    const events: AgentEvent[] = [
      { type: "run-start", runId, input: "go", messages: [user], model },
      { type: "model-call-start", runId, turn: 0, messages: [user], tools: [] },
      { type: "model-call-end", runId, turn: 0, response: answer("a") },
      // A pattern that compacted the history: the previous messages are gone.
      { type: "model-call-start", runId, turn: 1, messages: [{ role: "user", content: "summary" }], tools: [] },
      { type: "model-call-end", runId, turn: 1, response: answer("b") },
      { type: "run-end", runId, status: "completed", final: "b", turns: 2, usage: { inputTokens: 0, outputTokens: 0 } },
    ];
    for (const event of events) listener(event);
    const second = (memory.traces[0] as Trace).spans.filter((span) => span.type === "model-call")[1];
    expect(second?.attributes["minagent.request.new_message_index"]).toBe(0);
    expect(json(second, "gen_ai.input.messages")).toEqual([{ role: "user", parts: [{ type: "text", content: "summary" }] }]);
  });

  it("keeps each model call's payload the same size however long the run (no history re-recorded)", async () => {
    const { modelCalls } = await tracedRun(60);
    const sizes = modelCalls.slice(1, -1).map((span) => (span.attributes["minagent.request.new_messages"] as string).length);
    expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(2); // "c9" → "c59": digits only
  });

  it("ends every turn after its last child, as before", async () => {
    const { trace } = await tracedRun(5);
    for (const turn of trace.spans.filter((span) => span.type === "turn")) {
      const children = trace.spans.filter((span) => span.parentSpanId === turn.spanId);
      expect(turn.endTime).toBe(Math.max(turn.startTime, ...children.map((child) => child.endTime)));
    }
  });

  it("gives every span a distinct 16-hex-digit id", async () => {
    const { trace } = await tracedRun(20);
    const ids = trace.spans.map((span) => span.spanId);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{16}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describe("large payloads: scrubbed and cut, never written whole", () => {
  it("a huge text is cut with the marker counting every character", () => {
    expect(createSecretScrubber({ maxPayloadLength: 100 }).payload("y".repeat(2_000_000))).toBe(
      `${"y".repeat(100)}\n…[truncated 1999900 of 2000000 characters]`,
    );
  });

  it("a large tool result is cut in its span and in the next call's new messages", async () => {
    const { trace } = await tracedRun(1, { maxPayloadLength: 100, result: () => "y".repeat(40_000) });
    const execution = trace.spans.find((span) => span.type === "tool-execution");
    expect(execution?.attributes["gen_ai.tool.call.result"]).toBe(`${"y".repeat(100)}\n…[truncated 39900 of 40000 characters]`);
    const next = trace.spans.filter((span) => span.type === "model-call")[1];
    const recorded = next?.attributes["minagent.request.new_messages"] as string;
    expect(recorded.startsWith('[{"role":"tool","parts":[{"type":"tool_call_response","id":"c0","response":"yyy')).toBe(true);
    expect(recorded).toMatch(/\n…\[truncated \d+ of 400\d\d characters\]$/);
  });

  it("hides a key that starts inside the kept part of a long text, and marked secrets near the cut", () => {
    const scrubber = createSecretScrubber({ maxPayloadLength: 50, secrets: ["customer-secret-value"] });
    const text = `${"a ".repeat(20)}${anthropicKey} ${"b".repeat(100_000)}`;
    expect(scrubber.text(text)).toBe(`${"a ".repeat(20)}[redacted]\n…[truncated 100001 of 100051 characters]`);
    const marked = `${"c".repeat(45)}customer-secret-value${"d".repeat(10_000)}`;
    expect(scrubber.payload(marked)).toBe(`${"c".repeat(45)}[reda\n…[truncated 10005 of 10055 characters]`);
  });

  it("hides secret keys in large objects, writing only the start", () => {
    const scrubber = createSecretScrubber({ maxPayloadLength: 60 });
    const value = { headers: { Authorization: "Bearer abc", note: "x".repeat(50_000) }, list: [1, 2, 3] };
    const result = scrubber.payload(value);
    expect(result.startsWith(`{"headers":{"Authorization":"${redacted}","note":"xxx`)).toBe(true);
    expect(result).toMatch(/\n…\[truncated \d+ of 500\d\d characters\]$/);
    expect(result).not.toContain("abc");
  });

  it("stringifyBounded writes JSON.stringify's text up to the budget and measures the rest", () => {
    const value = { a: [1, "two", null, undefined, true], b: { c: 'd"e\n' }, f: undefined, g: () => 1, h: new Date(0) };
    const whole = JSON.stringify(value);
    expect(stringifyBounded(value, 1_000, new Set(), redacted)).toEqual({ text: whole, length: whole.length });
    const cut = stringifyBounded({ long: "z".repeat(10_000), after: 1 }, 20, new Set(), redacted);
    expect(cut.text.startsWith('{"long":"zzzzzzzzzzz')).toBe(true);
    expect(cut.text.length).toBeLessThan(40);
    expect(cut.length).toBe(JSON.stringify({ long: "z".repeat(10_000), after: 1 }).length);
    const cyclic: Record<string, unknown> = { name: "loop" };
    cyclic.self = cyclic;
    expect(stringifyBounded(cyclic, 100, new Set(), redacted).text).toBe('{"name":"loop","self":"[Circular]"}');
  });

  it("measureJson stops counting past its limit", () => {
    expect(measureJson({ a: "bc" }, 100)).toBeLessThanOrEqual(100);
    expect(measureJson({ a: "b".repeat(1_000) }, 100)).toBe(Number.POSITIVE_INFINITY);
  });
});

describe("writeGenAiMessages", () => {
  const messages: Message[] = [
    { role: "system", content: "be brief" },
    { role: "user", content: 'say "hi"\n' },
    {
      role: "assistant",
      content: "",
      reasoning: [{ text: "think" }, { text: "" }],
      toolCalls: [{ id: "c1", name: "weather", arguments: { city: "北京", nested: { list: [1, null] } } }],
    },
    { role: "tool", content: "晴", toolCallId: "c1", isError: true },
    { role: "assistant", content: "done" },
  ];
  const embed = (value: unknown) => JSON.stringify(value);

  it("writes exactly JSON.stringify(toGenAiMessages(…)), with and without a stop reason", () => {
    expect(writeGenAiMessages(messages, undefined, embed, 10_000)).toBe(JSON.stringify(toGenAiMessages(messages)));
    expect(writeGenAiMessages(messages.slice(2, 3), "tool_use", embed, 10_000)).toBe(
      JSON.stringify(toGenAiMessages(messages.slice(2, 3), "tool_use")),
    );
    expect(writeGenAiMessages([], undefined, embed, 10)).toBe("[]");
  });

  it("gives up past the budget (the scrubber then writes only what it keeps)", () => {
    expect(writeGenAiMessages([{ role: "user", content: "x".repeat(1_000) }], undefined, embed, 100)).toBeUndefined();
    expect(writeGenAiMessages(messages, undefined, () => undefined, 10_000)).toBeUndefined();
  });
});

describe("images and documents in traces", () => {
  it("are recorded by kind, type, size and SHA-256, never by their bytes", async () => {
    const data = Buffer.from("not really a png, but bytes").toString("base64");
    const messages: Message[] = [
      { role: "user", content: "Look", parts: [{ type: "image", mediaType: "image/png", data }] },
      { role: "user", content: "And this", parts: [{ type: "image", url: "https://example.com/a.png" }] },
    ];
    const { createHash } = await import("node:crypto");
    const sha256 = createHash("sha256").update(Buffer.from(data, "base64")).digest("hex");
    const expected = [
      {
        role: "user",
        parts: [
          { type: "text", content: "Look" },
          { type: "blob", modality: "image", mime_type: "image/png", size_bytes: 27, sha256 },
        ],
      },
      {
        role: "user",
        parts: [
          { type: "text", content: "And this" },
          { type: "blob", modality: "image", mime_type: "image/*", uri: "https://example.com/a.png" },
        ],
      },
    ];
    expect(toGenAiMessages(messages, undefined, describePartWithDigest)).toEqual(expected);
    const written = writeGenAiMessages(messages, undefined, (value) => JSON.stringify(value), 10_000, describePartWithDigest) ?? "";
    expect(JSON.parse(written)).toEqual(expected);
    expect(written).not.toContain(data);
  });
});
