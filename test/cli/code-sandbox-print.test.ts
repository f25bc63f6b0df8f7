import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { findBubblewrap } from "../../src/code/sandbox/bubblewrap.js";
import { type BinOutcome, startBuiltBin } from "./built-bin.js";
import { answer, anthropicEnv, callTool, haiku, sentMessages, useCodeFixture } from "./code-helpers.js";

// The OS sandbox as a script meets it in `minagent code -p`: the built bin, a scripted Anthropic server, the json
// result's `sandbox` field, and Bash calls that write inside and outside the workspace. Writes outside go to a folder
// under /var/tmp (the sandbox gives commands a /tmp of their own, so /tmp would prove nothing).

const hasBubblewrap = !("problem" in (await findBubblewrap()));

const fixture = useCodeFixture();
let outside: string;
let noBwrapPath: string;
beforeEach(async () => {
  outside = await mkdtemp("/var/tmp/minagent-sandbox-outside-");
  // A PATH with node, the shells and a few coreutils (true and sleep, which the sandbox runs), but no bubblewrap.
  noBwrapPath = await mkdtemp(join(tmpdir(), "minagent-sandbox-path-"));
  for (const program of ["bash", "sh", "env", "touch", "cat", "ls", "mkdir", "true", "sleep"]) {
    const found = ["/usr/bin", "/bin"].map((folder) => join(folder, program)).find((path) => existsSync(path));
    if (found) await symlink(found, join(noBwrapPath, program));
  }
  await symlink(process.execPath, join(noBwrapPath, "node"));
});
afterEach(async () => {
  await rm(outside, { recursive: true, force: true });
  await rm(noBwrapPath, { recursive: true, force: true });
});

/** Runs `minagent code …` with only `env` (PATH: this process's unless `env` gives one); stdin closed. */
function runBin(args: string[], env: Record<string, string>): Promise<BinOutcome> {
  const { child, done } = startBuiltBin(["code", ...args], env);
  return done.catch((error: unknown) => {
    if (child.pid && child.exitCode === null) process.kill(child.pid, "SIGKILL");
    throw error;
  });
}

/** `-p <prompt> --output-format json` in the fixture's workspace. */
const jsonRun = (prompt: string, ...more: string[]) => [
  "-p",
  prompt,
  "--model",
  haiku,
  "--cwd",
  fixture.workspace,
  "--output-format",
  "json",
  ...more,
];

/** The tool_result text the request at `index` sent back for the model's last call. */
function toolResult(index: number): string {
  return sentMessages(fixture.server.requests.at(index)?.body).at(-1)?.content[0] ?? "";
}

async function projectSettings(settings: object): Promise<void> {
  await mkdir(join(fixture.workspace, ".minagent"), { recursive: true });
  await writeFile(join(fixture.workspace, ".minagent", "settings.json"), JSON.stringify(settings));
}

