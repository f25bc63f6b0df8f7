import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test, vi } from "vitest";
import { runInteractiveSession } from "../../src/cli/code/interactive/index.js";
import type { CodeOptions, CodeSession, CodeSessionContext, CodeSessionStore } from "../../src/cli/code/session-context.js";
import { CodingAgent } from "../../src/code/coding-agent.js";
import type { AgentEvent } from "../../src/core/events.js";
import type { Message } from "../../src/core/types.js";
import { FakeModel, type FakeModelScriptItem } from "../../src/models/fake-model.js";
import { reply, toolCall } from "../../src/testing/script.js";
import { type FakeTerminal, fakeTerminal, interactiveOptions, until } from "./interactive-harness.js";

// The interactive session in process: runInteractiveSession with a hand-made context (a scripted model, sessions in
// memory) on a fake terminal, keys written to its input. The built bin under tmux is code-interactive-tmux.test.ts.

function memorySession(id: string, history: Message[] = []): CodeSession & { events: AgentEvent[]; flushes: number } {
  const session = {
    id,
    file: `/sessions/${id}.jsonl`,
    history,
    events: [] as AgentEvent[],
    flushes: 0,
    record: (event: AgentEvent) => void session.events.push(event),
    flush: async () => void session.flushes++,
    markCheckpoint: () => {},
    conversationBefore: async () => undefined,
    rewindConversation: () => {},
    name: undefined,
    rename: () => {},
    addMessages: () => {},
  };
  return session;
}

type Setup = {
  context: CodeSessionContext;
  terminal: FakeTerminal;
  model: FakeModel;
  session: ReturnType<typeof memorySession>;
  created: ReturnType<typeof memorySession>[];
  stop: AbortController;
};

let workspace: string;
beforeEach(async () => {
  workspace = await mkdtemp(join(tmpdir(), "minagent-interactive-"));
});
// Every agent a test made is closed (its sandbox's namespace and folders) before its workspace goes.
const agents: CodingAgent[] = [];
afterEach(async () => {
  await Promise.all(agents.splice(0).map((agent) => agent.close()));
  await rm(workspace, { recursive: true, force: true });
});

function setUp(script: FakeModelScriptItem[], options: Partial<CodeOptions> = {}, saved: CodeSession[] = []): Setup {
  const terminal = fakeTerminal();
  const model = new FakeModel(script);
  const session = memorySession("session-1");
  const created: ReturnType<typeof memorySession>[] = [];
  const stop = new AbortController();
  const sessions: CodeSessionStore = {
    create: async () => {
      const next = memorySession(`session-${created.length + 2}`);
      created.push(next);
      return next;
    },
    open: async (id) => saved.find((candidate) => candidate.id === id) ?? Promise.reject(new Error(`no session ${id}`)),
    list: async () =>
      saved.map((candidate) => ({
        id: candidate.id,
        file: candidate.file,
        updatedAt: new Date(Date.now() - 3 * 60_000).toISOString(),
        prompts: candidate.history.filter((message) => message.role === "user").length,
        turns: candidate.history.filter((message) => message.role === "assistant").length,
        firstPrompt: candidate.history[0]?.content,
        name: undefined,
        title: candidate.history[0]?.content,
      })),
    remove: async () => false,
  };
  const context: CodeSessionContext = {
    io: { stdout: () => {}, stderr: () => {}, readLine: async () => undefined, env: {} },
    terminal,
    model: { spec: "anthropic:claude-haiku-4-5", id: "claude-haiku-4-5", instance: model },
    options: interactiveOptions(workspace, options),
    createAgent: async (overrides) => {
      const agent = await CodingAgent.create(model, { workspace, settingsFiles: [], rules: { allow: ["Bash(sleep 20)"] }, ...overrides });
      agents.push(agent);
      return agent;
    },
    session,
    sessions,
    spending: { usage: { inputTokens: 0, outputTokens: 0 }, costUsd: 0, isBudgetExceeded: () => false },
    signal: stop.signal,
  };
  return { context, terminal, model, session, created, stop };
}

