import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { HookRunner, type HookRunReport, type HookSettings } from "../../../src/code/hooks/index.js";
import { eventually, isAlive, makeScriptFolder } from "./scripts.js";

let folder: Awaited<ReturnType<typeof makeScriptFolder>>;
beforeEach(async () => {
  folder = await makeScriptFolder();
});
afterEach(() => folder.remove());

const call = { id: "call_1", name: "Bash", arguments: { command: "rm -rf build" } };

function runner(event: string, hooks: Record<string, unknown>[], extra: { matcher?: string; reports?: HookRunReport[] } = {}) {
  const settings: HookSettings = { hooks: { [event]: [{ matcher: extra.matcher ?? "Bash", hooks }] } };
  return new HookRunner({ sessionId: "session-1", cwd: folder.dir, settings, onHookRun: (report) => extra.reports?.push(report) });
}

describe("command hooks: the protocol", () => {
  it("get Claude Code's JSON on stdin and run in the session's cwd with CLAUDE_PROJECT_DIR set", async () => {
    const command = await folder.script("record.sh", `cat > "$CLAUDE_PROJECT_DIR/input.json"; pwd > pwd.txt; exit 0`);
    const outcome = await runner("PreToolUse", [{ type: "command", command }]).runPreToolUseHooks(call);
    expect(outcome).toEqual({ arguments: call.arguments, rewritten: false });
    expect(JSON.parse(await folder.read("input.json"))).toEqual({
      hook_event_name: "PreToolUse",
      session_id: "session-1",
      cwd: folder.dir,
      tool_name: "Bash",
      tool_input: { command: "rm -rf build" },
      tool_use_id: "call_1",
    });
    expect((await folder.read("pwd.txt")).trim()).toBe(await import("node:fs/promises").then(({ realpath }) => realpath(folder.dir)));
  });

  it("exit 2 blocks, and the model reads stderr", async () => {
    const command = await folder.script("guard.sh", `echo "rm -rf is not allowed here; delete files one by one" >&2; exit 2`);
    const outcome = await runner("PreToolUse", [{ type: "command", command }]).runPreToolUseHooks(call);
    expect(outcome.decision).toBe("deny");
    expect(outcome.reason).toBe("A PreToolUse hook blocked this call: rm -rf is not allowed here; delete files one by one");
  });

  it("JSON on stdout decides: permissionDecision deny/ask/allow with its reason, updatedInput rewrites", async () => {
    const decide = (output: unknown) => folder.script(`decide-${Math.random()}.sh`, `cat > /dev/null; echo '${JSON.stringify(output)}'`);
    const deny = await decide({
      hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: "no deletes" },
    });
    expect(await runner("PreToolUse", [{ type: "command", command: deny }]).runPreToolUseHooks(call)).toMatchObject({
      decision: "deny",
      reason: "A PreToolUse hook blocked this call: no deletes",
    });
    const ask = await decide({ hookSpecificOutput: { permissionDecision: "ask", permissionDecisionReason: "deletes need a person" } });
    expect(await runner("PreToolUse", [{ type: "command", command: ask }]).runPreToolUseHooks(call)).toMatchObject({
      decision: "ask",
      reason: "deletes need a person",
    });
    const rewrite = await decide({ hookSpecificOutput: { permissionDecision: "allow", updatedInput: { command: "rm -ri build" } } });
    expect(await runner("PreToolUse", [{ type: "command", command: rewrite }]).runPreToolUseHooks(call)).toEqual({
      decision: "allow",
      arguments: { command: "rm -ri build" },
      rewritten: true,
    });
    const legacy = await decide({ decision: "block", reason: "old style", systemMessage: "Deletes are off today." });
    const reports: HookRunReport[] = [];
    expect(await runner("PreToolUse", [{ type: "command", command: legacy }], { reports }).runPreToolUseHooks(call)).toMatchObject({
      decision: "deny",
    });
    expect(reports).toEqual([expect.objectContaining({ outcome: "blocked", systemMessage: "Deletes are off today." })]);
    const halt = await decide({ continue: false, stopReason: "the user stopped all tools" });
    expect(await runner("PreToolUse", [{ type: "command", command: halt }]).runPreToolUseHooks(call)).toMatchObject({
      decision: "deny",
      reason: expect.stringContaining("the user stopped all tools"),
    });
  });

  it("PostToolUse: updatedToolOutput replaces the result, additionalContext is appended, exit 2 withholds it", async () => {
    const response = { toolUseId: "c", toolName: "Bash", toolInput: { command: "cat .env" }, toolResponse: "API_KEY=sk-secret" };
    const redact = await folder.script(
      "redact.sh",
      `cat > /dev/null; echo '{"hookSpecificOutput":{"hookEventName":"PostToolUse","updatedToolOutput":"API_KEY=[redacted]","additionalContext":"Secrets are redacted."}}'`,
    );
    expect(await runner("PostToolUse", [{ type: "command", command: redact }]).runPostToolUseHooks(response)).toEqual({
      response: "API_KEY=[redacted]",
      context: "PostToolUse hook context:\nSecrets are redacted.",
    });
    const block = await folder.script("block.sh", `echo "lint failed: 3 errors" >&2; exit 2`);
    expect(await runner("PostToolUse", [{ type: "command", command: block }]).runPostToolUseHooks(response)).toEqual({
      blocked: 'Tool "Bash" ran, but a PostToolUse hook withheld its result: lint failed: 3 errors',
      response: "API_KEY=sk-secret",
    });
  });

  it("hooks get the environment (PATH, the user's variables) unless `env` replaces it", async () => {
    process.env.MINAGENT_HOOK_TEST = "visible";
    try {
      const command = await folder.script("env.sh", `echo "$MINAGENT_HOOK_TEST $MINAGENT_PROJECT_DIR" > env.txt`);
      const settings: HookSettings = { hooks: { UserPromptSubmit: [{ hooks: [{ type: "command", command }] }] } };
      await new HookRunner({ sessionId: "s", cwd: folder.dir, settings }).runUserPromptSubmitHooks("hi");
      expect((await folder.read("env.txt")).trim()).toBe(`visible ${folder.dir}`);
      await new HookRunner({ sessionId: "s", cwd: folder.dir, settings, env: { PATH: process.env.PATH } }).runUserPromptSubmitHooks("hi");
      expect(await folder.read("env.txt")).toBe(` ${folder.dir}\n`);
    } finally {
      delete process.env.MINAGENT_HOOK_TEST;
    }
  });

  it("runs an identical command once per event even when two matchers list it", async () => {
    const command = await folder.script("count.sh", `echo x >> count.txt`);
    const settings: HookSettings = {
      hooks: {
        PreToolUse: [
          { matcher: "Bash", hooks: [{ type: "command", command }] },
          { matcher: "*", hooks: [{ type: "command", command }] },
        ],
      },
    };
    await new HookRunner({ sessionId: "s", cwd: folder.dir, settings }).runPreToolUseHooks(call);
    expect(await folder.read("count.txt")).toBe("x\n");
  });
});

