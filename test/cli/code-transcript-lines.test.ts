import { describe, expect, test } from "vitest";
import { RunSteps } from "../../src/cli/code/interactive/run-steps.js";
import { createStyle } from "../../src/cli/code/interactive/terminal.js";
import { stripAnsi } from "../../src/cli/code/interactive/text-width.js";
import { transcriptLines, wrapText } from "../../src/cli/code/interactive/transcript-lines.js";
import type { AgentEvent } from "../../src/core/events.js";
import type { Message } from "../../src/core/types.js";

// The transcript's lines (Ctrl-O) without a terminal: what is drawn, nested and wrapped; and the steps the session
// reads from a turn's events.

const plain = createStyle(false);
const settings = (columns: number, children: Record<string, Message[]> = {}) => ({
  style: plain,
  columns,
  root: "/work",
  childOf: (id: string) => children[id],
});

const conversation: Message[] = [
  { role: "user", content: "check the build" },
  {
    role: "assistant",
    content: "Running it.",
    toolCalls: [
      { id: "b1", name: "Bash", arguments: { command: "npm run build" } },
      { id: "a1", name: "Agent", arguments: { description: "look around", prompt: "List src." } },
      { id: "r1", name: "Read", arguments: { file_path: "/work/a.ts" } },
    ],
  },
  { role: "tool", toolCallId: "b1", content: "compiled\n\nExit code: 0" },
  { role: "tool", toolCallId: "a1", content: "src has two files." },
];

describe("transcriptLines", () => {
  test("prompts, text, every call with its arguments and whole result, a subagent's steps under its call, a call still running", () => {
    const child: Message[] = [
      { role: "user", content: "List src." },
      { role: "assistant", content: "", toolCalls: [{ id: "g1", name: "Glob", arguments: { pattern: "src/*" } }] },
      { role: "tool", toolCallId: "g1", content: "src/a.ts\nsrc/b.ts" },
      { role: "assistant", content: "src has two files." },
    ];
    expect(transcriptLines(conversation, settings(80, { a1: child })).join("\n")).toBe(
      [
        "> check the build",
        "",
        "Running it.",
        "",
        "✓ Bash(npm run build)",
        "  │ command: npm run build",
        "  ⎿ compiled",
        "",
        "    Exit code: 0",
        "",
        "✓ Agent(look around)",
        "  │ description: look around",
        "  │ prompt: List src.",
        "    ✓ Glob(src/*)",
        "      │ pattern: src/*",
        "      ⎿ src/a.ts",
        "        src/b.ts",
        "",
        "    src has two files.",
        "",
        "  ⎿ src has two files.",
        "",
        "⋯ Read(a.ts)",
        "  │ file_path: /work/a.ts",
        "  ⎿ running…",
      ].join("\n"),
    );
  });

  test("on a narrow screen every line fits, long outputs wrapped rather than cut; tabs and escapes cannot move the cursor", () => {
    const long = `${"x".repeat(50)}\tend\x1b[2J`;
    const lines = transcriptLines(
      [
        { role: "user", content: "go" },
        { role: "assistant", content: "", toolCalls: [{ id: "b1", name: "Bash", arguments: { command: "cat big" } }] },
        { role: "tool", toolCallId: "b1", content: long },
      ],
      settings(20),
    );
    for (const line of lines) expect(line.length).toBeLessThan(20);
    expect(lines.join("")).not.toContain("\x1b");
    expect(lines.join("").replace(/[ ⎿│]/g, "")).toContain(`Bash(catbig)command:catbig${"x".repeat(50)}end[2J`);
  });

  test("colour only paints: the same text with and without it", () => {
    const colour = transcriptLines(conversation, { ...settings(60), style: createStyle(true) });
    expect(colour.map(stripAnsi)).toEqual(transcriptLines(conversation, settings(60)));
    expect(colour.join("\n")).toContain("\x1b[");
  });

  test("wrapText breaks at the width, with its own first and later prefixes", () => {
    expect(wrapText("abcdefgh\nij", 6, "> ", "  ")).toEqual(["> abcd", "  efgh", "  ij"]);
    expect(wrapText("日本語です", 6, "", "")).toEqual(["日本語", "です"]);
  });
});

describe("RunSteps", () => {
  test("the running turn and a subagent's run, as their events told them; what the engine appends later is not counted twice", () => {
    const steps = new RunSteps();
    const sent: Message[] = [{ role: "user", content: "go" }];
    const childSent: Message[] = [{ role: "user", content: "List src." }];
    const agentCall = { id: "a1", name: "Agent", arguments: { prompt: "List src." } };
    const model = { provider: "fake", modelId: "fake" };
    const events: AgentEvent[] = [
      { type: "run-start", runId: "top", input: "go", messages: sent, model },
      { type: "model-call-start", runId: "top", turn: 1, messages: sent, tools: [] },
      {
        type: "model-call-end",
        runId: "top",
        turn: 1,
        response: { message: { role: "assistant", content: "", toolCalls: [agentCall] }, stopReason: "tool_use" },
      },
      { type: "run-start", runId: "child", parentRunId: "top", parentToolCallId: "a1", input: "List src.", messages: childSent, model },
      { type: "model-call-start", runId: "child", turn: 1, messages: childSent, tools: [] },
      {
        type: "model-call-end",
        runId: "child",
        turn: 1,
        response: { message: { role: "assistant", content: "Two files." }, stopReason: "end_turn" },
      },
    ];
    for (const event of events) steps.listener(event);
    // The engine appends the answer to the array it sent.
    childSent.push({ role: "assistant", content: "Two files." });
    expect(steps.childOf("a1")).toEqual([
      { role: "user", content: "List src." },
      { role: "assistant", content: "Two files." },
    ]);
    expect(steps.childOf("b9")).toBeUndefined();
    steps.listener({
      type: "tool-call-end",
      runId: "top",
      turn: 1,
      toolCall: agentCall,
      result: { content: "Two files.", isError: false },
    });
    expect(steps.currentTurn?.map((message) => message.role)).toEqual(["user", "assistant", "tool"]);
  });
});
