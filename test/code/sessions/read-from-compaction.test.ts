import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { readSession, readWhole } from "../../../src/code/sessions/read-session.js";
import type { Message } from "../../../src/core/types.js";

// readSession reads a long session from its last compaction and replays the lines before it only when a count or sum
// is asked for. Whatever the file holds, what it returns must be what a replay of every line returns.

const header = JSON.stringify({ type: "session", version: 1, sessionId: "s1", cwd: "/w", createdAt: "2026-12-01T00:00:00.000Z" });

/** Lines of a session: turns with calls answered in any order, compactions of any keep, and the other line kinds. */
const sessionLines = fc
  .array(
    fc.oneof(
      fc.record({ kind: fc.constant("prompt" as const), text: fc.constantFrom("Fix it", "[Request interrupted by user]", "Go on") }),
      fc.record({ kind: fc.constant("turn" as const), calls: fc.integer({ min: 0, max: 3 }), order: fc.array(fc.nat(), { maxLength: 3 }) }),
      fc.record({
        kind: fc.constant("compaction" as const),
        keep: fc.integer({ min: 0, max: 6 }),
        size: fc.integer({ min: 0, max: 3 }),
        toolsOnly: fc.boolean(),
        at: fc.boolean(),
      }),
      // A result written late, for a call of any earlier turn (a call answered after a resume).
      fc.record({ kind: fc.constant("late" as const), back: fc.integer({ min: 1, max: 6 }) }),
      fc.record({
        kind: fc.constant("other" as const),
        which: fc.constantFrom("model", "mode", "name", "bad-name", "run-end", "damaged", "pending", "checkpoint"),
      }),
    ),
    { maxLength: 40 },
  )
  .chain((steps) => fc.tuple(fc.constant(steps), fc.boolean(), fc.boolean()));

function buildSession([steps, tornEnd, system]: [
  {
    kind: string;
    text?: string;
    calls?: number;
    order?: number[];
    back?: number;
    keep?: number;
    size?: number;
    toolsOnly?: boolean;
    at?: boolean;
    which?: string;
  }[],
  boolean,
  boolean,
]): string {
  const lines: string[] = [header];
  const at = (n: number) => `2026-12-01T00:00:${String(n % 60).padStart(2, "0")}.000Z`;
  const line = (value: object) => lines.push(JSON.stringify(value));
  if (system) line({ type: "message", message: { role: "system", content: "You are minagent." }, at: at(0) });
  let call = 0;
  steps.forEach((step, n) => {
    const usage = { inputTokens: n + 1, outputTokens: 2 };
    if (step.kind === "prompt") line({ type: "message", message: { role: "user", content: step.text }, at: at(n) });
    else if (step.kind === "turn") {
      const ids = Array.from({ length: step.calls ?? 0 }, () => `call_${call++}`);
      const message: Message = { role: "assistant", content: ids.length ? "" : `answer ${n}` };
      if (ids.length) message.toolCalls = ids.map((id) => ({ id, name: "Bash", arguments: { command: "ls" } }));
      line({ type: "message", message, at: at(n), usage });
      // Results finish in any order; some are left unanswered (a crash), some written out of call order.
      const order = [...ids].sort((a, b) => ((step.order ?? [])[ids.indexOf(a)] ?? 0) - ((step.order ?? [])[ids.indexOf(b)] ?? 0));
      for (const id of order.slice(0, Math.max(0, order.length - ((step.order?.length ?? 0) % 2))))
        line({ type: "message", message: { role: "tool", content: `out ${id}`, toolCallId: id }, event: "tool-call-end", at: at(n) });
    } else if (step.kind === "late") {
      const id = `call_${call - (step.back ?? 1)}`;
      line({ type: "message", message: { role: "tool", content: `late ${id}`, toolCallId: id }, event: "tool-call-end", at: at(n) });
    } else if (step.kind === "compaction") {
      const messages: Message[] = Array.from({ length: step.size ?? 0 }, (_, index) =>
        step.toolsOnly
          ? { role: "tool", content: `kept ${index}`, toolCallId: `call_${call - 1 - index}` }
          : { role: index % 2 ? "assistant" : "user", content: `summary ${n}.${index}` },
      );
      line({ type: "compaction", reason: "prepare-turn", keep: step.keep, messages, ...(step.at && { at: at(n) }) });
    } else if (step.which === "model") line({ type: "model", model: { provider: "anthropic", id: `m${n}` }, at: at(n) });
    else if (step.which === "mode") line({ type: "permission-mode", mode: n % 2 ? "plan" : "default", at: at(n) });
    else if (step.which === "name") line({ type: "name", name: `name ${n}`, at: at(n) });
    else if (step.which === "bad-name") line({ type: "name", name: 7, at: at(n) });
    else if (step.which === "run-end") line({ type: "run-end", status: n % 2 ? "completed" : "interrupted", at: at(n) });
    else if (step.which === "damaged") lines.push('{"type":"model","model":{"provider":"anth');
    else if (step.which === "pending")
      line({ type: "pending", toolCall: { id: `call_${call - 1}`, name: "Bash", arguments: {} }, reason: "ask", at: at(n) });
    else line({ type: "checkpoint", checkpointId: `cp${n}`, at: at(n) });
  });
  const text = `${lines.join("\n")}\n`;
  return tornEnd ? `${text}{"type":"message","mess` : text;
}