describe("command hooks fail closed", () => {
  it("a crash (exit 1) blocks, and says which hook failed and how — never the command, which may hold a secret", async () => {
    const command = await folder.script("crash.sh", `echo "jq: command not found" >&2; exit 1`);
    const reports: HookRunReport[] = [];
    const outcome = await runner("PreToolUse", [{ type: "command", command: `TOKEN=s3cret ${command}` }], { reports }).runPreToolUseHooks(
      call,
    );
    expect(outcome.decision).toBe("deny");
    expect(outcome.reason).toBe(
      "A PreToolUse hook blocked this call: PreToolUse hook #1 failed: it exited with code 1: jq: command not found.",
    );
    expect(outcome.reason).not.toContain("s3cret");
    expect(reports).toEqual([
      expect.objectContaining({ event: "PreToolUse", outcome: "failed", failOpen: false, hook: expect.stringContaining("s3cret") }),
    ]);
  });

  it("failOpen: true lets the call through, and the host is told", async () => {
    const command = await folder.script("crash.sh", `exit 1`);
    const reports: HookRunReport[] = [];
    const outcome = await runner("PreToolUse", [{ type: "command", command, failOpen: true }], { reports }).runPreToolUseHooks(call);
    expect(outcome).toEqual({ arguments: call.arguments, rewritten: false });
    expect(reports[0]).toMatchObject({ outcome: "failed", failOpen: true, message: "it exited with code 1" });
  });

  it("malformed JSON, or JSON with a wrong field, is a failure (Claude Code would ignore it)", async () => {
    const broken = await folder.script("broken.sh", `echo '{"hookSpecificOutput": {"permissionDecision": "deny"'`);
    expect((await runner("PreToolUse", [{ type: "command", command: broken }]).runPreToolUseHooks(call)).reason).toMatch(
      /PreToolUse hook #1 failed: its stdout starts like JSON but is not JSON/,
    );
    const wrong = await folder.script("wrong.sh", `echo '{"hookSpecificOutput": {"permissionDecision": "maybe"}}'`);
    expect((await runner("PreToolUse", [{ type: "command", command: wrong }]).runPreToolUseHooks(call)).reason).toMatch(
      /its JSON output is invalid: decision "maybe" is not one of "allow", "deny", "ask"/,
    );
  });

  it("a missing script fails closed too (exit 127 from the shell)", async () => {
    const outcome = await runner("PreToolUse", [{ type: "command", command: `${folder.path("missing.sh")}` }]).runPreToolUseHooks(call);
    expect(outcome.decision).toBe("deny");
    expect(outcome.reason).toMatch(/exited with code 127/);
  });

  it("a timeout kills the whole process group, a background child included, and blocks", async () => {
    const command = await folder.script("hang.sh", `sleep 30 &\necho $! > child.pid\necho $$ > shell.pid\nwait`);
    const started = Date.now();
    const outcome = await runner("PreToolUse", [{ type: "command", command, timeout: 0.5 }]).runPreToolUseHooks(call);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(outcome.decision).toBe("deny");
    expect(outcome.reason).toBe("A PreToolUse hook blocked this call: PreToolUse hook #1 failed: it timed out after 0.5 s and was killed.");
    const child = Number(await folder.read("child.pid"));
    const shell = Number(await folder.read("shell.pid"));
    expect(child).toBeGreaterThan(0);
    expect(await eventually(async () => !(await isAlive(child)) && !(await isAlive(shell)))).toBe(true);
  });

  it("a timed-out hook with failOpen is ignored, and its process group is still killed", async () => {
    const command = await folder.script("hang.sh", `sleep 30 &\necho $! > child.pid\nwait`);
    const outcome = await runner("PreToolUse", [{ type: "command", command, timeout: 0.3, failOpen: true }]).runPreToolUseHooks(call);
    expect(outcome.decision).toBeUndefined();
    const child = Number(await folder.read("child.pid"));
    expect(await eventually(async () => !(await isAlive(child)))).toBe(true);
  });

  it("a hook that exits but leaves a child holding its stdout does not stall the agent", async () => {
    const command = await folder.script("leave.sh", `sleep 5 &\necho $! > child.pid\necho '{"decision":"block","reason":"no"}'\nexit 0`);
    const started = Date.now();
    const outcome = await runner("PreToolUse", [{ type: "command", command, timeout: 10 }]).runPreToolUseHooks(call);
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(outcome.decision).toBe("deny");
    process.kill(Number(await folder.read("child.pid")), "SIGKILL");
  });

  it("an aborted run kills the hook and rejects with an AbortError", async () => {
    const command = await folder.script("hang.sh", `sleep 30 &\necho $! > child.pid\nwait`);
    const controller = new AbortController();
    const pending = runner("PreToolUse", [{ type: "command", command }]).runPreToolUseHooks(call, controller.signal);
    await eventually(async () => (await folder.read("child.pid").catch(() => "")) !== "");
    controller.abort();
    await expect(pending).rejects.toMatchObject({ name: "AbortError" });
    const child = Number(await folder.read("child.pid"));
    expect(await eventually(async () => !(await isAlive(child)))).toBe(true);
  });
});
