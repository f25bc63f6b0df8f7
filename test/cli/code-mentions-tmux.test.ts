import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { startWireServer, type WireServer } from "../../src/testing/wire-server.js";
import { bin, hasTmux, Pane } from "./tmux-pane.js";
import { lastMessage, say } from "./tmux-replies.js";

// `@path` mentions at the prompt of `minagent code`, as a person uses them: the hint shows the workspace's files as
// the mention is typed, Tab puts one in, and the prompt sent carries the file (or a folder's listing) for the model.

describe.skipIf(!hasTmux)("@path mentions at the prompt (tmux)", () => {
  let server: WireServer;
  let workspace: string;
  let outside: string;
  let home: string;
  let pane: Pane;

  beforeEach(async () => {
    if (!existsSync(bin)) throw new Error(`${bin} is missing: npm test builds it first (or set MINAGENT_TEST_BIN)`);
    server = await startWireServer();
    workspace = await mkdtemp(join(tmpdir(), "minagent-mentions-workspace-"));
    outside = await mkdtemp(join(tmpdir(), "minagent-mentions-outside-"));
    home = await mkdtemp(join(tmpdir(), "minagent-mentions-home-"));
    await writeFile(join(workspace, "math.js"), "export function add(a, b) {\n  return a - b;\n}\n");
    await mkdir(join(workspace, "src", "util"), { recursive: true });
    await writeFile(join(workspace, "src", "util", "helpers.js"), "export const helper = 1;\n");
    await writeFile(join(workspace, "src", "index.js"), "import './util/helpers.js';\n");
    await mkdir(join(workspace, "build"));
    await writeFile(join(workspace, "build", "math-bundle.js"), "bundled\n");
    await writeFile(join(workspace, "mathematics.log"), "ignored\n");
    await writeFile(join(workspace, ".gitignore"), "build/\n*.log\n");
    await mkdir(join(workspace, "vendor"));
    await writeFile(join(workspace, "vendor", "math-lib.js"), "vendored\n");
    await writeFile(join(workspace, ".ignore"), "vendor/\n");
    await writeFile(join(workspace, "secret.txt"), "the password is swordfish\n");
    await writeFile(join(outside, "notes.txt"), "outside the workspace\n");
    await writeFile(join(home, "settings.json"), JSON.stringify({ permissions: { deny: ["Read(**/secret.txt)"] } }));
    pane = new Pane();
  });

  afterEach(async () => {
    await pane.kill();
    await server.close();
    for (const folder of [workspace, outside, home]) await rm(folder, { recursive: true, force: true });
  });

  const start = async () => {
    const env = { ANTHROPIC_API_KEY: "sk-ant-test", ANTHROPIC_BASE_URL: server.url, MINAGENT_HOME: home, HOME: home };
    await pane.start(workspace, env, ["--model", "anthropic:claude-haiku-4-5"]);
    await pane.waitFor(/^>/m);
  };

  /** The text the last request sent as the person's prompt. */
  const sentPrompt = () =>
    lastMessage(server.requests.at(-1))
      .filter((block) => block.type === "text")
      .map((block) => block.text as string)
      .join("\n");

  test("typing @mat offers math.js (not the files .gitignore or .ignore leave out), Tab completes it, and the prompt sends the file", async () => {
    server.reply(say("It subtracts."));
    await start();
    await pane.type("explain @mat");
    const hinted = await pane.waitFor("@math.js");
    // The ignored folder's and file's names match too, but are not offered.
    expect(hinted).not.toContain("math-bundle");
    expect(hinted).not.toContain("mathematics.log");
    expect(hinted).not.toContain("math-lib");
    await pane.keys("Tab");
    // The completed file is followed by a space: what is typed next is a new word.
    await pane.type("please");
    await pane.waitFor(/^> explain @math\.js please$/m);
    await pane.keys("Enter");
    await pane.waitFor("It subtracts.");
    const screen = await pane.screen();
    expect(screen).toContain("⎿ attached @math.js (3 lines)");
    const prompt = sentPrompt();
    expect(prompt).toContain("explain @math.js please");
    expect(prompt).toContain('<file path="math.js">');
    expect(prompt).toMatch(/2\t {2}return a - b;/);
  }, 30_000);

  test("a nested fuzzy mention: @s/u/h is src/util/helpers.js; Tab again goes to the next match", async () => {
    await start();
    await pane.type("look at @s/u/h");
    const hinted = await pane.waitFor("@src/util/helpers.js");
    // The best match comes first in the hint.
    expect(hinted).toMatch(/^@src\/util\/helpers\.js/m);
    await pane.keys("Tab");
    await pane.waitFor(/^> look at @src\/util\/helpers\.js\s*$/m);
    // A folder completes without a space, so that typing goes on inside it; Tab cycles through the matches.
    await pane.keys("C-u");
    await pane.type("@src/u");
    await pane.waitFor("@src/util/");
    await pane.keys("Tab");
    const first = await pane.waitFor(/^> @src\/util\/\S*/m);
    const firstLine = /^> (@\S+)/m.exec(first)?.[1];
    await pane.keys("Tab");
    const second = await pane.waitFor((screen) => /^> (@\S+)/m.exec(screen)?.[1] !== firstLine);
    expect([firstLine, /^> (@\S+)/m.exec(second)?.[1]].sort()).toEqual(["@src/util/", "@src/util/helpers.js"]);
  }, 30_000);

  test("a folder mention sends its listing", async () => {
    server.reply(say("Two entries."));
    await start();
    await pane.type("what is in @src/ ?");
    await pane.keys("Enter");
    await pane.waitFor("Two entries.");
    expect(await pane.screen()).toContain("⎿ attached @src/ (2 entries)");
    const prompt = sentPrompt();
    expect(prompt).toContain('<folder path="src/">\nindex.js\nutil/\n</folder>');
  }, 30_000);

  test("a file outside the workspace, or one a Read deny rule covers, is not attached, and the person is told why", async () => {
    server.reply(say("Nothing to see."));
    await start();
    const notes = join(outside, "notes.txt");
    await pane.type(`compare @${notes} with @secret.txt`);
    await pane.keys("Enter");
    await pane.waitFor("Nothing to see.");
    const screen = await pane.screen();
    expect(screen).toMatch(/⎿ @\/\S+notes\.txt was not attached: .*outside/);
    expect(screen).toMatch(/⎿ @secret\.txt was not attached: /);
    expect(screen).not.toContain("⎿ attached");
    const prompt = sentPrompt();
    expect(prompt).not.toContain("outside the workspace\n");
    expect(prompt).not.toContain("swordfish");
    expect(prompt).toContain("was not attached");
  }, 30_000);
});