describe("runInteractiveSession", () => {
  test("answers a prompt, records the run into the session, and /exit leaves with 0 after flushing", async () => {
    const { context, terminal, model, session } = setUp(["Hello from the model."]);
    const exit = runInteractiveSession(context);
    await until(terminal, "/help for commands");
    terminal.press("hi there\r");
    await until(terminal, "Hello from the model.");
    terminal.press("/exit\r");
    expect(await exit).toBe(0);
    expect(session.flushes).toBeGreaterThan(0);
    expect(session.events.map((event) => event.type)).toContain("run-end");
    expect(model.requests[0]?.messages.at(-1)).toEqual({ role: "user", content: "hi there" });
  });

  test("a dragged image file becomes a chip, and the prompt goes with the image; @shot.png names one too", async () => {
    const png = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==", "base64");
    await writeFile(join(workspace, "my shot.png"), png);
    await writeFile(join(workspace, "second.png"), png);
    const { context, terminal, model } = setUp(["A red dot.", "Another dot."]);
    const exit = runInteractiveSession(context);
    await until(terminal, "/help for commands");
    // A terminal pastes a dragged file's path, quoted, between the bracketed-paste markers.
    terminal.press(`What is this? \x1b[200~'${join(workspace, "my shot.png")}'\x1b[201~`);
    await until(terminal, "What is this? [Image #1]");
    terminal.press("\r");
    await until(terminal, "A red dot.");
    const sent = model.requests[0]?.messages.at(-1);
    expect(sent?.content).toBe("What is this? [Image #1]");
    expect(sent?.parts).toEqual([{ type: "image", mediaType: "image/png", data: png.toString("base64") }]);
    terminal.press("And @second.png?\r");
    await until(terminal, "Another dot.");
    expect(model.requests[1]?.messages.at(-1)?.parts).toHaveLength(1);
    terminal.press("/exit\r");
    expect(await exit).toBe(0);
  });

  test("Ctrl-D at an empty prompt leaves with 0; Ctrl-C clears a typed line, then twice at an empty prompt leaves with 130", async () => {
    const first = setUp([]);
    const leftWithD = runInteractiveSession(first.context);
    await until(first.terminal, "/help");
    first.terminal.press("\x04");
    expect(await leftWithD).toBe(0);

    const second = setUp([]);
    const leftWithC = runInteractiveSession(second.context);
    await until(second.terminal, "/help");
    second.terminal.press("some text\x03");
    await until(second.terminal, /some text[\s\S]*>\s*$/);
    expect(second.terminal.text()).not.toContain("Press Ctrl-C again");
    second.terminal.press("\x03");
    await until(second.terminal, "Press Ctrl-C again to exit");
    second.terminal.press("\x03");
    expect(await leftWithC).toBe(130);
  });

  test("the process being told to stop (the context's signal) ends the session with 143", async () => {
    const { context, terminal, stop } = setUp([]);
    const exit = runInteractiveSession(context);
    await until(terminal, "/help");
    stop.abort(new Error("SIGTERM"));
    expect(await exit).toBe(143);
  });

  test("a Write is shown as a new file and denied with a reason, which the model reads", async () => {
    const { context, terminal, model } = setUp([
      reply("Creating it.", toolCall("Write", { file_path: "hello.txt", content: "hello\n" }, "w1")),
      "OK, I will not.",
    ]);
    const exit = runInteractiveSession(context);
    await until(terminal, "/help");
    terminal.press("write hello.txt\r");
    const asked = await until(terminal, "4. No, and tell the agent why");
    expect(asked).toContain("Allow Write(hello.txt)?");
    expect(asked).toContain("(new file, 1 line)");
    expect(asked).toContain("1 + hello");
    terminal.press("n");
    await until(terminal, "Why not?");
    terminal.press("not today\r");
    await until(terminal, "OK, I will not.");
    expect(model.requests[1]?.messages.at(-1)).toEqual({
      role: "tool",
      content: "The user denied this call: not today",
      toolCallId: "w1",
      isError: true,
    });
    terminal.press("\x04");
    expect(await exit).toBe(0);
  });

  test("Esc stops a running Bash at once; the next prompt goes on from a conversation that says so", async () => {
    const { context, terminal, model } = setUp([reply("Waiting.", toolCall("Bash", { command: "sleep 20" }, "b1")), "Fine."]);
    const exit = runInteractiveSession(context);
    await until(terminal, "/help");
    terminal.press("wait\r");
    await until(terminal, "⋯ Bash(sleep 20)");
    const pressed = Date.now();
    terminal.press("\x1b");
    await until(terminal, "Interrupted · what should the agent do instead?", 3000);
    expect(Date.now() - pressed).toBeLessThan(3000);
    expect(terminal.text()).toContain("✗ Bash(sleep 20) · interrupted");
    terminal.press("go on\r");
    await until(terminal, "Fine.");
    expect(model.requests[1]?.messages.slice(-4)).toEqual([
      { role: "assistant", content: "Waiting.", toolCalls: [{ id: "b1", name: "Bash", arguments: { command: "sleep 20" } }] },
      expect.objectContaining({ role: "tool", toolCallId: "b1", isError: true, content: expect.stringContaining("interrupted") }),
      { role: "user", content: "[Request interrupted by user]" },
      { role: "user", content: "go on" },
    ]);
    terminal.press("\x04");
    expect(await exit).toBe(0);
  });

  test("the prompt given on the command line runs first; typing while the agent works fills the next prompt", async () => {
    const { context, terminal, model } = setUp([reply("Looking.", toolCall("Bash", { command: "sleep 20" }, "b1")), "Second answer."], {
      prompt: "first prompt",
    });
    const exit = runInteractiveSession(context);
    await until(terminal, "⋯ Bash(sleep 20)");
    expect(model.requests[0]?.messages.at(-1)).toEqual({ role: "user", content: "first prompt" });
    terminal.press("typed ahead");
    terminal.press("\x1b");
    await until(terminal, /Interrupted[^\n]*\n> typed ahead/);
    terminal.press("\r");
    await until(terminal, "Second answer.");
    expect(model.requests[1]?.messages.at(-1)).toEqual({ role: "user", content: "typed ahead" });
    terminal.press("\x04");
    expect(await exit).toBe(0);
  });

  test("Shift+Tab and /mode cycle the permission mode; /permissions shows it with the rules and where they come from", async () => {
    const { context, terminal } = setUp([]);
    const exit = runInteractiveSession(context);
    await until(terminal, "/help");
    terminal.press("\x1b[Z/permissions\r");
    await until(terminal, /Mode: ⏵⏵ accept edits on \(acceptEdits\)/);
    expect(terminal.text()).toMatch(/Allow rules\n {2}Bash\(sleep 20\) {2}options\.rules/);
    terminal.press("/mode\r");
    await until(terminal, "Permission mode: ⏸ plan mode on");
    terminal.press("/mode bogus\r");
    await until(terminal, 'Unknown mode "bogus"');
    terminal.press("/mode default\r");
    await until(terminal, "Permission mode: default mode");
    terminal.press("\x04");
    expect(await exit).toBe(0);
  });

  test("/help, /cost, /model, /compact, /memory, /agents, /mcp and an unknown command", async () => {
    const { context, terminal } = setUp([]);
    const exit = runInteractiveSession(context);
    await until(terminal, "/help");
    terminal.press("/help\r");
    await until(terminal, /\/resume \[id\] +go on with a saved conversation/);
    terminal.press("/cost\r");
    await until(terminal, /Total cost: +\$0\.0000 at list prices\nTokens: +0 in · 0 out/);
    terminal.press("/model\r");
    await until(
      terminal,
      /Model: anthropic:claude-haiku-4-5\nContext window: 200,000 tokens\nList price: \$1 in \/ \$5 out per million tokens/,
    );
    terminal.press("/compact keep the API notes\r");
    await until(terminal, "The conversation will be compacted before the next model call, the summary focused on: keep the API notes.");
    terminal.press("/memory\r");
    await until(terminal, "No memory files. Write CLAUDE.md, AGENTS.md");
    terminal.press("/agents\r");
    await until(terminal, /Explore \(read-only\)/);
    terminal.press("/skills\r");
    await until(terminal, "No skills. Put a folder with a SKILL.md in .claude/skills/ or .minagent/skills/");
    terminal.press("/mcp\r");
    await until(terminal, "No MCP servers. Configure them in .mcp.json, ~/.minagent/mcp.json or with --mcp-config <file> (docs/mcp.md).");
    terminal.press("/frobnicate\r");
    await until(terminal, "Unknown command /frobnicate. /help lists the commands.");
    terminal.press("\x04");
    expect(await exit).toBe(0);
  });

  test("asks before starting the project's MCP servers, and starts them only on a yes", async () => {
    for (const [key, remember] of [
      ["y", true],
      ["s", false],
      ["n", undefined],
    ] as const) {
      const { context, terminal } = setUp([]);
      const approve = vi.fn(async (_remember: boolean) => {});
      const exit = runInteractiveSession({
        ...context,
        projectMcpServers: { descriptions: ["filesystem: npx -y @modelcontextprotocol/server-filesystem ."], approve },
      });
      await until(
        terminal,
        /asks to start MCP servers, programs of the project's choosing:\n +filesystem: npx -y @modelcontextprotocol\/server-filesystem \./,
      );
      terminal.press(key);
      await until(terminal, remember === undefined ? "were not started" : "Starting the project's MCP servers");
      expect(approve.mock.calls).toEqual(remember === undefined ? [] : [[remember]]);
      terminal.press("\x04");
      expect(await exit).toBe(0);
    }
  });

  test("/resume lists the folder's sessions and goes on with the chosen one; /clear starts a new one", async () => {
    const older = memorySession("older", [
      { role: "user", content: "What does add do?" },
      { role: "assistant", content: "It adds two numbers." },
    ]);
    const { context, terminal, model, created } = setUp(["Still adding.", "Fresh start."], {}, [older]);
    const exit = runInteractiveSession(context);
    await until(terminal, "/help");
    terminal.press("/resume\r");
    await until(terminal, /› 1\. 3 min ago · 1 prompt, 1 turn · What does add do\?/);
    terminal.press("1");
    await until(terminal, /Session older · 2 messages\n> What does add do\?\nIt adds two numbers\./);
    terminal.press("and now?\r");
    await until(terminal, "Still adding.");
    expect(model.requests[0]?.messages.map((message) => message.content)).toEqual([
      "What does add do?",
      "It adds two numbers.",
      "and now?",
    ]);
    expect(older.events.length).toBeGreaterThan(0);

    terminal.press("/clear\r");
    await until(terminal, "New conversation.");
    terminal.press("hello\r");
    await until(terminal, "Fresh start.");
    expect(model.requests[1]?.messages.filter((message) => message.role !== "system")).toEqual([{ role: "user", content: "hello" }]);
    expect(created[0]?.events.length).toBeGreaterThan(0);
    terminal.press("\x04");
    expect(await exit).toBe(0);
  });

  test("--resume without an id offers the list at the start", async () => {
    const older = memorySession("older", [{ role: "user", content: "Old prompt" }]);
    const { context, terminal } = setUp([], { resume: true }, [older]);
    const exit = runInteractiveSession(context);
    await until(terminal, "Resume a conversation:");
    terminal.press("\r");
    await until(terminal, "Session older · 1 messages");
    terminal.press("\x04");
    expect(await exit).toBe(0);
  });
});
