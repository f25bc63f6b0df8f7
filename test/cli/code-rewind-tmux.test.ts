import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { startWireServer, type WireServer } from "../../src/testing/wire-server.js";
import { anthropicStream } from "../helpers/wire-bodies.js";
import { bin, hasTmux, Pane } from "./tmux-pane.js";

// Esc Esc and /rewind as a person meets them: the built bin in a tmux pane (as in code-interactive-tmux.test.ts), a
// scripted Anthropic server, a Bash call that rewrites a file, then the rewind chosen with real keys. Every wait is
// for text on the screen, never for time.

type Block = Parameters<typeof anthropicStream>[0][number];
const reply = (blocks: Block[], stop: string) => ({ sse: anthropicStream(blocks, stop, { input_tokens: 1500, output_tokens: 30 }) });
const say = (text: string) => reply([{ type: "text", text }], "end_turn");
const bash = (id: string, command: string) => reply([{ type: "tool_use", id, name: "Bash", input: { command } }], "tool_use");

describe.skipIf(!hasTmux)("minagent code: Esc Esc rewinds on a terminal (tmux)", () => {
  let server: WireServer;
  let workspace: string;
  let home: string;
  let pane: Pane;

  beforeEach(async () => {
    if (!existsSync(bin)) throw new Error(`${bin} is missing: npm test builds it first (or set MINAGENT_TEST_BIN)`);
    server = await startWireServer();
    workspace = await mkdtemp(join(tmpdir(), "minagent-rewind-tmux-workspace-"));
    home = await mkdtemp(join(tmpdir(), "minagent-rewind-tmux-home-"));
    await writeFile(join(workspace, "notes.txt"), "The answer is 42.\n");
    pane = new Pane({ columns: 120, rows: 40 });
  });

  afterEach(async () => {
    await pane.kill();
    await server.close();
    for (const folder of [workspace, home]) await rm(folder, { recursive: true, force: true });
  });

  test("a Bash turn changes a file; Esc Esc, the checkpoint, code and conversation: the file is back and so is the prompt", async () => {
    server.reply(bash("b1", "sed -i 's/42/43/' notes.txt"), say("Changed it to 43."), say("Fresh answer."));
    const env = { ANTHROPIC_API_KEY: "sk-ant-test", ANTHROPIC_BASE_URL: server.url, MINAGENT_HOME: home, HOME: home };
    await pane.start(workspace, env, ["--model", "anthropic:claude-haiku-4-5", "--permission-mode", "bypassPermissions", "--no-sandbox"]);
    await pane.waitFor(/^>/m);
    await pane.type("make it 43");
    await pane.keys("Enter");
    await pane.waitFor("Changed it to 43.");
    // The prompt is back (the turn is over) before the keys that only an idle prompt answers.
    await pane.waitFor(/Changed it to 43\.[\s\S]*\n>/);
    expect(await readFile(join(workspace, "notes.txt"), "utf8")).toBe("The answer is 43.\n");

    await pane.keys("Escape", "Escape");
    const list = await pane.waitFor("· Esc: cancel");
    expect(list).toContain("Rewind to before which prompt?");
    expect(list).toMatch(/› 1\. #1 {2}just now {2}1 file \+1 −1 {2}make it 43\n/);
    await pane.keys("Enter");
    const scope = await pane.waitFor("4. Cancel");
    expect(scope).toMatch(/› 1\. Code and conversation\n +2\. Conversation only\n +3\. Code only\n +4\. Cancel\n/);
    await pane.keys("Enter");

    // The rewound prompt waits on the line, to edit or send again.
    const summary = await pane.waitFor(/Undo: \/rewind and choose #2\n> make it 43/);
    expect(summary).toMatch(/Rewound the code and the conversation to before #1\.\n {2}1 file restored:\n {4}M notes\.txt \+1 −1\n/);
    expect(await readFile(join(workspace, "notes.txt"), "utf8")).toBe("The answer is 42.\n");

    // Sent again, the model is asked afresh: the earlier exchange is gone from the conversation.
    await pane.keys("Enter");
    await pane.waitFor("Fresh answer.");
    const body = server.requests.at(-1)?.body as { messages: { role: string }[] };
    expect(body.messages).toHaveLength(1);
    expect(server.requests).toHaveLength(3);
  }, 40_000);
});
