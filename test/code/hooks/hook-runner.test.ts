import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import {
  type HookConfiguration,
  HookRunner,
  type HookRunReport,
  type PreToolUseHookInput,
  type StopHookInput,
} from "../../../src/code/hooks/index.js";
import { UsageError } from "../../../src/index.js";
import { makeScriptFolder } from "./scripts.js";

let folder: Awaited<ReturnType<typeof makeScriptFolder>>;
beforeEach(async () => {
  folder = await makeScriptFolder();
});
afterEach(() => folder.remove());

const call = { id: "call_1", name: "Bash", arguments: { command: "npm test" } };
const make = (hooks: HookConfiguration, options: Partial<ConstructorParameters<typeof HookRunner>[0]> = {}) =>
  new HookRunner({ sessionId: "s1", cwd: folder.dir, hooks, ...options });

describe("in-process hooks", () => {
  it("run in order, each seeing the arguments the one before rewrote; a deny stops the chain", async () => {
    const seen: unknown[] = [];
    const third = vi.fn();
    const runner = make({
      PreToolUse: [
        {
          matcher: "Bash",
          hooks: [
            { type: "function", run: ({ toolInput }) => ({ updatedInput: { command: `${toolInput.command} -- --run` } }) },
            {
              type: "function",
              run: (input: PreToolUseHookInput) => {
                seen.push(input);
                return { decision: "deny", reason: "tests are run by CI" };
              },
            },
            { type: "function", run: third },
          ],
        },
      ],
    });
    const outcome = await runner.runPreToolUseHooks(call);
    expect(seen).toEqual([
      {
        hookEventName: "PreToolUse",
        sessionId: "s1",
        cwd: folder.dir,
        toolName: "Bash",
        toolInput: { command: "npm test -- --run" },
        toolUseId: "call_1",
      },
    ]);
    expect(outcome).toMatchObject({ decision: "deny", reason: "A PreToolUse hook blocked this call: tests are run by CI" });
    expect(third).not.toHaveBeenCalled();
  });

  it("deny wins over ask, ask over allow, whatever their order", async () => {
    const hook = (decision: "allow" | "deny" | "ask") => ({ type: "function" as const, run: () => ({ decision, reason: decision }) });
    expect((await make({ PreToolUse: [{ hooks: [hook("allow"), hook("ask"), hook("allow")] }] }).runPreToolUseHooks(call)).decision).toBe(
      "ask",
    );
    expect((await make({ PreToolUse: [{ hooks: [hook("ask"), hook("deny")] }] }).runPreToolUseHooks(call)).decision).toBe("deny");
    expect((await make({ PreToolUse: [{ hooks: [hook("allow")] }] }).runPreToolUseHooks(call)).decision).toBe("allow");
  });

  it("only hooks whose matcher matches the tool run", async () => {
    const edit = vi.fn();
    const all = vi.fn();
    const runner = make({
      PreToolUse: [{ matcher: "Edit|Write", hooks: [{ type: "function", run: edit }] }, { hooks: [{ type: "function", run: all }] }],
    });
    await runner.runPreToolUseHooks(call);
    expect([edit.mock.calls.length, all.mock.calls.length]).toEqual([0, 1]);
    expect([runner.hasHooks("PreToolUse", "Edit"), runner.hasHooks("PostToolUse")]).toEqual([true, false]);
  });

  it("a throw, a timeout or an answer that is not a result blocks, unless the hook fails open", async () => {
    const reports: HookRunReport[] = [];
    const failing = [
      () => {
        throw new TypeError("cannot read properties of undefined");
      },
      (_input: unknown, { signal }: { signal: AbortSignal }) => new Promise((resolve) => signal.addEventListener("abort", resolve)),
      () => ({ decision: "block" }),
      () => "deny",
    ];
    const reasons = [];
    for (const run of failing) {
      const outcome = await make(
        { PreToolUse: [{ hooks: [{ type: "function", run: run as never, timeout: 0.05 }] }] },
        { onHookRun: (r) => reports.push(r) },
      ).runPreToolUseHooks(call);
      expect(outcome.decision).toBe("deny");
      reasons.push(outcome.reason?.replace("A PreToolUse hook blocked this call: PreToolUse hook #1 failed: ", ""));
      const open = await make({
        PreToolUse: [{ hooks: [{ type: "function", run: run as never, timeout: 0.05, failOpen: true }] }],
      }).runPreToolUseHooks(call);
      expect(open.decision).toBeUndefined();
    }
    expect(reasons).toEqual([
      "it threw TypeError: cannot read properties of undefined.",
      "it timed out after 0.05 s.",
      'its answer is invalid: decision "block" is not one of "allow", "deny", "ask" (or absent).',
      'its answer is invalid: expected an object, got the string "deny".',
    ]);
    expect(reports.map((report) => [report.hook, report.outcome])).toEqual(Array(4).fill(["function #1", "failed"]));
  });

  it("an ask with rewritten arguments is still an ask (the person decides on the model's call)", async () => {
    const runner = make({
      PreToolUse: [
        { hooks: [{ type: "function", run: () => ({ decision: "ask", reason: "check it", updatedInput: { command: "ls" } }) }] },
      ],
    });
    expect(await runner.runPreToolUseHooks(call)).toEqual({
      decision: "ask",
      reason: "check it",
      arguments: { command: "ls" },
      rewritten: true,
    });
  });

  it("text a hook puts before the model is capped at maxOutputLength", async () => {
    const runner = make(
      { PreToolUse: [{ hooks: [{ type: "function", run: () => ({ decision: "deny", reason: "x".repeat(5_000) }) }] }] },
      { maxOutputLength: 200 },
    );
    const { reason } = await runner.runPreToolUseHooks(call);
    expect(reason?.length).toBeLessThan(300);
    expect(reason).toMatch(/…\[truncated \d+ of 5037 characters\]$/);
  });
});

