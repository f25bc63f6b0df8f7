import { existsSync, readFileSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { answer, anthropicEnv, callTool, printArgs, runCode, useCodeFixture } from "./code-helpers.js";

const fixture = useCodeFixture();

async function writeSettings(folder: string, file: string, settings: unknown): Promise<void> {
  await mkdir(folder, { recursive: true });
  await writeFile(join(folder, file), JSON.stringify(settings));
}

describe("minagent code reads Claude Code's settings files too", () => {
  test("a deny rule in the project's .claude/settings.json holds: the model may not read .env", async () => {
    await writeFile(join(fixture.workspace, ".env"), "API_TOKEN=do-not-show-me\n");
    await writeSettings(join(fixture.workspace, ".claude"), "settings.json", { permissions: { deny: ["Read(./.env)"] } });
    fixture.server.reply(callTool("toolu_r", "Read", { file_path: ".env" }), answer("I may not read it."));
    const outcome = await runCode(printArgs(fixture, "Show me .env", "--permission-mode", "bypassPermissions"), anthropicEnv(fixture));
    expect(outcome.exit).toBe(0);
    const sent = JSON.stringify(fixture.server.requests.at(-1)?.body);
    expect(sent).toContain('"is_error":true');
    expect(sent).not.toContain("do-not-show-me");
  });

  test("the user's Claude Code settings (CLAUDE_CONFIG_DIR) count, and at each level minagent's file wins over Claude Code's", async () => {
    const env = anthropicEnv(fixture);
    // The user's Claude Code file denies one Write; the project's .claude file says plan mode, its .minagent file acceptEdits.
    await writeSettings(join(fixture.home, "claude"), "settings.json", { permissions: { deny: ["Write(blocked.txt)"] } });
    await writeSettings(join(fixture.workspace, ".claude"), "settings.json", { permissions: { defaultMode: "plan" } });
    await writeSettings(join(fixture.workspace, ".minagent"), "settings.json", { permissions: { defaultMode: "acceptEdits" } });
    fixture.server.reply(
      callTool("toolu_a", "Write", { file_path: "allowed.txt", content: "written\n" }),
      callTool("toolu_b", "Write", { file_path: "blocked.txt", content: "written\n" }),
      answer("Done."),
    );
    const outcome = await runCode(printArgs(fixture, "Write the files"), env);
    expect(outcome.exit).toBe(0);
    // acceptEdits (ours), not plan (Claude Code's at the same level): the Write ran without asking.
    expect(existsSync(join(fixture.workspace, "allowed.txt"))).toBe(true);
    // The user's ~/.claude deny rule applies.
    expect(existsSync(join(fixture.workspace, "blocked.txt"))).toBe(false);
  });

  test("the project's .claude/settings.local.json wins over its .claude/settings.json", async () => {
    await writeSettings(join(fixture.workspace, ".claude"), "settings.json", { permissions: { defaultMode: "acceptEdits" } });
    await writeSettings(join(fixture.workspace, ".claude"), "settings.local.json", { permissions: { defaultMode: "plan" } });
    fixture.server.reply(callTool("toolu_a", "Write", { file_path: "allowed.txt", content: "written\n" }), answer("Planned."));
    const outcome = await runCode(printArgs(fixture, "Write the file"), anthropicEnv(fixture));
    expect(outcome.exit).toBe(0);
    // Plan mode (the local file's) writes nothing; acceptEdits (the shared file's) would have.
    expect(existsSync(join(fixture.workspace, "allowed.txt"))).toBe(false);
  });

  test("Claude Code's memory files reach the system prompt: ~/.claude/CLAUDE.md, the project's CLAUDE.md and CLAUDE.local.md", async () => {
    await mkdir(join(fixture.home, "claude"), { recursive: true });
    await writeFile(join(fixture.home, "claude", "CLAUDE.md"), "The user prefers short answers.\n");
    await writeFile(join(fixture.workspace, "CLAUDE.md"), "This project uses tabs.\n");
    await writeFile(join(fixture.workspace, "CLAUDE.local.md"), "My sandbox URL is http://localhost:3000.\n");
    fixture.server.reply(answer("Noted."));
    const outcome = await runCode(printArgs(fixture, "Hello"), anthropicEnv(fixture));
    expect(outcome.exit).toBe(0);
    const body = fixture.server.requests[0]?.body as { system: string | { text: string }[] };
    const system = typeof body.system === "string" ? body.system : body.system.map((part) => part.text).join("\n");
    const order = ["The user prefers short answers.", "This project uses tabs.", "My sandbox URL is http://localhost:3000."].map((text) =>
      system.indexOf(text),
    );
    expect(order.every((index) => index >= 0)).toBe(true);
    // Most general first: the user's, the project's, the personal one.
    expect([...order].sort((a, b) => a - b)).toEqual(order);
  });

  test("a key minagent does not act on is one warning line naming the file and the key; the rest of the file applies", async () => {
    const file = join(fixture.workspace, ".claude", "settings.json");
    await writeSettings(join(fixture.workspace, ".claude"), "settings.json", {
      $schema: "https://json.schemastore.org/claude-code-settings.json",
      spinnerTipsEnabled: false,
      permisions: { allow: ["Bash"] },
      permissions: { deny: ["Write(blocked.txt)"], disableBypassPermissionsMode: "disable" },
    });
    fixture.server.reply(callTool("toolu_b", "Write", { file_path: "blocked.txt", content: "x" }), answer("Refused."));
    const outcome = await runCode(printArgs(fixture, "Write it", "--permission-mode", "acceptEdits"), anthropicEnv(fixture));
    expect(outcome.exit).toBe(0);
    expect(outcome.stderr.split("\n").filter((line) => line.includes(file))).toEqual([
      `minagent code: ${file}: "spinnerTipsEnabled" is not supported by minagent (ignored)`,
      `minagent code: ${file}: "permisions" is not a settings key minagent or Claude Code knows (a typo?); ignored`,
      `minagent code: ${file}: "permissions.disableBypassPermissionsMode" is not supported by minagent (ignored)`,
    ]);
    expect(existsSync(join(fixture.workspace, "blocked.txt"))).toBe(false);
  });

  test("a hook that cannot run (a program not installed) is said once on stderr and the prompt goes on, as in Claude Code", async () => {
    await writeSettings(join(fixture.workspace, ".claude"), "settings.json", {
      hooks: { UserPromptSubmit: [{ hooks: [{ type: "command", command: "uv-not-installed-here run check_prompt.py" }] }] },
    });
    fixture.server.reply(answer("Hello."));
    const outcome = await runCode(printArgs(fixture, "Hi"), anthropicEnv(fixture));
    expect(outcome).toMatchObject({ exit: 0, stdout: "Hello.\n" });
    expect(
      outcome.stderr.match(/a UserPromptSubmit hook \(uv-not-installed-here…\) failed and was skipped; the session goes on/g),
    ).toHaveLength(1);
  });

  test("CLAUDE.md's @imports reach the system prompt, a missing one is one warning, and --verbose names every file read", async () => {
    await mkdir(join(fixture.workspace, "docs"), { recursive: true });
    await writeFile(join(fixture.workspace, "CLAUDE.md"), "Read @docs/conventions.md and @docs/gone.md before you start.\n");
    await writeFile(join(fixture.workspace, "docs", "conventions.md"), "Conventions: every module has a README.\n");
    await writeSettings(join(fixture.workspace, ".claude"), "settings.json", { permissions: { allow: ["Read"] } });
    fixture.server.reply(answer("Noted."));
    const outcome = await runCode(printArgs(fixture, "Hello", "--verbose"), anthropicEnv(fixture));
    expect(outcome.exit).toBe(0);
    const body = fixture.server.requests[0]?.body as { system: string | { text: string }[] };
    const system = typeof body.system === "string" ? body.system : body.system.map((part) => part.text).join("\n");
    expect(system).toContain("Conventions: every module has a README.");
    const claudeFile = join(fixture.workspace, "CLAUDE.md");
    const lines = outcome.stderr.split("\n");
    expect(lines.filter((line) => line.includes("docs/gone.md"))).toEqual([
      `minagent code: ${claudeFile} imports @docs/gone.md, which does not exist: the import is skipped.`,
    ]);
    expect(lines).toContain(`minagent code: settings files read: ${join(fixture.workspace, ".claude", "settings.json")}`);
    expect(lines).toContain(
      `minagent code: memory files read: ${claudeFile}, ${join(fixture.workspace, "docs", "conventions.md")} (imported by ${claudeFile})`,
    );
    expect(lines.filter((line) => line.includes("files read"))).toHaveLength(2);
  });

  test("the settings' env reaches Bash commands, and disableAllHooks turns the settings' hooks off", async () => {
    const claude = join(fixture.workspace, ".claude");
    await writeSettings(claude, "settings.json", {
      env: { PROJECT_FLAVOUR: "blue", RETRIES: 3 },
      permissions: { allow: ["Bash"] },
      hooks: { UserPromptSubmit: [{ hooks: [{ type: "command", command: "echo blocked by hook >&2; exit 2" }] }] },
    });
    await writeSettings(claude, "settings.local.json", { disableAllHooks: true, env: { PROJECT_FLAVOUR: "green" } });
    fixture.server.reply(callTool("toolu_e", "Bash", { command: 'echo "$PROJECT_FLAVOUR $RETRIES" > flavour.txt' }), answer("Written."));
    const outcome = await runCode(printArgs(fixture, "Write the flavour"), anthropicEnv(fixture));
    expect(outcome).toMatchObject({ exit: 0, stdout: "Written.\n" });
    // The local file's value wins over the shared file's; numbers are taken as their text.
    expect(readFileSync(join(fixture.workspace, "flavour.txt"), "utf8")).toBe("green 3\n");
    expect(outcome.stderr).not.toContain("blocked by hook");
    expect(outcome.stderr).not.toContain('"env"');
  });

  test("the settings' model (an alias, as Claude Code writes it) chooses the model when no --model is given; alwaysThinkingEnabled turns on thinking", async () => {
    await writeSettings(join(fixture.home, "claude"), "settings.json", {
      model: "opus",
      alwaysThinkingEnabled: true,
      includeCoAuthoredBy: false,
    });
    await writeSettings(join(fixture.workspace, ".claude"), "settings.json", { model: "sonnet" });
    fixture.server.reply(answer("Hello."));
    const outcome = await runCode(["-p", "Hi", "--cwd", fixture.workspace], anthropicEnv(fixture));
    expect(outcome).toMatchObject({ exit: 0, stdout: "Hello.\n" });
    const body = fixture.server.requests[0]?.body as { model: string; thinking?: { type: string; budget_tokens: number } };
    // The project's file is more specific than the user's.
    expect(body.model).toBe("claude-sonnet-4-6");
    expect(body.thinking).toEqual({ type: "enabled", budget_tokens: 10_000 });
    // includeCoAuthoredBy: false is what minagent does anyway: nothing to warn about.
    expect(outcome.stderr).toBe("");
    // --model still wins over the settings.
    fixture.server.reply(answer("Hello again."));
    await runCode(printArgs(fixture, "Hi"), anthropicEnv(fixture));
    expect((fixture.server.requests[1]?.body as { model: string } | undefined)?.model).toBe("claude-haiku-4-5");
  });
});
