import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { HookRunner, type HookRunReport } from "../../../src/code/hooks/index.js";
import { makeScriptFolder } from "./scripts.js";

let folder: Awaited<ReturnType<typeof makeScriptFolder>>;
beforeEach(async () => {
  folder = await makeScriptFolder();
});
afterEach(() => folder.remove());

const command = (text: string) => [{ hooks: [{ type: "command" as const, command: text }] }];
const bash = { toolName: "Bash", toolInput: { command: "npm run lint" } };

describe("what each new event reads of a command's output", () => {
  it("PermissionRequest: the decision object decides; exit 2 leaves the flow to the person; continue: false denies", async () => {
    const allow = `echo '{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow","updatedInput":{"command":"npm run lint -- --fix"}}}}'`;
    const make = (text: string) => new HookRunner({ sessionId: "s", cwd: folder.dir, hooks: { PermissionRequest: command(text) } });
    expect(await make(allow).runPermissionRequestHooks(bash)).toEqual({
      decision: "allow",
      updatedInput: { command: "npm run lint -- --fix" },
    });
    expect(await make(`echo "not my call" >&2; exit 2`).runPermissionRequestHooks(bash)).toEqual({});
    expect(await make(`echo '{"continue":false,"stopReason":"Release freeze."}'`).runPermissionRequestHooks(bash)).toEqual({
      decision: "deny",
      reason: "A PermissionRequest hook denied this call: Release freeze.",
      interrupt: true,
    });
    expect((await make(`echo '{"hookSpecificOutput":{"decision":{"behavior":"maybe"}}}'`).runPermissionRequestHooks(bash)).reason).toMatch(
      /PermissionRequest hook #1 failed: its JSON output is invalid: hookSpecificOutput\.decision\.behavior must be "allow" or "deny"/,
    );
  });

  it("PermissionDenied: retry: true; exit 2 and other fields change nothing", async () => {
    const denial = { ...bash, toolUseId: "t1", reason: "Permission denied: dontAsk mode denies whatever no allow rule allows." };
    const make = (text: string) => new HookRunner({ sessionId: "s", cwd: folder.dir, hooks: { PermissionDenied: command(text) } });
    expect(
      await make(`echo '{"hookSpecificOutput":{"hookEventName":"PermissionDenied","retry":true}}'`).runPermissionDeniedHooks(denial),
    ).toEqual({ retry: true });
    expect(await make(`echo '{"decision":"block"}'; exit 2`).runPermissionDeniedHooks(denial)).toEqual({ retry: false });
  });

  it("PostToolUseFailure: exit 2's stderr is for the model, as its context would be", async () => {
    const runner = new HookRunner({
      sessionId: "s",
      cwd: folder.dir,
      hooks: { PostToolUseFailure: command(`echo "Lint needs node 20: run nvm use first." >&2; exit 2`) },
    });
    expect(await runner.runPostToolUseFailureHooks({ ...bash, toolUseId: "t1", error: "Exit code 1\nnode: unsupported" })).toEqual({
      context: "PostToolUseFailure hook context:\nLint needs node 20: run nvm use first.",
    });
  });

  it("Notification: matched on its type, with the message; nothing it answers is read", async () => {
    const reports: HookRunReport[] = [];
    const runner = new HookRunner({
      sessionId: "s",
      cwd: folder.dir,
      hooks: {
        Notification: [
          { matcher: "permission_prompt", hooks: [{ type: "command", command: `cat > notified.json; echo '{"decision":"block"}'` }] },
          { matcher: "idle_prompt", hooks: [{ type: "command", command: "touch idle" }] },
        ],
      },
      onHookRun: (report) => reports.push(report),
    });
    await runner.runNotificationHooks({
      notificationType: "permission_prompt",
      message: "minagent needs your permission to use Bash",
      title: "Permission needed",
    });
    expect(JSON.parse(await folder.read("notified.json"))).toMatchObject({
      hook_event_name: "Notification",
      notification_type: "permission_prompt",
      message: "minagent needs your permission to use Bash",
      title: "Permission needed",
    });
    await expect(folder.read("idle")).rejects.toThrow(/ENOENT/);
    expect(reports).toMatchObject([{ event: "Notification", outcome: "ok" }]);
  });

  it("SessionEnd: a hook without its own timeout gets 1.5 s, and its failure is only reported", async () => {
    const reports: HookRunReport[] = [];
    const runner = new HookRunner({
      sessionId: "s",
      cwd: folder.dir,
      hooks: { SessionEnd: command("sleep 10") },
      onHookRun: (report) => reports.push(report),
    });
    const started = Date.now();
    await runner.runSessionEndHooks({ reason: "other" });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(reports).toMatchObject([
      { event: "SessionEnd", outcome: "failed", failOpen: true, message: "it timed out after 1.5 s and was killed" },
    ]);
  });
});
