import { existsSync, readFileSync } from "node:fs";
import { chmod, mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { answer, anthropicEnv, callTool, printArgs, runCode, useCodeFixture } from "./code-helpers.js";

const fixture = useCodeFixture();

async function projectSettings(settings: unknown): Promise<string> {
  const folder = join(fixture.workspace, ".claude");
  await mkdir(folder, { recursive: true });
  const file = join(folder, "settings.json");
  await writeFile(file, JSON.stringify(settings));
  return file;
}

async function hookScript(name: string, body: string): Promise<string> {
  const folder = join(fixture.workspace, ".claude", "hooks");
  await mkdir(folder, { recursive: true });
  const path = join(folder, name);
  await writeFile(path, `#!/bin/sh\n${body}\n`);
  await chmod(path, 0o755);
  return `"$CLAUDE_PROJECT_DIR"/.claude/hooks/${name}`;
}

describe("minagent code -p runs a Claude Code project's hooks", () => {
  test("a PreToolUse ask denies that call with the hook's reason and the run goes on; SessionEnd runs at the end; an unsupported hook is one warning", async () => {
    const ask = await hookScript(
      "ask-before-deploy.sh",
      `cat > /dev/null
echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"deploys need a person"}}'`,
    );
    const end = await hookScript("session-end.sh", "cat > .claude/session-end.json");
    const file = await projectSettings({
      hooks: {
        PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: ask, if: "Bash(./deploy.sh *)" }] }],
        SessionEnd: [{ hooks: [{ type: "command", command: end }] }],
        Stop: [{ hooks: [{ type: "prompt", prompt: "Is the work done? $ARGUMENTS" }] }],
      },
    });
    fixture.server.reply(
      callTool("toolu_d", "Bash", { command: "./deploy.sh staging" }),
      callTool("toolu_l", "Bash", { command: "touch deploy-log.txt" }),
      answer("I could not deploy: it needs a person's approval."),
    );

    const outcome = await runCode(
      printArgs(fixture, "Deploy to staging", "--no-sandbox", "--permission-mode", "bypassPermissions"),
      anthropicEnv(fixture),
    );

    expect(outcome).toMatchObject({ exit: 0, stdout: "I could not deploy: it needs a person's approval.\n" });
    const denied = JSON.stringify(fixture.server.requests[1]?.body);
    expect(denied).toContain("deploys need a person");
    expect(denied).toContain("nobody could approve it");
    // The hook's `if` held it to the deploy: the next command ran as bypassPermissions allows.
    expect(existsSync(join(fixture.workspace, "deploy-log.txt"))).toBe(true);
    expect(JSON.parse(readFileSync(join(fixture.workspace, ".claude", "session-end.json"), "utf8"))).toMatchObject({
      hook_event_name: "SessionEnd",
      reason: "other",
      cwd: fixture.workspace,
      permission_mode: "bypassPermissions",
      transcript_path: expect.stringMatching(/transcript\.jsonl$/),
    });
    expect(outcome.stderr.split("\n").filter((line) => line.includes('"hooks.Stop[0].hooks[0]"'))).toEqual([
      `minagent code: ${file}: "hooks.Stop[0].hooks[0]" is a Stop hook of type "prompt", which is not supported by minagent (it runs "command" and "http" hooks); that hook is skipped`,
    ]);
  });

  test("a PermissionRequest hook's allow approves a call that -p would deny", async () => {
    const approve = await hookScript(
      "approve-lint.sh",
      `input=$(cat)
case "$input" in
  *'"command":"npm run lint'*) echo '{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow","updatedInput":{"command":"touch linted.txt"}}}}' ;;
esac`,
    );
    await projectSettings({ hooks: { PermissionRequest: [{ matcher: "Bash", hooks: [{ type: "command", command: approve }] }] } });
    fixture.server.reply(
      callTool("toolu_1", "Bash", { command: "npm run lint" }),
      callTool("toolu_2", "Bash", { command: "touch other.txt" }),
      answer("Linted."),
    );

    const outcome = await runCode(printArgs(fixture, "Lint the project", "--no-sandbox"), anthropicEnv(fixture));

    expect(outcome.exit).toBe(0);
    expect(existsSync(join(fixture.workspace, "linted.txt"))).toBe(true);
    // Not one the hook approves: denied as -p denies what needs a person.
    expect(existsSync(join(fixture.workspace, "other.txt"))).toBe(false);
    expect(outcome.stderr).toContain("✗ Bash not approved (-p)");
  });
});
