import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { clearOldToolResults, isClearedResult } from "../../../src/code/compaction/clear-tool-results.js";
import { stateMessage, withStateMessage } from "../../../src/code/compaction/compaction-messages.js";
import {
  contextWindowOf,
  createCompactor,
  defaultContextWindow,
  describePermissions,
  describeTodos,
} from "../../../src/code/compaction/index.js";
import { splitConversation, summaryPrompt } from "../../../src/code/compaction/summarize-conversation.js";
import { CodingAgent, createTodoStore } from "../../../src/code/index.js";
import type { AgentEvent } from "../../../src/core/events.js";
import type { Message } from "../../../src/core/types.js";
import { FakeModel, UsageError } from "../../../src/index.js";
import { reply, toolCall } from "../../../src/testing/index.js";
import { assertAnswered } from "../sessions/helpers.js";
import { codeText, personMessages, summarizer } from "./session-script.js";

const user = (content: string): Message => ({ role: "user", content });
const call = (id: string, name = "Read", args: Record<string, unknown> = { file_path: `${id}.js` }): Message => ({
  role: "assistant",
  content: `calling ${id}`,
  toolCalls: [{ id, name, arguments: args }],
});
const result = (id: string, length: number): Message => ({ role: "tool", content: codeText(id.length, length), toolCallId: id });

describe("contextWindowOf", () => {
  it("knows Claude, GPT, Gemini and common local models, by id prefix, dated or routed", () => {
    expect(contextWindowOf("claude-sonnet-4-5-20250929")).toBe(200_000);
    expect(contextWindowOf("anthropic/claude-opus-4-1")).toBe(200_000);
    expect(contextWindowOf("claude-3-5-haiku-latest")).toBe(200_000);
    expect(contextWindowOf("gpt-4o-mini")).toBe(128_000);
    expect(contextWindowOf("gpt-4.1-mini-2025-04-14")).toBe(1_047_576);
    expect(contextWindowOf("gpt-4")).toBe(8_192);
    expect(contextWindowOf("gpt-5-mini")).toBe(272_000);
    expect(contextWindowOf("o3-mini")).toBe(200_000);
    expect(contextWindowOf("o1-mini")).toBe(128_000);
    expect(contextWindowOf("gemini-2.5-pro")).toBe(1_048_576);
    expect(contextWindowOf("qwen2.5-coder:7b")).toBe(32_768);
    expect(contextWindowOf("llama3.1:8b")).toBe(131_072);
    expect(contextWindowOf("llama3:8b")).toBe(8_192);
    expect(contextWindowOf("Qwen3-Coder:30b")).toBe(262_144);
  });

  it("an unknown model gets the conservative default; given windows come first", () => {
    expect(contextWindowOf("fake-model")).toBe(defaultContextWindow);
    expect(contextWindowOf(undefined)).toBe(defaultContextWindow);
    expect(contextWindowOf("my-model-7b", { "my-model": 65_536 })).toBe(65_536);
    expect(contextWindowOf("claude-sonnet-4-5", { claude: 1_000_000 })).toBe(1_000_000);
    expect(createCompactor({ model: new FakeModel([]) }).contextWindow).toBe(defaultContextWindow);
    expect(createCompactor({ model: new FakeModel([]), contextWindow: 64_000 }).contextWindow).toBe(64_000);
  });
});