/** Every field, read as a caller reads them (the counts through their getters), as plain JSON. */
const plain = (value: object) => JSON.parse(JSON.stringify(value));

describe("reading a session from its last compaction", () => {
  it("gives what replaying every line gives, for any mix of turns, compactions and other lines", () => {
    let fromCompaction = 0;
    fc.assert(
      fc.property(sessionLines, (generated) => {
        const text = buildSession(generated);
        const loaded = readSession(text, "s.jsonl");
        // Read from the compaction, its counts are getters: most generated files must take that way, or this tests nothing.
        if (Object.getOwnPropertyDescriptor(loaded, "usage")?.get) fromCompaction++;
        expect(plain(loaded)).toEqual(plain(readWhole(text, "s.jsonl")));
      }),
      { numRuns: 2_000 },
    );
    expect(fromCompaction).toBeGreaterThan(300);
  });

  it("replays every line when an earlier compaction may have reopened a turn among the kept messages", () => {
    // After [prompt, call a and b, b's result] the answer closes the turn; a compaction keeping those three and
    // adding only a result reopens it, and a's late result then goes before b's: the kept messages changed.
    const at = "2026-12-01T00:00:00.000Z";
    const calls = [
      { id: "a", name: "Bash", arguments: {} },
      { id: "b", name: "Bash", arguments: {} },
    ];
    const text = [
      header,
      { type: "message", message: { role: "user", content: "go" }, at },
      { type: "message", message: { role: "assistant", content: "", toolCalls: calls }, at },
      { type: "message", message: { role: "tool", content: "out b", toolCallId: "b" }, event: "tool-call-end", at },
      { type: "message", message: { role: "assistant", content: "done" }, at },
      { type: "compaction", reason: "history", keep: 3, messages: [{ role: "tool", content: "kept", toolCallId: "b" }], at },
      { type: "message", message: { role: "tool", content: "out a", toolCallId: "a" }, event: "tool-call-end", at },
      { type: "compaction", reason: "prepare-turn", keep: 3, messages: [{ role: "user", content: "summary" }], at },
    ]
      .map((line) => (typeof line === "string" ? line : JSON.stringify(line)))
      .join("\n");
    const loaded = readSession(`${text}\n`, "s.jsonl");
    expect(loaded.messages.map((message) => message.content)).toEqual(["go", "", "out a", "summary"]);
    expect(plain(loaded)).toEqual(plain(readWhole(`${text}\n`, "s.jsonl")));
  });

  it("parses no line between the head and the last compaction until a count is asked for", () => {
    // A damaged line there is a problem of the whole replay: it only shows when asked.
    const text = [
      header,
      JSON.stringify({ type: "message", message: { role: "system", content: "sys" }, at: "2026-12-01T00:00:00.000Z" }),
      JSON.stringify({
        type: "message",
        message: { role: "user", content: "first" },
        at: "2026-12-01T00:00:01.000Z",
        usage: { inputTokens: 5, outputTokens: 1 },
      }),
      '{"type":"message","mess',
      JSON.stringify({ type: "name", name: "the parser", at: "2026-12-01T00:00:02.000Z" }),
      JSON.stringify({
        type: "compaction",
        reason: "prepare-turn",
        keep: 1,
        messages: [{ role: "user", content: "summary" }],
        at: "2026-12-01T00:00:03.000Z",
      }),
      JSON.stringify({ type: "message", message: { role: "user", content: "next" }, at: "2026-12-01T00:00:04.000Z" }),
      "",
    ].join("\n");
    const loaded = readSession(text, "s.jsonl");
    expect(Object.getOwnPropertyDescriptor(loaded, "problems")?.get).toBeDefined();
    expect(loaded.messages.map((message) => message.content)).toEqual(["sys", "summary", "next"]);
    expect(loaded.name).toBe("the parser");
    expect(loaded.updatedAt).toBe("2026-12-01T00:00:04.000Z");
    expect(loaded.firstPrompt).toBe("first");
    expect(loaded.prompts).toBe(2);
    expect(loaded.usage).toMatchObject({ inputTokens: 5, outputTokens: 1 });
    expect(loaded.problems).toEqual([{ line: 4, reason: "not JSON: a line torn by a crash, or a damaged file" }]);
  });
});
