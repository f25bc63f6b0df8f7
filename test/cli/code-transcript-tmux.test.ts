import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { startWireServer, type WireServer } from "../../src/testing/wire-server.js";
import { bin, hasTmux, Pane } from "./tmux-pane.js";
import { call, say } from "./tmux-replies.js";

// The transcript (Ctrl-O) as a person uses it: the built bin in a tmux pane, the model a scripted Anthropic server.

/** A subagent's reply: its runs do not stream, so the server answers with a whole message. */
function childReply(content: Record<string, unknown>[], stopReason: "end_turn" | "tool_use") {
  return {
    json: {
      id: "msg_child",
      type: "message",
      role: "assistant",
      model: "claude",
      content,
      stop_reason: stopReason,
      usage: { input_tokens: 50, output_tokens: 10 },
    },
  };
}

/** `fruit-01` … `fruit-25`: lines that are each on the screen or not. */
const fruitLines = Array.from({ length: 25 }, (_, index) => `fruit-${String(index + 1).padStart(2, "0")}`);

describe.skipIf(!hasTmux)("the transcript on a terminal (tmux)", () => {
  let server: WireServer;
  let workspace: string;
  let home: string;
  let pane: Pane;

  beforeEach(async () => {
    if (!existsSync(bin)) throw new Error(`${bin} is missing: npm test builds it first (or set MINAGENT_TEST_BIN)`);
    server = await startWireServer();
    workspace = await mkdtemp(join(tmpdir(), "minagent-transcript-workspace-"));
    home = await mkdtemp(join(tmpdir(), "minagent-transcript-home-"));
    await writeFile(join(workspace, "notes.txt"), "first note of the file\nsecond note of the file\n");
  });

  afterEach(async () => {
    await pane.kill();
    await server.close();
    await rm(workspace, { recursive: true, force: true });
    await rm(home, { recursive: true, force: true });
  });

  const start = async (size?: { columns: number; rows: number }, env: Record<string, string> = {}) => {
    pane = new Pane(size);
    const variables = { ANTHROPIC_API_KEY: "sk-ant-test", ANTHROPIC_BASE_URL: server.url, MINAGENT_HOME: home, HOME: home, ...env };
    await pane.start(workspace, variables, ["--model", "anthropic:claude-haiku-4-5", "--no-sandbox", "--allowedTools", "Bash"]);
    await pane.waitFor(/^>/m);
  };

  const visibleFruits = (screen: string) => fruitLines.filter((line) => new RegExp(`^\\s*(⎿ )?${line}$`, "m").test(screen));

  test("a Bash call's line expands to its whole output with Ctrl-O, and Ctrl-O again gives the screen and the prompt back", async () => {
    server.reply(
      call("b1", "Bash", { command: "seq -f fruit-%02g 25", description: "List the fruits" }),
      say("There are 25 fruits."),
      say("Still here."),
    );
    await start();
    await pane.type("list the fruits");
    await pane.keys("Enter");
    const collapsed = await pane.waitFor("There are 25 fruits.");
    expect(collapsed).toContain("✓ Bash(seq -f fruit-%02g 25) · exit 0 · 25 lines of output (ctrl+o to expand)");
    // Collapsed, the output itself is not on the screen.
    expect(visibleFruits(collapsed)).toEqual([]);
    await pane.type("half-typed");
    const before = await pane.waitFor(/^> half-typed$/m);
    await pane.keys("C-o");
    // It opens at the end: the last lines of the output and the answer, and where the view is.
    const end = await pane.waitFor(/Transcript · lines \d+–\d+ of \d+/);
    expect(end).toContain("fruit-25");
    expect(end).toContain("There are 25 fruits.");
    expect(end).not.toContain("shift+tab to cycle");
    await pane.keys("Home");
    const top = await pane.waitFor("> list the fruits");
    // The call's arguments in full, then the output from its first line.
    expect(top).toMatch(/^✓ Bash\(seq -f fruit-%02g 25\)\n {2}│ command: seq -f fruit-%02g 25\n/m);
    expect(top).toContain("│ description: List the fruits");
    expect(top).toMatch(/^ {2}⎿ fruit-01$/m);
    // Scrolling down shows every line of the output, one after another.
    const seen = new Set(visibleFruits(top));
    for (let step = 0; step < 30 && seen.size < fruitLines.length; step++) {
      await pane.keys("j");
      for (const line of visibleFruits(await pane.screen())) seen.add(line);
    }
    expect([...seen].sort()).toEqual(fruitLines);
    // Keys typed in the view do nothing there and do not reach the prompt.
    await pane.type("xyz");

    await pane.keys("C-o");
    const back = await pane.waitFor((screen) => !screen.includes("Transcript ·") && screen.includes("shift+tab to cycle"));
    expect(back).toBe(before);
    expect(back).not.toContain("xyz");
    // The prompt still works, with what was typed before the view opened.
    await pane.type(" and more");
    await pane.keys("Enter");
    await pane.waitFor("Still here.");
    expect(await pane.screen()).toContain("> half-typed and more");
  }, 30_000);

  test("a subagent's own steps and outputs are in the transcript under its call; q and Esc close it", async () => {
    server.reply(
      call("a1", "Agent", { description: "Read the notes", prompt: "Count the notes in notes.txt.", subagent_type: "general-purpose" }),
      childReply([{ type: "tool_use", id: "c1", name: "Bash", input: { command: "echo counted-by-the-subagent" } }], "tool_use"),
      childReply([{ type: "tool_use", id: "c2", name: "Read", input: { file_path: join(workspace, "notes.txt") } }], "tool_use"),
      childReply([{ type: "text", text: "The file has two notes." }], "end_turn"),
      say("The subagent says two."),
    );
    await start({ columns: 60, rows: 40 }, { NO_COLOR: "1" });
    await pane.type("count the notes");
    await pane.keys("Enter");
    const collapsed = await pane.waitFor("The subagent says two.");
    expect(collapsed).toMatch(/✓ Agent\(Read the notes\) · .*\(ctrl\+o to expand\)/);
    expect(collapsed).not.toContain("counted-by-the-subagent");

    await pane.keys("C-o");
    const view = await pane.waitFor("Transcript · lines");
    // Under the call, indented: the subagent's Bash and Read with their outputs, and its answer.
    expect(view).toMatch(/^✓ Agent\(Read the notes\)\n {2}│ description: Read the notes\n {2}│ prompt: Count the notes in notes.txt.\n/m);
    expect(view).toMatch(
      /^ {4}✓ Bash\(echo counted-by-the-subagent\)\n {6}│ command: echo counted-by-the-subagent\n {6}⎿ counted-by-the-subagent$/m,
    );
    expect(view).toMatch(
      /^ {4}✓ Read\(notes\.txt\)\n(?: {6}│ .*\n)+ {6}⎿ +1\s+first note of the file\n {8} +2\s+second note of the file$/m,
    );
    expect(view).toMatch(/^ {4}The file has two notes\.$/m);
    // The call's own result after the subagent's steps; the view's lines fit in 60 columns.
    expect(view).toMatch(/^ {2}⎿ The file has two notes\.$/m);
    expect(Math.max(...view.split("\n").map((line) => line.length))).toBeLessThan(60);

    await pane.keys("q");
    await pane.waitFor((screen) => !screen.includes("Transcript ·") && screen.includes("The subagent says two."));
    await pane.keys("C-o");
    await pane.waitFor("Transcript · lines");
    await pane.keys("Escape");
    const back = await pane.waitFor((screen) => !screen.includes("Transcript ·"));
    expect(back).toContain("✓ Agent(Read the notes)");
  }, 30_000);

  test("opened while a turn runs, the transcript follows the turn; the prompt waits until it is closed", async () => {
    server.reply(call("s1", "Bash", { command: "sleep 1.5; echo slow-step-done" }), say("Finished after the slow step."));
    await start();
    await pane.type("run the slow step");
    await pane.keys("Enter");
    await pane.waitFor("⋯ Bash(sleep 1.5; echo slow-step-done)");
    await pane.keys("C-o");
    const running = await pane.waitFor("Transcript · lines");
    expect(running).toMatch(/^⋯ Bash\(sleep 1\.5; echo slow-step-done\)$/m);
    expect(running).toContain("⎿ running…");
    // The call ends and the answer comes while the view is open: drawn there, not on the screen behind it.
    const live = await pane.waitFor("Finished after the slow step.", 10_000);
    expect(live).toMatch(/^ {2}⎿ slow-step-done$/m);
    expect(live).toContain("Transcript · lines");
    expect(live).not.toMatch(/^>\s*$/m);
    expect(live).not.toContain("working (esc to interrupt)");

    await pane.keys("Escape");
    const back = await pane.waitFor((screen) => !screen.includes("Transcript ·") && /^>\s*$/m.test(screen));
    // What the turn printed meanwhile is on the session's screen, in order, then the prompt.
    expect(back).toMatch(
      /> run the slow step\n✓ Bash\(sleep 1\.5; echo slow-step-done\) · exit 0 · 1 line of output\nFinished after the slow step\.\n>/,
    );
    expect(await pane.statusLine()).toMatch(/^default mode \(shift\+tab to cycle\)/);
    await pane.type("/cost");
    await pane.keys("Enter");
    await pane.waitFor("Total cost:");
  }, 30_000);
});
