import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { cp, mkdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";
import { answer, anthropicEnv, type CodeFixture, callTool, runCode, sentMessages, useCodeFixture } from "./code-helpers.js";

// The real-configuration trial (issue 21): four realistic Claude Code set-ups the team wrote — a web app, a Python
// service, a monorepo, and a person's own ~/.claude — 52 files of settings, hook scripts, agents, commands, skills,
// memory and .mcp.json, run under `minagent code -p` unchanged. Each must start, apply what it says, and name in one
// line what minagent does not support. The only unsupported items the trial may meet are the two the docs list
// ("Coming from Claude Code"): statusLine and plugins.

const projects = fileURLToPath(new URL("../fixtures/claude-code-projects/", import.meta.url));
const fixture = useCodeFixture();

/** Copies a project into the fixture's workspace (a git repository with one commit) and the person's ~/.claude beside it. */
async function openProject(name: string): Promise<Record<string, string>> {
  await cp(join(projects, name), fixture.workspace, { recursive: true });
  await cp(join(projects, "home", ".claude"), join(fixture.home, ".claude"), { recursive: true });
  const git = (...args: string[]) =>
    execFileSync("git", args, {
      cwd: fixture.workspace,
      env: { ...process.env, GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@t", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@t" },
    });
  git("init", "-q", "-b", "main");
  git("add", "-A");
  git("commit", "-q", "-m", "initial");
  return { ...anthropicEnv(fixture), HOME: fixture.home, CLAUDE_CONFIG_DIR: join(fixture.home, ".claude") };
}

/** The stderr lines that say something is not supported, or not known. */
function unsupported(stderr: string): string[] {
  return stderr
    .split("\n")
    .filter((line) =>
      /not supported by minagent|not a settings key|is for a tool minagent does not have|is not an event minagent runs hooks for|does not act on/.test(
        line,
      ),
    );
}

/** What the documentation lists as not supported; nothing else may be. */
const documentedUnsupported = /"(statusLine|enabledPlugins)" is not supported by minagent/;

function systemOf(fixture: CodeFixture, index = 0): string {
  const body = fixture.server.requests[index]?.body as { system: string | { text: string }[] };
  return typeof body.system === "string" ? body.system : body.system.map((part) => part.text).join("\n");
}

describe("Claude Code projects run under minagent code unchanged", () => {
  test("a web app: deny rules hold, hooks get Claude Code's fields, @imports, agents and skills are offered, /review works in -p", async () => {
    const env = await openProject("web-app");
    fixture.server.reply(
      callTool("t1", "Read", { file_path: ".env" }),
      callTool("t2a", "Read", { file_path: "src/lib/money.ts" }),
      callTool("t2", "Edit", { file_path: "src/lib/money.ts", old_string: "toFixed(2)", new_string: "toFixed(2) /* cents */" }),
      callTool("t3", "Bash", { command: "rm -rf src" }),
      callTool("t4", "Bash", { command: 'echo "$DEBUG $NEXT_TELEMETRY_DISABLED" > env.txt' }),
      answer("Reviewed."),
    );
    const outcome = await runCode(["-p", "/review src", "--cwd", fixture.workspace, "--allowedTools", "Bash(echo:*)"], env);
    expect(outcome.exit).toBe(0);
    expect(outcome.stdout).toBe("Reviewed.\n");
    const first = sentMessages(fixture.server.requests[0]?.body);
    // The command's prompt, with its !`git status` output in it.
    expect(first[0]?.content.join("\n")).toContain("Review the current changes. Focus on src if given.");
    expect(first[0]?.content.join("\n")).not.toContain("!`git status --short`");
    // Memory: CLAUDE.md and its @imports, the person's ~/.claude/CLAUDE.md and its import.
    const system = systemOf(fixture);
    for (const text of [
      "A Next.js storefront.",
      "prices are integers in cents",
      "Named exports only.",
      "Explain changes in two sentences",
      "no enums",
    ])
      expect(system).toContain(text);
    const tools = (fixture.server.requests[0]?.body as { tools: { name: string; description: string }[] } | undefined)?.tools ?? [];
    expect(tools.find((tool) => tool.name === "Agent")?.description).toContain("code-reviewer");
    expect(tools.find((tool) => tool.name === "Skill")?.description).toContain("release-notes");
    const sent = JSON.stringify(fixture.server.requests.at(-1)?.body);
    // Read(./.env) denied: the key never reaches the model.
    expect(sent).not.toContain("sk_live_trial_do_not_leak");
    // The PostToolUse hook ran on the Edit with Claude Code's input fields.
    const log = await readFile(join(fixture.workspace, ".claude", "hooks", "format.log"), "utf8");
    expect(log).toMatch(/^formatted src\/lib\/money\.ts \(\S+ PostToolUse \S+\)\n$/);
    // The PreToolUse guard blocked rm -rf src with its reason; src is still there.
    expect(sent).toContain("Blocked by guard-bash");
    expect(existsSync(join(fixture.workspace, "src", "lib", "money.ts"))).toBe(true);
    // env from both settings files reached the command.
    expect(await readFile(join(fixture.workspace, "env.txt"), "utf8")).toBe("app:* 1\n");
    // Only what is documented as unsupported is said; here, the person's statusLine.
    expect(unsupported(outcome.stderr).every((line) => documentedUnsupported.test(line))).toBe(true);
  });

  test("a Python service: hooks that cannot run fail open once, Stop and SessionEnd hooks read their fields, the model comes from the settings", async () => {
    const env = await openProject("python-service");
    fixture.server.reply(
      callTool("p1", "Edit", { file_path: "migrations/0001_init.py", old_string: "# generated", new_string: "# edited" }),
      callTool("p2", "Read", { file_path: "app/billing.py" }),
      callTool("p3", "Edit", { file_path: "app/billing.py", old_string: 'Decimal("0")', new_string: 'Decimal("0.00")' }),
      answer("Fixed."),
    );
    const outcome = await runCode(["-p", "/fix-issue 42", "--cwd", fixture.workspace], env);
    expect(outcome.exit).toBe(0);
    expect(outcome.stdout).toBe("Fixed.\n");
    const body = fixture.server.requests[0]?.body as { model: string };
    // The command's `model: haiku` answers its run, over the settings' sonnet.
    expect(body.model).toBe("claude-haiku-4-5");
    expect(sentMessages(fixture.server.requests[0]?.body)[0]?.content.join("\n")).toContain("Fix issue #42.");
    // SessionStart's output is context; the uv hook could not run and said so once.
    expect(systemOf(fixture) + JSON.stringify(fixture.server.requests[0]?.body)).toContain("Service: billing-api");
    expect(outcome.stderr.match(/UserPromptSubmit hook \(uv…\) failed and was skipped/g)).toHaveLength(1);
    // Edit(migrations/**) denied; acceptEdits (defaultMode) let the other edit through.
    expect(await readFile(join(fixture.workspace, "migrations", "0001_init.py"), "utf8")).toBe("# generated by alembic\n");
    expect(await readFile(join(fixture.workspace, "app", "billing.py"), "utf8")).toContain('Decimal("0.00")');
    // The Stop hook read session_id, transcript_path (a file that exists), permission_mode.
    const stop = JSON.parse((await readFile(join(fixture.workspace, ".claude", "stop.log"), "utf8")).trim());
    expect(stop).toMatchObject({ event: "Stop", transcript_exists: true, mode: "acceptEdits" });
    expect(await readFile(join(fixture.workspace, ".claude", "session-end.log"), "utf8")).toMatch(/^SessionEnd \S+\n$/);
    // The broken files are named, and skipped; the rest of the session ran.
    expect(outcome.stderr).toContain("bad-front-matter.md");
    expect(outcome.stderr).toContain("broken-skill");
    expect(unsupported(outcome.stderr).every((line) => documentedUnsupported.test(line))).toBe(true);
  });

  test("a monorepo: a JSON-deciding PreToolUse hook, Task(general-purpose) denied, namespaced commands with @file, plugins named as unsupported", async () => {
    const env = await openProject("monorepo");
    await mkdir(join(fixture.workspace, "..", "shared-configs"), { recursive: true }).catch(() => undefined);
    fixture.server.reply(
      callTool("m0", "Read", { file_path: "pnpm-lock.yaml" }),
      callTool("m1", "Edit", { file_path: "pnpm-lock.yaml", old_string: "9.0", new_string: "9.1" }),
      callTool("m2", "Agent", { subagent_type: "general-purpose", description: "look", prompt: "look around" }),
      answer("Described."),
    );
    const outcome = await runCode(["-p", "/pr:describe", "--cwd", fixture.workspace, "--permission-mode", "acceptEdits"], env);
    expect(outcome.exit).toBe(0);
    const prompt = sentMessages(fixture.server.requests[0]?.body)[0]?.content.join("\n") ?? "";
    expect(prompt).toContain("Draft a pull request description");
    expect(prompt).toContain("## How tested");
    expect(await readFile(join(fixture.workspace, "pnpm-lock.yaml"), "utf8")).toBe("lockfileVersion: '9.0'\n");
    const sent = JSON.stringify(fixture.server.requests.at(-1)?.body);
    expect(sent).toContain("pnpm-lock.yaml is generated");
    // The deny rule refused the general-purpose subagent: no second model call was made for it.
    expect(fixture.server.requests).toHaveLength(4);
    const lines = unsupported(outcome.stderr);
    expect(lines.filter((line) => line.includes('"enabledPlugins"'))).toHaveLength(1);
    expect(lines.every((line) => documentedUnsupported.test(line))).toBe(true);
  });

  test("the trial as a whole meets only the two documented unsupported items", async () => {
    const seen = new Set<string>();
    for (const name of ["web-app", "python-service", "monorepo"]) {
      const env = await openProject(name);
      fixture.server.reply(answer("Hello."));
      const outcome = await runCode(["-p", "Hello", "--cwd", fixture.workspace, "--model", "anthropic:claude-haiku-4-5"], env);
      expect(outcome.exit, `${name}: ${outcome.stderr}`).toBe(0);
      for (const line of unsupported(outcome.stderr)) seen.add(/"([^"]+)"/.exec(line)?.[1] ?? line);
      await fixture.close();
      Object.assign(fixture, await (await import("./code-helpers.js")).openCodeFixture());
    }
    expect([...seen].sort()).toEqual(["enabledPlugins", "statusLine"]);
  });
});
