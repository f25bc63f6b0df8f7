import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { startWireServer, type WireServer } from "../../src/testing/wire-server.js";
import { bin, hasTmux, Pane, quote } from "./tmux-pane.js";
import { call, say, toolResults } from "./tmux-replies.js";

// The small things a first hour of `minagent code` runs into, as a person meets them: the built bin in a tmux pane,
// keys sent with send-keys, the screen read with capture-pane, the model a scripted Anthropic server on 127.0.0.1.

const model = ["--model", "anthropic:claude-haiku-4-5"];
const filesystemServer = join(
  fileURLToPath(new URL("../../node_modules/@modelcontextprotocol/server-filesystem/", import.meta.url)),
  "dist",
  "index.js",
);

describe.skipIf(!hasTmux)("minagent code's details on a terminal (tmux)", () => {
  let server: WireServer;
  let workspace: string;
  let home: string;
  let pane: Pane;
  let env: Record<string, string>;

  beforeEach(async () => {
    if (!existsSync(bin)) throw new Error(`${bin} is missing: npm test builds it first (or set MINAGENT_TEST_BIN)`);
    server = await startWireServer();
    workspace = await mkdtemp(join(tmpdir(), "minagent-tmux-workspace-"));
    home = await mkdtemp(join(tmpdir(), "minagent-tmux-home-"));
    await writeFile(join(workspace, "math.js"), "export function add(a, b) {\n  return a - b;\n}\n");
    env = { ANTHROPIC_API_KEY: "sk-ant-test", ANTHROPIC_BASE_URL: server.url, MINAGENT_HOME: home, HOME: home };
    pane = new Pane();
  });

  afterEach(async () => {
    await pane.kill();
    await server.close();
    await rm(workspace, { recursive: true, force: true });
    await rm(home, { recursive: true, force: true });
  });

  const start = async (...args: string[]) => {
    await pane.start(workspace, env, [...model, ...args]);
    await pane.waitFor(/^>/m);
  };
  const enter = async (text: string) => {
    await pane.type(text);
    await pane.keys("Enter");
  };

  test("an Edit that cannot apply says it will fail, and why, instead of a diff of a change that cannot happen", async () => {
    await writeFile(join(workspace, "twice.txt"), "x = 1\nx = 1\n");
    server.reply(
      call("e1", "Edit", { file_path: "math.js", old_string: "no such text", new_string: "x" }),
      call("e2", "Edit", { file_path: "twice.txt", old_string: "x = 1", new_string: "x = 2" }),
      say("Both failed."),
    );
    await start("--no-sandbox");
    await enter("change things");

    const missing = await pane.waitFor("Allow Edit(math.js)?", 20_000);
    expect(missing).toContain("Will fail: the text to replace (old_string) is not found in math.js");
    // Not the bogus diff of old_string against new_string.
    expect(missing).not.toMatch(/1 - no such text/);
    expect(missing).not.toMatch(/1 \+ x/);
    await pane.keys("y");

    const twice = await pane.waitFor("Allow Edit(twice.txt)?", 20_000);
    // Wrapped at a word to the terminal's width, under a hanging indent.
    expect(twice).toMatch(
      /Will fail: the text to replace \(old_string\) occurs more than once in twice\.txt, and replace_all\n {4}is not set/,
    );
    expect(twice).not.toMatch(/\d - x = 1/);
    await pane.keys("y");
    await pane.waitFor("Both failed.", 20_000);
    // The tool failed as the prompt said it would.
    expect(toolResults(server.requests[1])[0]?.is_error).toBe(true);
  }, 60_000);

  test("/memory names the user folder in use (MINAGENT_HOME), and /agents wraps long descriptions at words", async () => {
    pane = new Pane({ columns: 60, rows: 40 });
    const description =
      "Reviews changes for correctness, security and readability, and reports every problem it finds with the line it is on and a suggested fix.";
    await mkdir(join(workspace, ".minagent", "agents"), { recursive: true });
    await writeFile(
      join(workspace, ".minagent", "agents", "reviewer.md"),
      `---\nname: reviewer\ndescription: ${description}\ntools: Read, Grep\n---\nReview with care.\n`,
    );
    await start();
    await enter("/memory");
    const memory = await pane.waitFor("No memory files.");
    // The screen wraps the path; the words around it are there whole.
    const flat = memory.replace(/\n/g, "");
    expect(flat).toContain(home);
    expect(flat).not.toContain("~/.minagent/");

    await enter("/agents");
    const agents = await pane.waitFor(/tools: Read, Grep/);
    const rows = agents.split("\n");
    const first = rows.findIndex((row) => row.startsWith("reviewer"));
    expect(first).toBeGreaterThan(-1);
    // The description goes on under a hanging indent, each row a whole number of words, none past the width.
    const block = rows.slice(
      first,
      rows.findIndex((row, index) => index > first && row.includes("tools: Read, Grep")),
    );
    expect(block.length).toBeGreaterThan(2);
    for (const row of block.slice(1)) expect(row).toMatch(/^ {4}\S/);
    for (const row of block) expect(row.length).toBeLessThan(60);
    expect(block.map((row) => row.trim()).join(" ")).toBe(`reviewer (read-only)  ${description}`);
  }, 30_000);

  test("/permissions lists the settings file and the rule just saved to it by the prompt's 'always' answer", async () => {
    server.reply(call("b1", "Bash", { command: "mkdir out" }), say("Made it."));
    pane = new Pane({ columns: 100, rows: 40 });
    await start("--no-sandbox");
    await enter("/permissions");
    await pane.waitFor("Settings files read: none");
    await enter("make a folder");
    await pane.waitFor("Allow Bash(mkdir out)?");
    await pane.keys("s");
    await pane.waitFor("Saved to .minagent/settings.local.json: Bash(mkdir out)");
    await pane.waitFor("Made it.");

    await enter("/permissions");
    const file = join(workspace, ".minagent", "settings.local.json");
    const shown = await pane.waitFor((screen) => screen.replace(/\n/g, "").includes(`Settings files read: ${file}`));
    const latest = shown.split("Settings files read:").at(-1) ?? "";
    expect(latest.replace(/\n/g, "")).toMatch(
      new RegExp(`Allow rules +Bash\\(mkdir out\\) +${file.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}`),
    );
    // Saved, not only for this session: it is not listed among this session's own rules.
    expect(latest).not.toContain("Allowed for this session");
  }, 30_000);

  test("an MCP tool's prompt offers every tool of its server: for the session, or saved to settings.local.json", async () => {
    await writeFile(
      join(home, "servers.json"),
      JSON.stringify({ mcpServers: { files: { command: process.execPath, args: [filesystemServer, workspace] } } }),
    );
    server.reply(
      call("m1", "mcp__files__read_text_file", { path: join(workspace, "math.js") }),
      call("m2", "mcp__files__list_directory", { path: workspace }),
      say("Read and listed."),
      call("m3", "mcp__files__get_file_info", { path: join(workspace, "math.js") }),
      say("Looked."),
    );
    const startWithServer = async () => {
      pane = new Pane({ columns: 120, rows: 40 });
      await start("--mcp-config", join(home, "servers.json"));
      // The server starts in the background: /mcp until it is ready.
      for (let attempt = 1; ; attempt++) {
        await enter("/mcp");
        const ready = await pane.waitFor(/files +ready/, 1500).then(
          () => true,
          (error: unknown) => {
            if (attempt === 10) throw error;
            return false;
          },
        );
        if (ready) break;
      }
    };
    await startWithServer();
    await enter("read and list");
    const ask = await pane.waitFor("Allow mcp__files__read_text_file");
    expect(ask).toMatch(/4\. Yes, and don't ask again this session for every tool of server "files" \(mcp__files\)/);
    expect(ask).toMatch(/5\. Yes, and always allow every tool of server "files" \(mcp__files\) \(\.minagent\/settings\.local\.json\)/);
    expect(ask).toMatch(/6\. No, and tell the agent why/);
    await pane.keys("e");
    await pane.waitFor("Allowed for this session: mcp__files");
    // Another tool of the same server is not asked about.
    await pane.waitFor("Read and listed.");
    expect(await pane.screen()).not.toContain("Allow mcp__files__list_directory");
    await pane.kill();

    // A new session asks again; w saves the server's rule.
    await startWithServer();
    await enter("look");
    await pane.waitFor("Allow mcp__files__get_file_info");
    await pane.keys("w");
    await pane.waitFor("Saved to .minagent/settings.local.json: mcp__files");
    await pane.waitFor("Looked.");
    expect(JSON.parse(await readFile(join(workspace, ".minagent", "settings.local.json"), "utf8"))).toEqual({
      permissions: { allow: ["mcp__files"] },
    });
  }, 60_000);

  test("the trust question at start acts on one key, without Enter", async () => {
    await mkdir(join(workspace, ".minagent"));
    const marker = join(workspace, "hook-ran.txt");
    await writeFile(
      join(workspace, ".minagent", "settings.json"),
      JSON.stringify({ hooks: { UserPromptSubmit: [{ hooks: [{ type: "command", command: `touch ${marker}` }] }] } }),
    );
    server.reply(say("First."), say("Second."));
    await pane.start(workspace, env, model);
    await pane.waitFor("Trust this folder?");
    // A key the question does not offer does nothing.
    await pane.type("x");
    await pane.type("n");
    const no = await pane.waitFor(/^>/m);
    expect(no).toContain("Starting without the folder's own settings");
    await enter("hello");
    await pane.waitFor("First.");
    expect(existsSync(marker)).toBe(false);
    await pane.kill();

    pane = new Pane();
    await pane.start(workspace, env, model);
    await pane.waitFor("Trust this folder?");
    await pane.type("y");
    await pane.waitFor("Trusted ");
    await pane.waitFor(/^>/m);
    await enter("hello again");
    await pane.waitFor("Second.");
    expect(existsSync(marker)).toBe(true);
  }, 30_000);

  test("minagent demo react labels its output in the locale's language: English, or Chinese for zh", async () => {
    const english = await runInPane(["demo", "react"], { LANG: "en_US.UTF-8" });
    expect(english).toContain("Final answer: 北京晴 24°C");
    expect(english).toMatch(/^Messages: 7$/m);
    expect(english).not.toContain("最终回答");
    const chinese = await runInPane(["demo", "react"], { LANG: "zh_CN.UTF-8" });
    expect(chinese).toContain("最终回答: 北京晴 24°C");
    expect(chinese).toMatch(/^消息条数: 7$/m);
  }, 30_000);
});

/** The screen of `minagent <args>` run in a tmux pane of its own, once it has exited. */
async function runInPane(args: string[], env: Record<string, string>): Promise<string> {
  const tmux = (...more: string[]) =>
    promisify(execFile)("tmux", ["-u", "-L", `minagent-details-${process.pid}`, ...more], { timeout: 5000 });
  const variables = Object.entries({ PATH: process.env.PATH ?? "", TERM: "xterm-256color", ...env }).map(
    ([name, value]) => `${name}=${quote(value)}`,
  );
  const command = `env -i ${variables.join(" ")} ${quote(process.execPath)} ${quote(bin)} ${args.map(quote).join(" ")}; echo "[exit $?]"; sleep 60`;
  await tmux("new-session", "-d", "-s", "main", "-x", "100", "-y", "30", command);
  try {
    const deadline = Date.now() + 8000;
    for (;;) {
      const screen = (await tmux("capture-pane", "-p", "-t", "main")).stdout;
      if (screen.includes("[exit 0]") || Date.now() > deadline) return screen;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  } finally {
    const socket = await tmux("display-message", "-p", "#{socket_path}").then(
      ({ stdout }) => stdout.trim(),
      () => "",
    );
    await tmux("kill-server").catch(() => undefined);
    if (socket.includes("minagent-details-")) await rm(socket, { force: true });
  }
}
