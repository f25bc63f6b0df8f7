import { existsSync } from "node:fs";
import { mkdtemp, readdir, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { startWireServer, type WireRequest, type WireServer } from "../../src/testing/wire-server.js";
import { bin, hasTmux, Pane } from "./tmux-pane.js";
import { lastMessage, say } from "./tmux-replies.js";

// The prompt's editor as a person uses it (the built bin in tmux): a prompt taller than the screen, a resize, text
// typed while a turn runs, Ctrl-R over the prompts of earlier sessions, and vim keys (/vim, remembered).

/** The text of the last user message a request sent. */
function sentText(request: WireRequest | undefined): string {
  return lastMessage(request)
    .filter((block) => block.type === "text")
    .map((block) => block.text as string)
    .join("|");
}

/** The lines of the screen that are not blank, with the status row (the last) left out. */
function inputRows(screen: string): string[] {
  return screen
    .trimEnd()
    .split("\n")
    .slice(0, -1)
    .filter((line) => line.trim() !== "");
}

describe.skipIf(!hasTmux)("the prompt's editor on a terminal (tmux)", () => {
  let server: WireServer;
  let workspace: string;
  let home: string;
  let pane: Pane;

  beforeEach(async () => {
    if (!existsSync(bin)) throw new Error(`${bin} is missing: npm test builds it first (or set MINAGENT_TEST_BIN)`);
    server = await startWireServer();
    workspace = await mkdtemp(join(tmpdir(), "minagent-input-workspace-"));
    home = await mkdtemp(join(tmpdir(), "minagent-input-home-"));
  });

  afterEach(async () => {
    await pane.kill();
    await server.close();
    await rm(workspace, { recursive: true, force: true });
    await rm(home, { recursive: true, force: true });
  });

  const start = async (size = { columns: 60, rows: 15 }) => {
    pane = new Pane(size);
    const env = { ANTHROPIC_API_KEY: "sk-ant-test", ANTHROPIC_BASE_URL: server.url, MINAGENT_HOME: home, HOME: home };
    await pane.start(workspace, env, ["--model", "anthropic:claude-haiku-4-5"]);
    await pane.waitFor(/^>/m);
  };

  const leave = async () => {
    await pane.keys("C-c");
    await pane.keys("C-c");
    await pane.waitFor("[exit 130]");
    await pane.kill();
  };

  test("a paste taller than the screen shows the rows around the cursor, is edited in the middle and sent whole; a resize draws it once", async () => {
    server.reply(say("Got all forty lines."));
    // Wide enough for the status line's key hint, whose going and coming back shows a resize took effect.
    await start({ columns: 80, rows: 15 });
    const lines = Array.from({ length: 40 }, (_, index) => `pasted line ${index + 1}`);
    await pane.paste(`${lines.join("\n")}\n`);
    const pasted = await pane.waitFor("pasted line 40");
    // The cursor's end of the paste is shown, with what is above it counted; the status row stays at the bottom.
    expect(pasted).toMatch(/↑ \d+ more lines above/);
    expect(pasted.trimEnd().split("\n").at(-1)).toContain("default mode");

    // Up goes row by row through the paste (not to the history); what is typed lands where the cursor is shown.
    for (let step = 0; step < 20; step++) await pane.keys("Up");
    await pane.type("EDIT ");
    const edited = await pane.waitFor("EDIT pasted line 21");
    expect(edited).toMatch(/↓ \d+ more lines below/);
    expect(inputRows(edited)[await cursorRow(pane)]).toContain("EDIT pasted line 21");
    // Every row is drawn once: nothing is left over from earlier drawings.
    for (const row of inputRows(edited).filter((line) => line.includes("pasted line")))
      expect(inputRows(edited).filter((line) => line === row)).toHaveLength(1);

    // Narrower: the rows are drawn again where they were, not a second time below.
    await pane.resize(40, 15);
    const narrow = await pane.waitFor((screen) => !screen.includes("(shift+tab to cycle)"));
    expect(narrow.split("EDIT pasted line 21")).toHaveLength(2);
    await pane.resize(80, 15);
    const wide = await pane.waitFor("(shift+tab to cycle)");
    expect(wide.split("EDIT pasted line 21")).toHaveLength(2);

    await pane.keys("Enter");
    await pane.waitFor("Got all forty lines.");
    const sent = [...lines.slice(0, 20), `EDIT ${lines[20]}`, ...lines.slice(21)].join("\n");
    expect(sentText(server.requests[0])).toBe(sent);
  }, 40_000);

  test("a wrapped line is edited in its middle, and Up and Down move through its rows", async () => {
    server.reply(say("Noted."));
    await start();
    const words = "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike";
    await pane.type(words);
    await pane.keys("M-Enter");
    await pane.type("second line");
    await pane.waitFor("second line");
    // Up from the second line lands on the wrapped row above it, then on the first row.
    await pane.keys("Up");
    await pane.type("[1]");
    await pane.keys("Up");
    await pane.type("[0]");
    const screen = await pane.waitFor("[0]");
    const rows = inputRows(screen);
    const first = rows.findIndex((row) => row.startsWith("> "));
    expect(rows[first]).toContain("[0]");
    expect(rows[first + 1]).toContain("[1]");
    expect(rows[first + 2]).toBe("  second line");
    // Down twice: back to the second line, at its column.
    await pane.keys("Down", "Down");
    await pane.type("<");
    await pane.waitFor(/^ {2}second line<$/m);
    await pane.keys("Enter");
    await pane.waitFor("Noted.");
    const sent = sentText(server.requests[0]);
    expect(sent.replace(/\[[01]\]|</g, "")).toBe(`${words}\nsecond line`);
    expect(sent).toMatch(/^alpha .*\[0\].*\[1\].*\nsecond line<$/s);
  }, 30_000);

  test("what is typed while a turn runs keeps its line breaks and edits; Enter queues it, sent when the turn ends", async () => {
    server.reply(
      say("This first answer takes a while to arrive, word by word, so that there is time to type the next prompt ahead.", true),
      say("Second answer."),
    );
    await start({ columns: 80, rows: 24 });
    await pane.type("first question");
    await pane.keys("Enter");
    await pane.waitFor("This first answer");
    await pane.type("check");
    await pane.keys("M-Enter");
    await pane.type("the lgs");
    await pane.keys("Left", "Left");
    await pane.type("o");
    await pane.keys("Enter");
    await pane.type("still a draft");
    await pane.waitFor("Second answer.", 15_000);
    expect(sentText(server.requests[1])).toBe("check\nthe logs");
    // The queued prompt is on the screen as sent; what was typed after Enter waits in the next prompt.
    const screen = await pane.waitFor(/^> still a draft$/m);
    expect(screen).toMatch(/^> check\n {2}the logs$/m);
    expect(server.requests).toHaveLength(2);
  }, 40_000);

  test("Ctrl-R searches the prompts of earlier sessions in this folder; Enter takes the match to edit, Esc gives the draft back", async () => {
    server.reply(say("One."), say("Two."), say("Three."));
    await start();
    await pane.type("fix the login bug");
    await pane.keys("Enter");
    await pane.waitFor("One.");
    await pane.type("write the tests");
    await pane.keys("Enter");
    await pane.waitFor("Two.");
    await leave();
    const historyDirectory = join(home, "prompt-history");
    const [file] = await readdir(historyDirectory);
    expect(((await stat(join(historyDirectory, file as string))).mode & 0o777).toString(8)).toBe("600");

    // A new session in the same folder.
    await start();
    await pane.type("my draft");
    await pane.keys("C-r");
    await pane.type("login");
    let screen = await pane.waitFor("(reverse-i-search)'login'");
    expect(screen).toMatch(/^> fix the login bug$/m);
    // Nothing older holds "login".
    await pane.keys("C-r");
    await pane.waitFor("(failed reverse-i-search)'login'");
    await pane.keys("Escape");
    screen = await pane.waitFor((text) => !text.includes("reverse-i-search"));
    expect(screen).toMatch(/^> my draft$/m);

    // "t": the newest prompt holding it first, Ctrl-R the older one, Ctrl-S back.
    await pane.keys("C-r");
    await pane.type("T");
    await pane.waitFor(/^> write the tests$/m);
    await pane.keys("C-r");
    await pane.waitFor(/^> fix the login bug$/m);
    await pane.keys("C-s");
    await pane.waitFor(/^> write the tests$/m);
    await pane.keys("C-r");
    await pane.waitFor(/^> fix the login bug$/m);
    await pane.keys("Enter");
    await pane.waitFor((text) => !text.includes("reverse-i-search"));
    // Accepted into the input: edited, then sent.
    await pane.keys("End");
    await pane.type(" now");
    await pane.keys("Enter");
    await pane.waitFor("Three.");
    expect(sentText(server.requests[2])).toBe("fix the login bug now");
    // Up at an empty prompt: the newest prompt, this session's included.
    await pane.keys("Up");
    await pane.waitFor(/^> fix the login bug now$/m);
    await pane.keys("Up");
    await pane.waitFor(/^> write the tests$/m);
  }, 40_000);

  test("/vim: Esc for normal mode, motions and operators, undo, yank and put; remembered for the next session", async () => {
    server.reply(say("Vim text received."));
    await start({ columns: 80, rows: 24 });
    await pane.type("/vim");
    await pane.keys("Enter");
    await pane.waitFor("Vim mode on");
    await pane.waitFor("-- INSERT --");
    await pane.type("one two three");
    await pane.keys("Escape");
    await pane.waitFor("-- NORMAL --");
    // 0 w: to "two"; cw changes it; Esc; $ x deletes the last character; u brings it back.
    await pane.type("0wcw2");
    await pane.waitFor(/^> one 2 three$/m);
    await pane.keys("Escape");
    await pane.waitFor("-- NORMAL --");
    await pane.type("$x");
    await pane.waitFor(/^> one 2 thre$/m);
    await pane.type("u");
    await pane.waitFor(/^> one 2 three$/m);
    // yy p: the line again below; dw at its start; A appends.
    await pane.type("yyp");
    await pane.waitFor(/^> one 2 three\n {2}one 2 three$/m);
    await pane.type("dw");
    await pane.waitFor(/^ {2}2 three$/m);
    await pane.type("A!");
    await pane.waitFor(/^ {2}2 three!$/m);
    expect(await pane.screen()).toContain("-- INSERT --");
    await pane.keys("Enter");
    await pane.waitFor("Vim text received.");
    expect(sentText(server.requests[0])).toBe("one 2 three\n2 three!");
    await leave();
    expect(JSON.parse(await readFile(join(home, "config.json"), "utf8"))).toEqual({ editorMode: "vim" });

    // The next session starts in vim mode; /vim turns it off.
    await start({ columns: 80, rows: 24 });
    await pane.waitFor("-- INSERT --");
    await pane.type("/vim");
    await pane.keys("Enter");
    await pane.waitFor("Vim mode off");
    const off = await pane.waitFor((screen) => !screen.split("Vim mode off")[1]?.includes("-- INSERT --"));
    expect(off.split("Vim mode off")[1]).not.toContain("--");
    expect(JSON.parse(await readFile(join(home, "config.json"), "utf8"))).toEqual({ editorMode: "normal" });
  }, 40_000);
});

/** The cursor's row among the input rows of the screen (blank rows left out). */
async function cursorRow(pane: Pane): Promise<number> {
  const rows = (await pane.screen()).split("\n");
  const { row } = await pane.cursor();
  return rows.slice(0, row).filter((line) => line.trim() !== "").length;
}