describe.skipIf(!hasBubblewrap)("minagent code -p with the sandbox", () => {
  test("json says the sandbox is on; a Bash write in the workspace runs without asking, one outside does not land", async () => {
    const target = join(outside, "escaped.txt");
    fixture.server.reply(
      callTool("b1", "Bash", { command: "echo made > inside.txt" }),
      callTool("b2", "Bash", { command: `touch ${target}` }),
      answer("Done."),
    );
    const outcome = await runBin(jsonRun("make the files"), anthropicEnv(fixture));
    expect(outcome.stderr).toBe("");
    expect(outcome.code).toBe(0);
    const result = JSON.parse(outcome.stdout);
    expect(result).toMatchObject({ status: "completed", result: "Done.", permission_denials: [] });
    expect(result.sandbox).toEqual({
      enabled: true,
      requested: true,
      mechanism: "bubblewrap",
      problem: null,
      writable: [fixture.workspace],
      allowed_domains: [],
    });
    expect(existsSync(join(fixture.workspace, "inside.txt"))).toBe(true);
    // Default mode would ask (and -p deny) a write outside; in the sandbox it runs and the file system refuses it.
    expect(existsSync(target)).toBe(false);
    expect(toolResult(2)).toMatch(/Read-only file system/);
    expect(toolResult(2)).toMatch(/Exit code: 1/);
  });

  test("--no-sandbox: json says off and not requested, and a Bash write is judged by the rules again (denied in -p)", async () => {
    fixture.server.reply(callTool("b1", "Bash", { command: "echo made > inside.txt" }), answer("Could not."));
    const outcome = await runBin(jsonRun("make the file", "--no-sandbox"), anthropicEnv(fixture));
    expect(outcome).toMatchObject({ code: 0, stderr: "" });
    const result = JSON.parse(outcome.stdout);
    expect(result.sandbox).toEqual({
      enabled: false,
      requested: false,
      mechanism: null,
      problem: null,
      writable: [],
      allowed_domains: [],
    });
    expect(result.permission_denials).toEqual([
      { tool_name: "Bash", tool_use_id: "b1", tool_input: { command: "echo made > inside.txt" } },
    ]);
    expect(existsSync(join(fixture.workspace, "inside.txt"))).toBe(false);
  });

  test("--sandbox turns it on over a settings file that turns it off; --sandbox with --no-sandbox is misuse (exit 2)", async () => {
    await projectSettings({ sandbox: { enabled: false } });
    fixture.server.reply(answer("Hi."), answer("Hi."));
    const off = JSON.parse((await runBin(jsonRun("hi"), anthropicEnv(fixture))).stdout);
    expect(off.sandbox).toMatchObject({ enabled: false, requested: false });
    const on = JSON.parse((await runBin(jsonRun("hi", "--sandbox"), anthropicEnv(fixture))).stdout);
    expect(on.sandbox).toMatchObject({ enabled: true, requested: true, mechanism: "bubblewrap" });

    const both = await runBin(jsonRun("hi", "--sandbox", "--no-sandbox"), anthropicEnv(fixture));
    expect(both).toMatchObject({ code: 2, stdout: "" });
    expect(both.stderr).toMatch(/^minagent code: --sandbox and --no-sandbox cannot be used together; choose one\n/);
    expect(fixture.server.requests).toHaveLength(2);
  });

  test("bubblewrap missing: one loud line on stderr, json says off with the problem, and the run completes judged as before", async () => {
    fixture.server.reply(callTool("b1", "Bash", { command: "echo made > inside.txt" }), answer("Could not."));
    const outcome = await runBin(jsonRun("make the file"), { ...anthropicEnv(fixture), PATH: noBwrapPath });
    expect(outcome.code).toBe(0);
    const lines = outcome.stderr.split("\n").filter((line) => line !== "");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^minagent code: ⚠ sandbox: OFF — bubblewrap is not installed \(.*apt-get install bubblewrap.*\)\. Bash commands run unconfined/,
    );
    const result = JSON.parse(outcome.stdout);
    expect(result.status).toBe("completed");
    expect(result.sandbox).toEqual({
      enabled: false,
      requested: true,
      mechanism: null,
      problem: expect.stringMatching(/^bubblewrap is not installed/),
      writable: [],
      allowed_domains: [],
    });
    // Without the sandbox a write is asked about, which -p denies: the rules judge it as they did before the sandbox.
    expect(result.permission_denials).toMatchObject([{ tool_name: "Bash", tool_use_id: "b1" }]);
    expect(existsSync(join(fixture.workspace, "inside.txt"))).toBe(false);
  });

  test("socat missing with allowedDomains: the sandbox is on, but stderr and json say commands reach no network", async () => {
    for (const program of ["bwrap", "nsenter"]) await symlink(join("/usr/bin", program), join(noBwrapPath, program));
    await projectSettings({ sandbox: { network: { allowedDomains: ["example.com"] } } });
    fixture.server.reply(callTool("b1", "Bash", { command: "echo made > inside.txt" }), answer("Done."));
    const outcome = await runBin(jsonRun("make the file"), { ...anthropicEnv(fixture), PATH: noBwrapPath });
    expect(outcome.code).toBe(0);
    expect(outcome.stderr).toBe(
      "minagent code: sandbox: on (bubblewrap) · writes: the workspace · ⚠ socat is not installed: commands reach no network, not even allowedDomains\n",
    );
    const result = JSON.parse(outcome.stdout);
    expect(result.sandbox).toMatchObject({ enabled: true, problem: expect.stringMatching(/^socat is not installed/) });
    expect(result.permission_denials).toEqual([]);
    expect(existsSync(join(fixture.workspace, "inside.txt"))).toBe(true);
  });

  test("sandbox.failIfUnavailable with bubblewrap missing: exit 2 naming bubblewrap, before the model is called or any command runs", async () => {
    await projectSettings({ sandbox: { failIfUnavailable: true } });
    fixture.server.reply(callTool("b1", "Bash", { command: "echo made > inside.txt" }), answer("Done."));
    const outcome = await runBin(jsonRun("make the file", "--dangerously-skip-permissions"), {
      ...anthropicEnv(fixture),
      PATH: noBwrapPath,
    });
    expect(outcome).toMatchObject({ code: 2, stdout: "" });
    expect(outcome.stderr).toMatch(
      /^minagent code: The sandbox is required \(sandbox\.failIfUnavailable\) but cannot run: bubblewrap is not installed/,
    );
    expect(fixture.server.requests).toHaveLength(0);
    expect(existsSync(join(fixture.workspace, "inside.txt"))).toBe(false);
  });

  describe("a call asking to run outside the sandbox (dangerouslyDisableSandbox)", () => {
    const leave = () => callTool("u1", "Bash", { command: `touch ${join(outside, "out.txt")}`, dangerouslyDisableSandbox: true });

    test("is refused in -p, also with --dangerously-skip-permissions and an allow rule: listed in permission_denials, not run", async () => {
      for (const more of [[], ["--dangerously-skip-permissions"], ["--allowedTools", "Bash(touch:*)"]]) {
        fixture.server.reply(leave(), answer("It needs you."));
        const outcome = await runBin(jsonRun("touch it", ...more), anthropicEnv(fixture));
        expect(outcome.code).toBe(0);
        const result = JSON.parse(outcome.stdout);
        expect(result.permission_denials, more.join(" ")).toEqual([
          {
            tool_name: "Bash",
            tool_use_id: "u1",
            tool_input: { command: `touch ${join(outside, "out.txt")}`, dangerouslyDisableSandbox: true },
          },
        ]);
        expect(toolResult(-1)).toMatch(/Not approved: .*outside the sandbox/);
        expect(existsSync(join(outside, "out.txt"))).toBe(false);
      }
    });

    test("with allowUnsandboxedCommands: true it is judged by rules and mode: an allow rule lets it run unconfined", async () => {
      await projectSettings({ sandbox: { allowUnsandboxedCommands: true } });
      // No rule: default mode asks about a write outside the workspace, and -p denies it.
      fixture.server.reply(leave(), answer("Not allowed."));
      const denied = JSON.parse((await runBin(jsonRun("touch it"), anthropicEnv(fixture))).stdout);
      expect(denied.permission_denials).toMatchObject([{ tool_use_id: "u1" }]);
      expect(existsSync(join(outside, "out.txt"))).toBe(false);

      fixture.server.reply(leave(), answer("Touched."));
      const outcome = await runBin(jsonRun("touch it", "--allowedTools", "Bash(touch:*)"), anthropicEnv(fixture));
      expect(outcome.code).toBe(0);
      const result = JSON.parse(outcome.stdout);
      expect(result).toMatchObject({ status: "completed", permission_denials: [] });
      expect(result.sandbox).toMatchObject({ enabled: true });
      expect(existsSync(join(outside, "out.txt"))).toBe(true);
    });

    test("with allowUnsandboxedCommands: false it is refused as well, even in bypassPermissions mode", async () => {
      await projectSettings({ sandbox: { allowUnsandboxedCommands: false } });
      fixture.server.reply(leave(), answer("Refused."));
      const outcome = await runBin(jsonRun("touch it", "--dangerously-skip-permissions"), anthropicEnv(fixture));
      expect(outcome.code).toBe(0);
      expect(JSON.parse(outcome.stdout).permission_denials).toMatchObject([{ tool_use_id: "u1" }]);
      expect(existsSync(join(outside, "out.txt"))).toBe(false);
    });
  });
});
