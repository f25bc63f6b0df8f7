import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { runInteractiveSession } from "../../src/cli/code/interactive/index.js";
import type { CodeSessionContext } from "../../src/cli/code/session-context.js";
import { CodingAgent } from "../../src/code/coding-agent.js";
import { FakeModel } from "../../src/models/fake-model.js";
import { writeCommandProject, writeFiles } from "../code/custom-commands-fixtures.js";
import { createTemporaryWorkspace, removeTemporaryWorkspace, type TemporaryWorkspace } from "../code/helpers/temporary-workspace.js";
import { type FakeTerminal, fakeTerminal, interactiveOptions, memorySession, until } from "./interactive-harness.js";

// Custom commands in the interactive session, in process: a scripted model, a fake terminal whose keys the test types.

let temporary: TemporaryWorkspace;
beforeEach(async () => {
  temporary = await createTemporaryWorkspace("custom-commands-interactive");
  await writeCommandProject(temporary.root, join(temporary.base, "claude"));
});
const agents: CodingAgent[] = [];
afterEach(async () => {
  await Promise.all(agents.splice(0).map((agent) => agent.close()));
  await removeTemporaryWorkspace(temporary.base);
});

function setUp(script: string[]): { context: CodeSessionContext; terminal: FakeTerminal; model: FakeModel } {
  const terminal = fakeTerminal({ columns: 120, rows: 40 });
  const model = new FakeModel(script);
  const session = memorySession("session-1");
  const context: CodeSessionContext = {
    io: { stdout: () => {}, stderr: () => {}, readLine: async () => undefined, env: {} },
    terminal,
    model: { spec: "anthropic:claude-haiku-4-5", id: "claude-haiku-4-5", instance: model },
    options: interactiveOptions(temporary.root),
    createAgent: async (overrides) => {
      const agent = await CodingAgent.create(model, {
        workspace: temporary.root,
        settingsFiles: [],
        userDirectory: join(temporary.base, "minagent"),
        claudeDirectory: join(temporary.base, "claude"),
        sandbox: false,
        subagents: false,
        ...overrides,
      });
      agents.push(agent);
      return agent;
    },
    session,
    sessions: { create: async () => session, open: async () => session, list: async () => [], remove: async () => false },
    spending: { usage: { inputTokens: 0, outputTokens: 0 }, costUsd: 0, isBudgetExceeded: () => false },
    signal: new AbortController().signal,
  };
  return { context, terminal, model };
}

const waitFor = (terminal: FakeTerminal, expected: string | RegExp) => until(terminal, expected, 8000);

describe("custom commands in the interactive session", () => {
  test("/help lists them with their hints, descriptions and where they come from; a file named like a built-in is said to lose", async () => {
    const { context, terminal } = setUp([]);
    const exit = runInteractiveSession(context);
    const start = await waitFor(terminal, "rename the file to use it.");
    expect(start).toContain(
      `/help is a built-in command, which wins over ${join(temporary.root, ".claude/commands/help.md")}; rename the file to use it.`,
    );
    terminal.press("/help\r");
    const help = await waitFor(terminal, "Custom commands");
    const section = help.slice(help.indexOf("Custom commands"));
    expect(section).toMatch(/\n {2}\/explain +Explain what a module does \(project\)\n/);
    expect(section).toMatch(/\n {2}\/frontend:component <Name> <kind> Scaffold a React component and its test \(project:frontend\)\n/);
    expect(section).toMatch(/\n {2}\/review \[file\] +Review a file's uncommitted changes before they are committed \(project\)\n/);
    expect(section).toMatch(/\n {2}\/standup +Draft my stand-up notes from yesterday's commits \(user\)\n/);
    // The built-in /help ran, and the team's help.md is not listed as a command one could run.
    expect(section).not.toContain("onboarding");
    terminal.press("\x04");
    expect(await exit).toBe(0);
  });

  test("Tab completes /rev to /review; the command's expanded prompt is what the model gets", async () => {
    const { context, terminal, model } = setUp(["Two small issues."]);
    const exit = runInteractiveSession(context);
    await waitFor(terminal, "/help for commands");
    terminal.press("/rev");
    await waitFor(terminal, "review  Review a file's uncommitted changes before they are committed");
    terminal.press("\tsrc/a.ts\r");
    await waitFor(terminal, "Two small issues.");
    expect(terminal.text()).toContain("> /review src/a.ts");
    const prompt = model.requests[0]?.messages.at(-1)?.content ?? "";
    expect(prompt).toMatch(/^## Context\n\n- What changed: {1,2}src\/a\.ts \| 3 \+\+-/);
    expect(prompt).toContain("Review the changes to src/a.ts for bugs");
    terminal.press("\x04");
    expect(await exit).toBe(0);
  });

  test("a shell line that needs approval is asked like a tool call; yes runs it before the prompt is sent", async () => {
    await writeFiles(temporary.root, {
      ".minagent/commands/scaffold.md": "Prepared: !`touch made-by-command.txt && echo made`\nNow fill it in.",
    });
    const { context, terminal, model } = setUp(["Filled in."]);
    const exit = runInteractiveSession(context);
    await waitFor(terminal, "/help for commands");
    terminal.press("/scaffold\r");
    await waitFor(terminal, "Allow Bash(touch made-by-command.txt && echo made)?");
    terminal.press("y");
    await waitFor(terminal, "Filled in.");
    expect(existsSync(join(temporary.root, "made-by-command.txt"))).toBe(true);
    expect(model.requests[0]?.messages.at(-1)?.content).toBe("Prepared: made\nNow fill it in.");
    terminal.press("\x04");
    expect(await exit).toBe(0);
  });
});
