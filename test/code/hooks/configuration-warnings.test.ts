import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { HookRunner } from "../../../src/code/hooks/index.js";
import { CodingAgent } from "../../../src/code/index.js";
import { FakeModel } from "../../../src/index.js";

let project: string;
beforeEach(() => {
  project = mkdtempSync(join(tmpdir(), "minagent-hook-settings-"));
});
afterEach(() => rmSync(project, { recursive: true, force: true }));

const file = "/home/dana/shop/.claude/settings.json";

describe("a settings file's hooks of the wrong shape", () => {
  it("are skipped one by one with a warning naming the file and the key; the rest of the file applies", async () => {
    const ran = vi.fn();
    const runner = new HookRunner({
      sessionId: "s",
      cwd: "/home/dana/shop",
      settingsFiles: [
        {
          path: file,
          settings: {
            hooks: {
              Stop: [
                { hooks: [{ type: "prompt", prompt: "Is the task complete? $ARGUMENTS" }] },
                { hooks: [{ type: "agent", prompt: "Check that the tests pass." }] },
              ],
              PreToolUse: [
                "not an entry",
                { matcher: "Bash(", hooks: [{ type: "command", command: "./audit.sh" }] },
                {
                  matcher: "Bash",
                  hooks: [
                    { type: "command", command: "" },
                    { type: "command", command: "./audit.sh", if: "Bash(git *" },
                  ],
                },
              ],
              UserPromptSubmit: [{ hooks: [{ type: "command", command: "./context.sh", if: "Bash(git *)" }] }],
              TaskCreated: [{ hooks: [{ type: "command", command: "./task.sh" }] }],
              PostToolUse: { matcher: "Edit" },
            },
          },
        },
      ],
      hooks: { Stop: [{ hooks: [{ type: "function", run: ran }] }] },
    });

    expect(runner.warnings).toEqual([
      `${file}: "hooks.Stop[0].hooks[0]" is a Stop hook of type "prompt", which is not supported by minagent (it runs "command" and "http" hooks); that hook is skipped`,
      `${file}: "hooks.Stop[1].hooks[0]" is a Stop hook of type "agent", which is not supported by minagent (it runs "command" and "http" hooks); that hook is skipped`,
      `${file}: "hooks.PreToolUse[0]" must be an object with a "hooks" array; the calls it would guard are denied until it is fixed (a guard fails closed)`,
      expect.stringMatching(
        new RegExp(
          `^${file}: hooks\\.PreToolUse\\[1\\]\\.matcher "Bash\\(" is not a valid regular expression: .*; the calls it would guard are denied until it is fixed \\(a guard fails closed\\)$`,
        ),
      ),
      `${file}: "hooks.PreToolUse[2].hooks[0]" needs "command", a non-empty string; the calls it would guard are denied until it is fixed (a guard fails closed)`,
      expect.stringMatching(
        new RegExp(
          `^${file}: "hooks\\.PreToolUse\\[2\\]\\.hooks\\[1\\]\\.if" "Bash\\(git \\*" is not a permission rule \\(.*\\); the calls it would guard are denied until it is fixed \\(a guard fails closed\\)$`,
        ),
      ),
      `${file}: "hooks.UserPromptSubmit[0].hooks[0]" has "if", which only tool events read (PreToolUse, PermissionRequest, PermissionDenied, PostToolUse, PostToolUseFailure): as in Claude Code, it never runs; that hook is skipped`,
      `${file}: "hooks.TaskCreated" is not an event minagent runs hooks for; its hooks are skipped`,
      `${file}: "hooks.PostToolUse" must be an array of { "matcher", "hooks" } entries, got an object; its hooks are skipped`,
    ]);
    // The guards that cannot be read deny what they would guard, naming themselves: nothing runs unguarded.
    expect(runner.hasHooks("PreToolUse")).toBe(true);
    const outcome = await runner.runPreToolUseHooks({ id: "c1", name: "Bash", arguments: { command: "rm -rf build" } });
    expect(outcome).toMatchObject({ decision: "deny" });
    expect(outcome.reason).toContain(`the PreToolUse hook "hooks.PreToolUse[0]" in ${file} cannot be read`);
    expect(runner.hasHooks("UserPromptSubmit")).toBe(false);
    // The hooks that are well formed still run.
    await runner.runStopHooks({ status: "completed", final: "Done." }, { continuations: 0 });
    expect(ran).toHaveBeenCalledOnce();
  });

  it("CodingAgent puts them in agent.warnings and starts with the rest of the file", async () => {
    mkdirSync(join(project, ".claude"));
    writeFileSync(
      join(project, ".claude", "settings.json"),
      JSON.stringify({
        permissions: { allow: ["Bash(npm test)"] },
        hooks: {
          Stop: [{ hooks: [{ type: "prompt", prompt: "Did the agent finish? $ARGUMENTS" }] }],
          PostToolUse: [{ matcher: "Edit|Write", hooks: [{ type: "command", command: "npx prettier --write ." }] }],
        },
      }),
    );
    const agent = await CodingAgent.create(new FakeModel(["ok"]), {
      workspace: project,
      claudeDirectory: false,
      userDirectory: join(project, "no-user-settings"),
      memory: false,
      subagents: false,
      sandbox: false,
    });
    expect(agent.warnings).toContain(
      `${join(project, ".claude", "settings.json")}: "hooks.Stop[0].hooks[0]" is a Stop hook of type "prompt", which is not supported by minagent (it runs "command" and "http" hooks); that hook is skipped`,
    );
    expect(agent.hooks.hasHooks("PostToolUse", "Edit")).toBe(true);
    await agent.close();
  });
});
