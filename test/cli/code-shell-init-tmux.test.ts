import { existsSync } from "node:fs";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { startWireServer, type WireServer } from "../../src/testing/wire-server.js";
import { bin, hasTmux, Pane } from "./tmux-pane.js";
import { call, lastMessage, say } from "./tmux-replies.js";

// `!` shell lines and /init, as a person uses them: the built bin in tmux, a scripted Anthropic server as the model.

describe.skipIf(!hasTmux)("minagent code on a terminal: ! shell lines and /init", () => {
  let server: WireServer;
  let workspace: string;
  let home: string;
  let pane: Pane;

  beforeEach(async () => {
    if (!existsSync(bin)) throw new Error(`${bin} is missing: npm test builds it first (or set MINAGENT_TEST_BIN)`);
    server = await startWireServer();
    workspace = await mkdtemp(join(tmpdir(), "minagent-tmux-shell-"));
    home = await mkdtemp(join(tmpdir(), "minagent-tmux-home-"));
    await writeFile(join(workspace, "package.json"), '{ "name": "demo", "scripts": { "test": "node --test" } }\n');
    pane = new Pane();
  });

  afterEach(async () => {
    await pane.kill();
    await server.close();
    await rm(workspace, { recursive: true, force: true });
    await rm(home, { recursive: true, force: true });
  });

  const start = async (...args: string[]) => {
    const env = { ANTHROPIC_API_KEY: "sk-ant-test", ANTHROPIC_BASE_URL: server.url, MINAGENT_HOME: home, HOME: home };
    await pane.start(workspace, env, ["--model", "anthropic:claude-haiku-4-5", ...args]);
    await pane.waitFor(/^>/m);
  };

  test("a ! line runs in the workspace as the person, without asking; its output is shown and goes to the model with the next prompt", async () => {
    server.reply(say("You printed one and two, and made made.txt."));
    await start();
    await pane.type("!");
    await pane.waitFor("! shell: runs in the workspace as you");
    await pane.type("printf 'one\\ntwo\\n'; echo made > made.txt");
    await pane.keys("Enter");
    const shown = await pane.waitFor(/⎿ one\n +two\n/);
    // Nothing was asked, and the model was not called.
    expect(shown).not.toContain("Allow Bash");
    // A command that succeeded shows its output alone (the model is told the exit code).
    expect(shown).not.toContain("Exit code");
    expect(server.requests).toHaveLength(0);
    expect(await readFile(join(workspace, "made.txt"), "utf8")).toBe("made\n");
    // Saved in the session at once: a session closed before its next prompt keeps what was run.
    const saved = await Promise.all(
      (await readdir(home, { recursive: true }))
        .filter((path) => path.startsWith("projects") && path.endsWith(".jsonl"))
        .map((path) => readFile(join(home, path), "utf8")),
    );
    expect(saved.filter((text) => text.includes("echo made > made.txt"))).toHaveLength(1);

    await pane.type("what did I run?");
    await pane.keys("Enter");
    await pane.waitFor("You printed one and two");
    const sent = lastMessage(server.requests[0])
      .map((block) => String(block.text ?? ""))
      .join("\n");
    expect(sent).toContain("$ printf 'one\\ntwo\\n'; echo made > made.txt\none\ntwo\n\nExit code: 0");
    expect(sent).toContain("what did I run?");
  }, 30_000);

  test("Esc stops a ! command that runs long; a failing one shows its exit code", async () => {
    await start();
    await pane.type("!sleep 30");
    await pane.keys("Enter");
    await pane.waitFor("working");
    const before = Date.now();
    await pane.keys("Escape");
    await pane.waitFor("⎿ Stopped. Nothing of it was added to the conversation.", 4000);
    expect(Date.now() - before).toBeLessThan(4000);
    await pane.type("!ls no-such-file");
    await pane.keys("Enter");
    await pane.waitFor(/Exit code: 2/);
  }, 30_000);

  test("/init has the model write AGENTS.md, shown as a diff and asked about; with AGENTS.md there it edits it", async () => {
    server.reply(
      call("w1", "Write", { file_path: join(workspace, "AGENTS.md"), content: "# AGENTS.md\n\nTest with `npm test`.\n" }),
      say("AGENTS.md is written."),
    );
    await start();
    await pane.type("/init");
    await pane.keys("Enter");
    const asked = await pane.waitFor("Allow Write(AGENTS.md)?");
    expect(asked).toMatch(/\+ *Test with `npm test`\./);
    expect(existsSync(join(workspace, "AGENTS.md"))).toBe(false);
    await pane.keys("1");
    await pane.waitFor("AGENTS.md is written.");
    expect(await readFile(join(workspace, "AGENTS.md"), "utf8")).toContain("Test with `npm test`.");
    const prompt = lastMessage(server.requests[0]).find((block) => block.type === "text");
    expect(String(prompt?.text)).toContain("Write AGENTS.md at the root of this project");

    server.reply(
      call("e1", "Edit", {
        file_path: join(workspace, "AGENTS.md"),
        old_string: "Test with `npm test`.",
        new_string: "Test with `npm test`; one test: `node --test test/a.test.js`.",
      }),
      say("AGENTS.md is improved."),
    );
    await pane.type("/init");
    await pane.keys("Enter");
    const edit = await pane.waitFor("Allow Edit(AGENTS.md)?");
    expect(edit).toMatch(/- *Test with `npm test`\./);
    expect(edit).toMatch(/\+ *Test with `npm test`; one test/);
    expect(String(lastMessage(server.requests[2]).find((block) => block.type === "text")?.text)).toContain("improve it with Edit");
    await pane.keys("Escape");
    await pane.waitFor(/✗ Edit\(AGENTS\.md\)/);
    expect(await readFile(join(workspace, "AGENTS.md"), "utf8")).not.toContain("one test");
  }, 40_000);
});