describe("UserPromptSubmit and SessionStart", () => {
  it("context from plain stdout and from functions follows the prompt; the model reads it labelled", async () => {
    const branch = await folder.script("branch.sh", `echo "Current branch: main"`);
    const runner = make({
      UserPromptSubmit: [
        {
          hooks: [
            { type: "command", command: branch },
            { type: "function", run: ({ prompt }) => ({ additionalContext: `${prompt.length} characters` }) },
          ],
        },
      ],
    });
    expect(await runner.runUserPromptSubmitHooks("Fix the build")).toEqual({
      input: "Fix the build\n\nUserPromptSubmit hook context:\nCurrent branch: main\n\n13 characters",
      context: "UserPromptSubmit hook context:\nCurrent branch: main\n\n13 characters",
    });
  });

  it("a prompt hook that exits 2 blocks the prompt, with stderr for the user", async () => {
    const guard = await folder.script(
      "guard.sh",
      `grep -q password && { echo "Prompts must not contain passwords." >&2; exit 2; }; exit 0`,
    );
    const runner = make({ UserPromptSubmit: [{ hooks: [{ type: "command", command: guard }] }] });
    expect(await runner.runUserPromptSubmitHooks("my password is hunter2")).toEqual({ blocked: "Prompts must not contain passwords." });
    expect(await runner.runUserPromptSubmitHooks("hello")).toEqual({ input: "hello" });
  });

  it("SessionStart hooks match the source and add context; JSON additionalContext works too", async () => {
    const todo = await folder.script(
      "todo.sh",
      `echo '{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"Open issues: #11"}}'`,
    );
    const runner = make({
      SessionStart: [
        { matcher: "startup", hooks: [{ type: "command", command: todo }] },
        { matcher: "resume", hooks: [{ type: "function", run: () => ({ additionalContext: "Welcome back." }) }] },
      ],
    });
    expect(await runner.runSessionStartHooks()).toEqual({ context: "Open issues: #11" });
    expect(await runner.runSessionStartHooks({ source: "resume" })).toEqual({ context: "Welcome back." });
    expect(await make({}).runSessionStartHooks()).toEqual({});
  });

  it("a SessionStart hook that fails is reported and the session goes on (Claude Code's policy); failClosed makes it block", async () => {
    const crash = await folder.script("crash.sh", `exit 3`);
    const reports: HookRunReport[] = [];
    const missing = make(
      { SessionStart: [{ hooks: [{ type: "command", command: "uv-that-is-not-installed run setup.py" }] }] },
      { onHookRun: (report) => reports.push(report) },
    );
    expect(await missing.runSessionStartHooks()).toEqual({});
    expect(reports).toEqual([expect.objectContaining({ event: "SessionStart", outcome: "failed", failOpen: true })]);
    expect(
      await make({ SessionStart: [{ hooks: [{ type: "command", command: crash, failClosed: true }] }] }).runSessionStartHooks(),
    ).toEqual({
      blocked: "SessionStart hook #1 failed: it exited with code 3.",
    });
    expect(
      await make({ SessionStart: [{ hooks: [{ type: "command", command: crash, failOpen: false }] }] }).runSessionStartHooks(),
    ).toEqual({
      blocked: "SessionStart hook #1 failed: it exited with code 3.",
    });
  });
});

