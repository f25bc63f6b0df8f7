import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { findBubblewrap } from "../../src/code/sandbox/bubblewrap.js";
import { startWireServer, type WireRequest, type WireServer } from "../../src/testing/wire-server.js";
import { anthropicStream } from "../helpers/wire-bodies.js";
import { bin, hasTmux, Pane } from "./tmux-pane.js";

// The OS sandbox as a person meets it in `minagent code`: the built bin in a tmux pane (as in
// code-interactive-tmux.test.ts), a scripted Anthropic server, Bash calls inside and outside the sandbox, a host the
// sandbox's proxy asks about, and a folder whose settings turn the sandbox off. Writes outside the workspace go to a
// folder under /var/tmp (/tmp is read-only to commands).

const hasBubblewrap = !("problem" in (await findBubblewrap()));
const hasCurl = spawnSync("curl", ["--version"]).status === 0;

type Block = Parameters<typeof anthropicStream>[0][number];
const reply = (blocks: Block[], stop: string) => ({ sse: anthropicStream(blocks, stop, { input_tokens: 1500, output_tokens: 30 }) });
const say = (text: string) => reply([{ type: "text", text }], "end_turn");
const bash = (id: string, input: Record<string, unknown>) => reply([{ type: "tool_use", id, name: "Bash", input }], "tool_use");

/** The tool results a request sent (its last message's tool_result blocks). */
function toolResults(request: WireRequest | undefined): { tool_use_id: string; content: string; is_error?: boolean }[] {
  const body = request?.body as { messages: { content: { type: string }[] }[] } | undefined;
  return (body?.messages.at(-1)?.content ?? []).filter((block) => block.type === "tool_result") as never;
}

/** The screen with its wrapped lines joined (indents and line breaks as one space). */
function flat(screen: string): string {
  return screen.replace(/\s*\n\s*/g, " ");
}