describe("clearOldToolResults (stage 1)", () => {
  const conversation: Message[] = [
    { role: "system", content: "sys" },
    user("go"),
    call("a"),
    result("a", 5_000),
    call("b", "Bash", { command: `echo ${"x".repeat(400)}` }),
    result("b", 5_000),
    call("c"),
    { role: "tool", content: "small", toolCallId: "c" },
    call("d"),
    result("d", 5_000),
  ];

  it("keeps the most recent results and the small ones; the others name the call and the size", () => {
    const cleared = clearOldToolResults(conversation, { keep: 2, minLength: 500 }) ?? [];
    expect(cleared).toHaveLength(conversation.length);
    expect(cleared[3]?.content).toBe(
      '[Result cleared to save context] Read({"file_path":"a.js"}) returned 5,000 characters. Call it again if you need them.',
    );
    expect(cleared[5]?.content).toMatch(/^\[Result cleared to save context\] Bash\(\{"command":"echo x{280,}…\) returned 5,000 characters/);
    expect(cleared[5]?.content.length).toBeLessThan(450);
    expect(cleared.slice(6)).toEqual(conversation.slice(6));
    expect(cleared.filter((message, index) => message !== conversation[index])).toHaveLength(2);
    expect(cleared[3]?.toolCallId).toBe("a");
    // The calls are not touched, and the input is not changed.
    expect(cleared[2]).toBe(conversation[2]);
    expect(conversation[3]?.content.length).toBe(5_000);
  });

  it("never clears the results the model has not read yet (the last turn's), however many", () => {
    const fanOut: Message[] = [
      user("go"),
      call("a"),
      result("a", 5_000),
      {
        role: "assistant",
        content: "five at once",
        toolCalls: ["b", "c", "d", "e", "f"].map((id) => ({ id, name: "Read", arguments: { file_path: `${id}.js` } })),
      },
      ...["b", "c", "d", "e", "f"].map((id) => result(id, 5_000)),
    ];
    const cleared = clearOldToolResults(fanOut, { keep: 2, minLength: 500 }) ?? [];
    expect(cleared.map((message) => isClearedResult(message))).toEqual([false, false, true, false, false, false, false, false, false]);
  });

  it("clears nothing twice, and says when there is nothing to clear", () => {
    const once = clearOldToolResults(conversation, { keep: 0, minLength: 500 }) ?? [];
    // a and b; d's result follows the last assistant message: the model has not read it yet.
    expect(once.filter(isClearedResult).map((message) => message.toolCallId)).toEqual(["a", "b"]);
    expect(clearOldToolResults(once, { keep: 0, minLength: 10 })).toBeUndefined();
    expect(clearOldToolResults(conversation, { keep: 4, minLength: 500 })).toBeUndefined();
  });
});

describe("splitConversation (stage 2's cut)", () => {
  const estimate = (messages: readonly Message[]) => messages.reduce((total, message) => total + Math.ceil(message.content.length / 4), 0);

  it("keeps the recent turns that fit, never separating a call from its results; the older part is summarised", () => {
    const messages: Message[] = [
      { role: "system", content: "sys" },
      user("first"),
      call("a"),
      result("a", 4_000),
      user("second"),
      {
        role: "assistant",
        content: "two calls",
        toolCalls: [
          { id: "b", name: "Read", arguments: {} },
          { id: "c", name: "Read", arguments: {} },
        ],
      },
      result("b", 4_000),
      result("c", 4_000),
    ];
    for (const budget of [0, 1_000, 2_500, 3_000]) {
      const split = splitConversation(messages, budget, estimate);
      expect(split?.system).toEqual([messages[0]]);
      expect(split?.recent[0]?.role).not.toBe("tool");
      expect(split?.older.length).toBeGreaterThan(0);
      assertAnswered(split?.recent ?? []);
      assertAnswered(split?.older ?? []);
    }
    // The last turn is kept whatever its size; with room, the prompt before it too.
    expect(splitConversation(messages, 0, estimate)?.recent.map((message) => message.content.slice(0, 9))).toEqual([
      "two calls",
      messages[6]?.content.slice(0, 9),
      messages[7]?.content.slice(0, 9),
    ]);
    expect(splitConversation(messages, 3_000, estimate)?.recent[0]).toEqual(user("second"));
  });

  it("undefined when the older part would hold only the person's messages and an earlier summary", () => {
    const compacted = [
      { role: "system" as const, content: "sys" },
      user("<compaction-state>\nstate\n</compaction-state>"),
      user("<compaction-summary>\nsummary\n</compaction-summary>"),
      user("first"),
      user("second"),
      call("a"),
      result("a", 100),
    ];
    expect(splitConversation(compacted, 100_000, estimate)).toBeUndefined();
    // One more turn: it can be summarised, and the state message is in neither part.
    const split = splitConversation([...compacted, call("b"), result("b", 100)], 0, estimate);
    expect(split?.older.map((message) => message.content.slice(0, 20))).toEqual([
      "<compaction-summary>",
      "first",
      "second",
      "calling a",
      codeText(1, 20),
    ]);
    expect(split?.recent.map((message) => message.role)).toEqual(["assistant", "tool"]);
  });
});

describe("the summary prompt", () => {
  it("asks for the six sections, carries the focus and the todo list, and fits the summariser's window", () => {
    const older = [
      user("Fix the bug"),
      ...Array.from({ length: 40 }, (_, index) => [call(`r${index}`), result(`r${index}`, 50_000)]).flat(),
    ];
    const prompt = summaryPrompt(
      { system: [], older, recent: [call("last"), result("last", 50_000)] },
      { contextWindow: 32_768, focus: "the parser", state: { todos: "[>] Fix the parser" } },
    );
    expect(prompt.length).toBeLessThan(32_768 * 0.6 * 4);
    expect(prompt).toMatch(
      /## Task[\s\S]*## Decisions[\s\S]*## Files touched[\s\S]*## Errors and fixes[\s\S]*## Pending[\s\S]*## Current step/,
    );
    expect(prompt).toContain("The user asked that the summary focus on: the parser");
    expect(prompt).toContain("<todo-list>\n[>] Fix the parser\n</todo-list>");
    expect(prompt).toContain("[user]\nFix the bug");
    expect(prompt).toMatch(/characters left out/);
    expect(prompt).toContain('→ Read({"file_path":"last.js"})');
  });
});

describe("the state message", () => {
  it("carries the pinned state verbatim, the memory only when the system prompt lacks it; it replaces an earlier one", () => {
    const state = { memory: "Use tabs.", permissions: "Permission mode: plan", todos: "[ ] Write docs" };
    const message = stateMessage(state, [{ role: "system", content: "You code." }]);
    expect(message.content).toBe(
      [
        "<compaction-state>",
        "The conversation was compacted to fit the context window. Results of older tool calls were replaced by a note naming the call: call the tool again if you need its output. The state below is current as of the compaction.",
        "",
        "Permissions:",
        "Permission mode: plan",
        "",
        "Todo list:",
        "[ ] Write docs",
        "",
        "Project memory (instructions to follow):",
        "Use tabs.",
        "</compaction-state>",
      ].join("\n"),
    );
    expect(stateMessage(state, [{ role: "system", content: "You code.\nUse tabs." }]).content).not.toContain("Project memory");
    const once = withStateMessage([{ role: "system", content: "sys" }, user("hi")], message);
    const twice = withStateMessage(once, stateMessage({}, []));
    expect(twice.map((entry) => entry.content.slice(0, 18))).toEqual(["sys", "<compaction-state>", "hi"]);
    expect(twice[1]?.content).not.toContain("Permissions");
  });

  it("describePermissions and describeTodos", () => {
    const rule = (text: string) => ({ text });
    const settings = { rules: { allow: [rule("Bash(npm test)"), rule("Edit(src/**)")], ask: [], deny: [rule("Read(./.env)")] } };
    expect(describePermissions({ mode: "acceptEdits", settings } as unknown as Parameters<typeof describePermissions>[0])).toBe(
      "Permission mode: acceptEdits\nRules — deny: Read(./.env); ask: none; allow: Bash(npm test), Edit(src/**)",
    );
    expect(describeTodos([])).toBeUndefined();
    expect(
      describeTodos([
        { content: "Read", status: "completed", activeForm: "Reading" },
        { content: "Fix", status: "in_progress", activeForm: "Fixing" },
        { content: "Test", status: "pending", activeForm: "Testing" },
      ]),
    ).toBe("[x] Read\n[>] Fix\n[ ] Test");
  });
});

describe("createCompactor options", () => {
  it("refuses what cannot work, with what to give", () => {
    const model = new FakeModel([]);
    expect(() => createCompactor({} as never)).toThrow(UsageError);
    expect(() => createCompactor({ model, threshold: 1.5 })).toThrow(/threshold is a share of the window/);
    expect(() => createCompactor({ model, threshold: 0.5, target: 0.6 })).toThrow(/target must be above 0 and below threshold/);
    expect(() => createCompactor({ model, keepToolResults: -1 })).toThrow(/keepToolResults/);
    expect(() => createCompactor({ model, contextWindow: 10 })).toThrow(/contextWindow/);
    expect(() => createCompactor({ model, summaryModel: {} as never })).toThrow(/summaryModel/);
  });
});

describe("with a CodingAgent, through its existing options", () => {
  it("compacts a session of big Reads; the permission mode and todo list come from the agent", async () => {
    const workspace = mkdtempSync(join(tmpdir(), "minagent-compaction-"));
    try {
      for (let index = 0; index < 8; index++) writeFileSync(join(workspace, `file${index}.js`), `${codeText(index, 20_000)}\n`);
      const model = new FakeModel([
        reply(
          "Planning.",
          toolCall("TodoWrite", { todos: [{ content: "Read every file", status: "in_progress", activeForm: "Reading every file" }] }, "t"),
        ),
        ...Array.from({ length: 8 }, (_, index) =>
          reply(`Reading ${index}.`, toolCall("Read", { file_path: `file${index}.js` }, `r${index}`)),
        ),
        "All read.",
      ]);
      const todos = createTodoStore();
      let agent: CodingAgent | undefined;
      const compactor = createCompactor({
        model,
        contextWindow: 24_000,
        summaryModel: summarizer(),
        permissions: () => (agent ? describePermissions(agent.permissions) : undefined),
        todos: () => describeTodos(todos.todos),
      });
      const events: AgentEvent[] = [];
      agent = await CodingAgent.create(model, {
        workspace,
        home: workspace,
        settingsFiles: [],
        mode: "acceptEdits",
        rules: { deny: ["Read(./.env)"] },
        todos,
        prepareTurn: compactor,
        onEvent: (event) => {
          compactor.listen(event);
          if (event.type === "compaction") events.push(event);
        },
      });
      const result = await agent.run("Read every file and tell me what they hold.");
      expect(result.status).toBe("completed");
      expect(events.map((event) => event.type === "compaction" && event.stage)).toContain("summary");
      const last = model.requests.at(-1)?.messages ?? [];
      expect(last[1]?.content).toContain("Permission mode: acceptEdits\nRules — deny: Read(./.env); ask: none; allow: none");
      expect(last[1]?.content).toContain("Todo list:\n[>] Read every file");
      expect(personMessages(last)).toEqual(["Read every file and tell me what they hold."]);
      assertAnswered(last);
    } finally {
      rmSync(workspace, { recursive: true, force: true });
    }
  });
});