describe("Stop hooks", () => {
  const completed = { status: "completed" as const, final: "Done." };

  it("a block sends the agent back with the reason; the hook sees stop_hook_active on the next stop", async () => {
    const command = await folder.script(
      "stop.sh",
      `input=$(cat)\ncase "$input" in *'"stop_hook_active":true'*) exit 0;; esac\necho '{"decision":"block","reason":"Run the tests before you stop."}'`,
    );
    const runner = make({ Stop: [{ hooks: [{ type: "command", command }] }] });
    expect(await runner.runStopHooks(completed, { continuations: 0 })).toEqual({
      continue: "Stop hook feedback: you may not stop yet.\nRun the tests before you stop.",
    });
    expect(await runner.runStopHooks(completed, { continuations: 1 })).toBeUndefined();
  });

  it("the loop guard: after maxStopContinuations in a row the hooks are not asked again", async () => {
    const run = vi.fn((_input: StopHookInput) => ({ decision: "block" as const, reason: "again" }));
    const runner = make({ Stop: [{ hooks: [{ type: "function", run }] }] }, { maxStopContinuations: 2 });
    expect(await runner.runStopHooks(completed, { continuations: 0 })).toBeDefined();
    expect(await runner.runStopHooks(completed, { continuations: 1 })).toBeDefined();
    expect(await runner.runStopHooks(completed, { continuations: 2 })).toBeUndefined();
    expect(run).toHaveBeenCalledTimes(2);
    expect(run.mock.calls.map(([input]) => input.stopHookActive)).toEqual([false, true]);
  });

  it("Stop hooks do not run for a run that did not complete", async () => {
    const run = vi.fn(() => ({ decision: "block" as const }));
    const runner = make({ Stop: [{ hooks: [{ type: "function", run }] }] });
    expect(await runner.runStopHooks({ status: "interrupted", final: "" }, { continuations: 0 })).toBeUndefined();
    expect(run).not.toHaveBeenCalled();
  });

  it("a Stop hook configured to fail closed that crashes (exit 1, as a failing test command does) keeps the agent going", async () => {
    const tests = await folder.script("tests.sh", `echo "FAIL test/app.test.ts: expected 2, got 3" >&2; exit 1`);
    const runner = make({ Stop: [{ hooks: [{ type: "command", command: tests, failClosed: true }] }] });
    expect((await runner.runStopHooks(completed, { continuations: 0 }))?.continue).toBe(
      "Stop hook feedback: you may not stop yet.\nStop hook #1 failed: it exited with code 1: FAIL test/app.test.ts: expected 2, got 3.",
    );
    // By default a Stop hook fails open: its crash is reported, and the agent stops.
    const open = make({ Stop: [{ hooks: [{ type: "command", command: tests }] }] });
    expect(await open.runStopHooks(completed, { continuations: 0 })).toBeUndefined();
  });
});

describe("settings", () => {
  it("settings files run in order, then the hooks in code; events this runner does not run are listed", async () => {
    const order: string[] = [];
    const a = await folder.script("a.sh", `echo a >> order.txt`);
    const b = await folder.script("b.sh", `echo b >> order.txt`);
    const runner = new HookRunner({
      sessionId: "s",
      cwd: folder.dir,
      settings: [
        {
          hooks: { UserPromptSubmit: [{ hooks: [{ type: "command", command: a }] }], TaskCreated: [{ hooks: [] }] },
          permissions: { allow: [] },
        },
        { hooks: { UserPromptSubmit: [{ hooks: [{ type: "command", command: b }] }] } },
      ],
      hooks: { UserPromptSubmit: [{ hooks: [{ type: "function", run: () => void order.push("code") }] }] },
    });
    await runner.runUserPromptSubmitHooks("x");
    expect([...(await folder.read("order.txt")).split("\n").filter(Boolean), ...order]).toEqual(["a", "b", "code"]);
    expect(runner.unsupportedEvents).toEqual(["TaskCreated"]);
  });

  it("a malformed entry in settings given without a path throws a UsageError naming it", () => {
    const bad = (entry: unknown) => () =>
      new HookRunner({ sessionId: "s", cwd: "/", settings: { hooks: { PreToolUse: [{ hooks: [entry] }] } } });
    expect(bad({ type: "prompt", prompt: "is this safe?" })).toThrow(
      /"settings\[0\]\.hooks\.PreToolUse\[0\]\.hooks\[0\]" is a PreToolUse hook of type "prompt", which is not supported by minagent/,
    );
    expect(bad({ type: "command", command: "" })).toThrow(/needs "command", a non-empty string/);
    expect(bad({ type: "command", command: "x", timeout: -1 })).toThrow(/"timeout" -1: it must be a positive number of seconds/);
    expect(bad({ type: "command", command: "x", failOpen: "yes" })).toThrow(UsageError);
    expect(() => new HookRunner({ sessionId: "s", cwd: "/", settings: { hooks: { Stop: {} } } })).toThrow(
      /"settings\[0\]\.hooks\.Stop" must be an array/,
    );
    expect(() => new HookRunner({ sessionId: "", cwd: "/" })).toThrow(/sessionId/);
  });
});