describe.skipIf(!hasTmux || !hasBubblewrap)("minagent code on a terminal with the sandbox (tmux)", () => {
  let server: WireServer;
  let workspace: string;
  let home: string;
  let outside: string;
  let pane: Pane;
  let env: Record<string, string>;

  beforeEach(async () => {
    if (!existsSync(bin)) throw new Error(`${bin} is missing: npm test builds it first (or set MINAGENT_TEST_BIN)`);
    server = await startWireServer();
    workspace = await mkdtemp(join(tmpdir(), "minagent-sandbox-tmux-workspace-"));
    home = await mkdtemp(join(tmpdir(), "minagent-sandbox-tmux-home-"));
    outside = await mkdtemp("/var/tmp/minagent-sandbox-tmux-outside-");
    env = { ANTHROPIC_API_KEY: "sk-ant-test", ANTHROPIC_BASE_URL: server.url, MINAGENT_HOME: home, HOME: home };
    pane = new Pane({ columns: 120, rows: 40 });
  });

  afterEach(async () => {
    await pane.kill();
    await server.close();
    for (const folder of [workspace, home, outside]) await rm(folder, { recursive: true, force: true });
  });

  const start = async (...args: string[]) => {
    await pane.start(workspace, env, ["--model", "anthropic:claude-haiku-4-5", ...args]);
    return pane.waitFor(/^>/m);
  };
  const prompt = async (text: string) => {
    await pane.type(text);
    await pane.keys("Enter");
  };

  test("the banner and /sandbox; a sandboxed write runs unasked; leaving the sandbox is asked every time, with no rule offered", async () => {
    const escaped = join(outside, "escaped.txt");
    const leave = { command: `touch ${escaped}`, dangerouslyDisableSandbox: true, description: "Touch a file outside" };
    server.reply(
      bash("b1", { command: "echo made > inside.txt" }),
      bash("u1", leave),
      bash("u2", leave),
      bash("u3", leave),
      say("All done."),
    );
    const banner = await start();
    expect(banner).toMatch(/^sandbox: on \(bubblewrap\) · writes: the workspace · network: none allowed; other hosts are asked about$/m);

    await prompt("/sandbox");
    const described = await pane.waitFor("a call asking to run outside:");
    expect(described).toContain(`  writable: ${workspace}, `);
    expect(described).toMatch(/ {2}network: none allowed; other hosts are asked about\n/);
    expect(described).toMatch(/ {2}Unix sockets: closed\n/);
    expect(described).toMatch(/ {2}a call asking to run outside: asked every time; refused in -p\n/);

    await prompt("make the files");
    await pane.waitFor("✓ Bash(echo made > inside.txt)");
    expect(await readFile(join(workspace, "inside.txt"), "utf8")).toBe("made\n");

    const asked = await pane.waitFor(`Allow Bash(touch ${escaped})?`);
    expect(asked).not.toContain("Allow Bash(echo made");
    expect(asked).toContain("  Touch a file outside");
    // The reason is wrapped, not cut: its end says why it asks.
    expect(flat(asked)).toContain("asks to run outside the sandbox (dangerouslyDisableSandbox), so it needs approval)");
    expect(asked).toMatch(/› 1\. Yes\n +2\. No, and tell the agent why\n/);
    expect(asked).not.toContain("don't ask again");
    expect(asked).not.toContain("always allow");
    await pane.keys("2");
    await pane.waitFor("Why not? (the agent reads this; Enter to skip) ›");
    await pane.type("stay inside");
    await pane.keys("Enter");
    await pane.waitFor(`✗ Bash(touch ${escaped}) · The user denied this call: stay inside`);
    expect(existsSync(escaped)).toBe(false);

    // Yes runs it outside; the same call again is asked again: no session rule answers for the person.
    await pane.waitFor((screen) => screen.split(`Allow Bash(touch ${escaped})?`).length === 2 && screen.includes("stay inside"));
    await pane.keys("1");
    await pane.waitFor(`✓ Bash(touch ${escaped})`);
    expect(existsSync(escaped)).toBe(true);
    await pane.waitFor(`Allow Bash(touch ${escaped})?`);
    await pane.keys("1");
    await pane.waitFor("All done.");

    expect(toolResults(server.requests[2])).toEqual([
      { type: "tool_result", tool_use_id: "u1", content: "The user denied this call: stay inside", is_error: true },
    ]);
    expect(toolResults(server.requests[3])[0]).toMatchObject({ tool_use_id: "u2" });
    expect(toolResults(server.requests[3])[0]?.is_error).toBeFalsy();
    expect(server.requests).toHaveLength(5);
  }, 40_000);

  test.skipIf(!hasCurl)(
    "a host nothing allows is put to the person; no gives curl the proxy's refusal",
    async () => {
      await mkdir(join(workspace, ".minagent"));
      await writeFile(join(workspace, ".minagent", "settings.json"), JSON.stringify({ sandbox: { network: { allowedDomains: [] } } }));
      server.reply(bash("c1", { command: "curl -sS http://some.invalid/" }), say("The host was refused."));
      await start();
      await prompt("fetch it");
      // The question is drawn in more than one write: wait for its last line, or the capture may catch it half-drawn.
      const asked = await pane.waitFor("2. No (the command's request is refused)");
      expect(asked).toContain("⋯ Bash(curl -sS http://some.invalid/)\nAllow Network(some.invalid:80)?");
      expect(flat(asked)).toContain(
        "(a sandboxed command wants to reach some.invalid:80; yes opens some.invalid for the rest of this session, sandbox.network.allowedDomains in .minagent/settings.json for good)",
      );
      expect(asked).toMatch(/› 1\. Yes, for the rest of this session\n +2\. No \(the command's request is refused\)\n/);
      expect(asked).not.toContain("tell the agent why");
      await pane.keys("2");
      // Nobody reads a reason for a host: no question follows, the command goes on with the refusal.
      const done = await pane.waitFor("The host was refused.");
      expect(done).not.toContain("Why not?");
      const [result] = toolResults(server.requests[1]);
      expect(result?.tool_use_id).toBe("c1");
      expect(result?.content).toContain("minagent's sandbox refused network access to some.invalid:80: a person refused it.");
    },
    30_000,
  );

  test("with allowUnsandboxedCommands: false a call asking to leave is refused without a prompt, and /sandbox says so", async () => {
    await mkdir(join(workspace, ".minagent"));
    await writeFile(join(workspace, ".minagent", "settings.json"), JSON.stringify({ sandbox: { allowUnsandboxedCommands: false } }));
    const escaped = join(outside, "escaped.txt");
    server.reply(bash("u1", { command: `touch ${escaped}`, dangerouslyDisableSandbox: true }), say("Refused, then."));
    await start();
    await prompt("/sandbox");
    await pane.waitFor("  a call asking to run outside: refused (allowUnsandboxedCommands: false)");
    await prompt("touch it outside");
    const done = await pane.waitFor("Refused, then.");
    expect(done).not.toContain("Allow Bash(");
    expect(done).toContain(`✗ Bash(touch ${escaped}) · Running outside the sandbox is turned off`);
    expect(toolResults(server.requests[1])[0]).toMatchObject({
      tool_use_id: "u1",
      is_error: true,
      content: expect.stringContaining("so the user was not asked"),
    });
    expect(existsSync(escaped)).toBe(false);
  }, 30_000);

  test("with the sandbox off, dangerouslyDisableSandbox changes nothing: a session rule answers the call as any other", async () => {
    server.reply(
      bash("b1", { command: "touch b.txt" }),
      bash("b2", { command: "touch b.txt", dangerouslyDisableSandbox: true }),
      say("Both done."),
    );
    expect(await start("--no-sandbox")).toMatch(/^sandbox: off \(sandbox\.enabled is false or --no-sandbox\)/m);
    await prompt("touch it twice");
    await pane.waitFor("Allow Bash(touch b.txt)?");
    await pane.keys("2");
    await pane.waitFor("Allowed for this session: Bash(touch b.txt)");
    const done = await pane.waitFor("Both done.");
    expect(done.split("✓ Bash(touch b.txt)")).toHaveLength(3);
    expect(done.split("Allow Bash(")).toHaveLength(1);
  }, 30_000);

  test("bubblewrap missing: the banner says so loudly, and Bash calls are asked about as without a sandbox", async () => {
    const path = await mkdtemp(join(tmpdir(), "minagent-sandbox-tmux-path-"));
    try {
      for (const program of ["bash", "sh", "env", "touch"])
        await symlink(
          ["/usr/bin", "/bin"].map((folder) => join(folder, program)).find((file) => existsSync(file)) ?? program,
          join(path, program),
        );
      env.PATH = path;
      server.reply(bash("b1", { command: "touch inside.txt" }), say("OK."));
      const banner = await start();
      expect(banner).toMatch(/^⚠ sandbox: OFF — bubblewrap is not installed \(/m);
      await prompt("touch it");
      await pane.waitFor("Allow Bash(touch inside.txt)?");
      await pane.keys("1");
      await pane.waitFor("OK.");
      expect(existsSync(join(workspace, "inside.txt"))).toBe(true);
    } finally {
      await rm(path, { recursive: true, force: true });
    }
  }, 30_000);

  test("a folder whose settings turn the sandbox off is asked about first: no keeps the sandbox on, yes turns it off", async () => {
    await mkdir(join(workspace, ".minagent"));
    await writeFile(join(workspace, ".minagent", "settings.json"), JSON.stringify({ sandbox: { enabled: false } }));
    await pane.start(workspace, env, ["--model", "anthropic:claude-haiku-4-5"]);
    const question = await pane.waitFor("Trust this folder?");
    expect(question).toContain(".minagent/settings.json: turns the sandbox off");
    await pane.type("n");
    expect(await pane.waitFor(/^>/m)).toMatch(/^sandbox: on \(bubblewrap\)/m);
    await pane.kill();

    pane = new Pane({ columns: 120, rows: 40 });
    await pane.start(workspace, env, ["--model", "anthropic:claude-haiku-4-5"]);
    await pane.waitFor("Trust this folder?");
    await pane.type("y");
    expect(await pane.waitFor(/^>/m)).toMatch(/^sandbox: off \(sandbox\.enabled is false or --no-sandbox\)/m);
  }, 30_000);
});
