import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { runInteractiveSession } from "../../src/cli/code/interactive/index.js";
import type { CodeSessionContext } from "../../src/cli/code/session-context.js";
import { CodingAgent } from "../../src/code/coding-agent.js";
import type { HookConfiguration } from "../../src/code/hooks/index.js";
import { FakeModel, type FakeModelScriptItem } from "../../src/models/fake-model.js";
import { reply, toolCall } from "../../src/testing/script.js";
import { fakeTerminal, interactiveOptions, memorySession, until } from "./interactive-harness.js";

// The interactive session's hook points, in process (the harness of code-interactive-session.test.ts, cut down):
// SessionEnd when the person leaves, clears or switches, and Notification when an approval waits.

let workspace: string;
const agents: CodingAgent[] = [];
beforeEach(async () => {
  workspace = await mkdtemp(join(tmpdir(), "minagent-interactive-hooks-"));
});
afterEach(async () => {
  await Promise.all(agents.splice(0).map((agent) => agent.close()));
  await rm(workspace, { recursive: true, force: true });
});

function setUp(script: FakeModelScriptItem[], hooks: HookConfiguration) {
  const terminal = fakeTerminal();
  const model = new FakeModel(script);
  const stop = new AbortController();
  let created = 1;
  const context: CodeSessionContext = {
    io: { stdout: () => {}, stderr: () => {}, readLine: async () => undefined, env: {} },
    terminal,
    model: { spec: "anthropic:claude-haiku-4-5", id: "claude-haiku-4-5", instance: model },
    options: interactiveOptions(workspace),
    createAgent: async (overrides) => {
      const agent = await CodingAgent.create(model, {
        workspace,
        settingsFiles: [],
        claudeDirectory: false,
        memory: false,
        sandbox: false,
        hooks,
        ...overrides,
      });
      agents.push(agent);
      return agent;
    },
    session: memorySession("session-1"),
    sessions: {
      create: async () => memorySession(`session-${++created}`),
      open: async () => memorySession("x"),
      list: async () => [],
      remove: async () => false,
    },
    spending: { usage: { inputTokens: 0, outputTokens: 0 }, costUsd: 0, isBudgetExceeded: () => false },
    signal: stop.signal,
  };
  return { context, press: terminal.press, until: (expected: string) => until(terminal, expected), stop };
}

/** A SessionEnd hook that records each reason, and a SessionStart one that records each source. */
function recording(): { hooks: HookConfiguration; ends: string[]; starts: string[] } {
  const ends: string[] = [];
  const starts: string[] = [];
  return {
    ends,
    starts,
    hooks: {
      SessionEnd: [{ hooks: [{ type: "function", run: ({ reason }) => void ends.push(reason) }] }],
      SessionStart: [{ hooks: [{ type: "function", run: ({ source }) => void starts.push(source) }] }],
    },
  };
}

describe("the interactive session's SessionEnd", () => {
  test("/clear ends the session (clear) and the next prompt starts one (clear); Ctrl-D ends it with prompt_input_exit", async () => {
    const { hooks, ends, starts } = recording();
    const { context, press, until } = setUp(["First answer.", "Second answer."], hooks);
    const exit = runInteractiveSession(context);
    await until("/help for commands");
    press("hello\r");
    await until("First answer.");
    press("/clear\r");
    await until("New conversation.");
    press("hello again\r");
    await until("Second answer.");
    press("\x04");
    expect(await exit).toBe(0);
    expect(ends).toEqual(["clear", "prompt_input_exit"]);
    expect(starts).toEqual(["startup", "clear"]);
  });

  test("the process being told to stop ends it with other", async () => {
    const { hooks, ends } = recording();
    const { context, until, stop } = setUp([], hooks);
    const exit = runInteractiveSession(context);
    await until("/help for commands");
    stop.abort(new Error("SIGTERM"));
    expect(await exit).toBe(143);
    expect(ends).toEqual(["other"]);
  });
});

describe("the interactive session's Notification", () => {
  test("an approval prompt left unanswered for six seconds is a permission_prompt notification; one answered sooner is not", async () => {
    const notifications: unknown[] = [];
    const { context, press, until } = setUp(
      [
        reply("", toolCall("Write", { file_path: "fast.txt", content: "1\n" }, "w1")),
        reply("", toolCall("Write", { file_path: "slow.txt", content: "2\n" }, "w2")),
        "Both written.",
      ],
      { Notification: [{ matcher: "permission_prompt", hooks: [{ type: "function", run: (input) => void notifications.push(input) }] }] },
    );
    const exit = runInteractiveSession(context);
    await until("/help for commands");
    press("write the files\r");
    await until("Allow Write(fast.txt)?");
    press("1");
    await until("Allow Write(slow.txt)?");
    await new Promise((resolve) => setTimeout(resolve, 6_500));
    press("1");
    await until("Both written.");
    press("\x04");
    await exit;
    expect(notifications).toMatchObject([
      { hookEventName: "Notification", notificationType: "permission_prompt", message: "minagent needs your permission to use Write" },
    ]);
  }, 20_000);
});
