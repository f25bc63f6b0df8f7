import { describe, expect, it } from "vitest";
import { HistorySearch } from "../../src/cli/code/interactive/history-search.js";
import { indexAtColumn, layoutInput } from "../../src/cli/code/interactive/input-layout.js";
import type { Key } from "../../src/cli/code/interactive/keys.js";
import type { LineState } from "../../src/cli/code/interactive/text-editing.js";
import { TypeAhead } from "../../src/cli/code/interactive/type-ahead.js";
import { VimMode } from "../../src/cli/code/interactive/vim-mode.js";

// The prompt's editing parts on their own, key by key: the tmux tests drive them through a terminal, these name
// each rule a person relies on.

const text = (value: string): Key => ({ name: "text", text: value });
const key = (name: Exclude<Key["name"], "text" | "paste">) => ({ name }) as Key;

describe("the input's layout: rows drawn by the editor itself", () => {
  it("a line that fits is one row after the prompt, the cursor after its last character", () => {
    const layout = layoutInput("> ", "  ", "hello", 5, 80);
    expect(layout.rows.map((row) => row.text)).toEqual(["> hello"]);
    expect(layout).toMatchObject({ cursorRow: 0, cursorColumn: 7 });
  });

  it("a long line wraps after the continuation's indent; a row filled exactly gets an empty row for the cursor", () => {
    const layout = layoutInput("> ", "  ", "abcdefgh", 8, 6);
    expect(layout.rows.map((row) => row.text)).toEqual(["> abcd", "  efgh", "  "]);
    expect(layout).toMatchObject({ cursorRow: 2, cursorColumn: 2 });
    expect(layoutInput("> ", "  ", "abcdefgh", 4, 6)).toMatchObject({ cursorRow: 1, cursorColumn: 2 });
  });

  it("a wide character that does not fit goes to the next row whole", () => {
    const layout = layoutInput("> ", "  ", "ab界", 3, 5);
    expect(layout.rows.map((row) => [row.text, row.width])).toEqual([
      ["> ab", 4],
      ["  界", 4],
    ]);
    expect(layout).toMatchObject({ cursorRow: 1, cursorColumn: 4 });
  });

  it("a tab is spaces to the next stop of four, other control characters are ^X: none moves the terminal's cursor", () => {
    expect(layoutInput("> ", "  ", "a\tb", 3, 80).rows[0]).toMatchObject({ text: "> a   b", width: 7 });
    expect(layoutInput("> ", "  ", "x\u0001\u007f", 3, 80).rows[0]?.text).toBe("> x^A^?");
  });

  it("each line of the text starts a row; Up and Down keep the column as near as they can", () => {
    const layout = layoutInput("> ", "  ", "one\ntwo", 4, 80);
    expect(layout.rows.map((row) => row.text)).toEqual(["> one", "  two"]);
    expect(layout).toMatchObject({ cursorRow: 1, cursorColumn: 2 });
    const [first, second] = layout.rows;
    expect(indexAtColumn(second as (typeof layout.rows)[number], 3)).toBe(5);
    expect(indexAtColumn(first as (typeof layout.rows)[number], 40)).toBe(3);
    expect(indexAtColumn(first as (typeof layout.rows)[number], 0)).toBe(0);
  });
});

describe("typing while a turn runs", () => {
  it("Enter queues what was typed; the queue is sent as one prompt, once", () => {
    const typeAhead = new TypeAhead();
    typeAhead.handle(text("fix it"));
    typeAhead.handle(key("enter"));
    typeAhead.handle(text("and test"));
    typeAhead.handle(key("enter"));
    typeAhead.handle(key("enter")); // nothing typed: nothing queued
    expect(typeAhead.takeQueued()).toBe("fix it\nand test");
    expect(typeAhead.takeQueued()).toBeUndefined();
  });

  it("a line ending in a backslash goes on to the next line instead of being queued", () => {
    const typeAhead = new TypeAhead();
    typeAhead.handle(text("first\\"));
    typeAhead.handle(key("enter"));
    typeAhead.handle(text("second"));
    expect(typeAhead.takeQueued()).toBeUndefined();
    expect(typeAhead.takeDraft()).toEqual({ text: "first\nsecond", cursor: 12 });
    expect(typeAhead.takeDraft()).toEqual({ text: "", cursor: 0 });
  });

  it("an interrupted turn gives the queued prompts back in front of the draft, to edit rather than send", () => {
    const typeAhead = new TypeAhead();
    typeAhead.handle(text("one"));
    typeAhead.handle(key("enter"));
    typeAhead.handle(text("two"));
    typeAhead.unqueue();
    expect(typeAhead.takeQueued()).toBeUndefined();
    expect(typeAhead.takeDraft()).toEqual({ text: "one\ntwo", cursor: 7 });
  });

  it("the editing keys work as at the prompt", () => {
    const typeAhead = new TypeAhead();
    typeAhead.handle(text("helo"));
    typeAhead.handle(key("left"));
    typeAhead.handle(text("l"));
    typeAhead.handle(key("end"));
    typeAhead.handle(key("backspace"));
    expect(typeAhead.takeDraft()).toEqual({ text: "hell", cursor: 4 });
  });
});

describe("Ctrl-R: searching the earlier prompts", () => {
  const entries = ["git status", "npm test", "git commit -m wip", "npm test"];
  const draft: LineState = { text: "draft", cursor: 5 };

  it("typing finds the newest prompt holding the query, ignoring case; Ctrl-R an older one, Ctrl-S a newer one", () => {
    const search = new HistorySearch(entries, draft);
    search.handle(text("GIT"));
    expect(search.state).toEqual({ text: "git commit -m wip", cursor: 0 });
    expect(search.describe()).toMatch(/^\(reverse-i-search\)'GIT' {2}ctrl\+r older/);
    search.handle(key("ctrl-r"));
    expect(search.state.text).toBe("git status");
    search.handle(key("ctrl-r"));
    expect(search.describe()).toMatch(/^\(failed reverse-i-search\)'GIT'/);
    expect(search.state.text).toBe("git status");
    search.handle(key("ctrl-s"));
    expect(search.state.text).toBe("git commit -m wip");
    expect(search.describe()).toMatch(/^\(i-search\)'GIT'/);
  });

  it("Ctrl-R passes over an older prompt with the same text as the one shown", () => {
    const search = new HistorySearch(entries, draft);
    search.handle(text("test"));
    expect(search.state).toEqual({ text: "npm test", cursor: 4 });
    search.handle(key("ctrl-r"));
    expect(search.describe()).toMatch(/^\(failed reverse-i-search\)/);
  });

  it("Enter or Tab accepts the match to edit; a cursor key accepts it and moves; Esc gives the draft back", () => {
    const accepted = new HistorySearch(entries, draft);
    accepted.handle(text("status"));
    expect(accepted.handle(key("enter"))).toEqual({ kind: "accepted", state: { text: "git status", cursor: 4 }, passOn: false });
    const moved = new HistorySearch(entries, draft);
    moved.handle(text("status"));
    expect(moved.handle(key("left"))).toMatchObject({ kind: "accepted", passOn: true });
    const cancelled = new HistorySearch(entries, draft);
    cancelled.handle(text("status"));
    expect(cancelled.handle(key("escape"))).toEqual({ kind: "cancelled", state: draft });
  });

  it("deleting the whole query shows the draft again", () => {
    const search = new HistorySearch(entries, draft);
    search.handle(text("n"));
    expect(search.state.text).toBe("npm test");
    search.handle(key("backspace"));
    expect(search.state).toEqual(draft);
    expect(search.describe()).toMatch(/^\(reverse-i-search\)'' /);
  });
});

/** A prompt in vim mode: vim's answer to each key, else the editor's insert (what the line editor does). */
function vimPrompt(initial = "") {
  const vim = new VimMode();
  let state: LineState = { text: "", cursor: 0 };
  let history: -1 | 1 | undefined;
  const press = (pressed: Key) => {
    const outcome = vim.handle(pressed, state);
    if (outcome) {
      state = outcome.state;
      history = outcome.history;
    } else if (pressed.name === "text") {
      state = {
        text: state.text.slice(0, state.cursor) + pressed.text + state.text.slice(state.cursor),
        cursor: state.cursor + pressed.text.length,
      };
    }
  };
  const prompt = {
    vim,
    /** Each character as its own key, as a person types them. */
    keys(typed: string) {
      for (const character of typed) press(text(character));
      return prompt;
    },
    escape() {
      press(key("escape"));
      return prompt;
    },
    get state() {
      return state;
    },
    get history() {
      return history;
    },
  };
  if (initial) prompt.keys(initial).escape();
  return prompt;
}

describe("/vim: the prompt's vim keys", () => {
  it("Esc leaves insert mode with the cursor back on the last character typed; the hint row names the mode", () => {
    const prompt = vimPrompt();
    expect(prompt.vim.describe()).toBe("-- INSERT --");
    prompt.keys("hello world").escape();
    expect(prompt.state).toEqual({ text: "hello world", cursor: 10 });
    expect(prompt.vim.describe()).toBe("-- NORMAL --");
    prompt.keys("d");
    expect(prompt.vim.describe()).toBe("-- NORMAL -- d");
    prompt.escape();
    expect(prompt.vim.describe()).toBe("-- NORMAL --");
    expect(prompt.state.text).toBe("hello world");
  });

  it("motions: 0 ^ $ w b e, with counts", () => {
    const prompt = vimPrompt("  one two-three four");
    const at = (keys: string) => prompt.keys(keys).state.cursor;
    expect(at("0")).toBe(0);
    expect(at("^")).toBe(2);
    expect(at("w")).toBe(6);
    expect(at("w")).toBe(9); // "-" is a word of its own
    expect(at("0W")).toBe(2);
    expect(at("2W")).toBe(16);
    expect(at("b")).toBe(10);
    expect(at("e")).toBe(14);
    expect(at("$")).toBe(19);
  });

  it("dw deletes a word into the register, p puts it after the cursor, u undoes each change", () => {
    const prompt = vimPrompt("hello world");
    prompt.keys("0dw");
    expect(prompt.state).toEqual({ text: "world", cursor: 0 });
    prompt.keys("p");
    expect(prompt.state).toEqual({ text: "whello orld", cursor: 6 });
    prompt.keys("u");
    expect(prompt.state.text).toBe("world");
    prompt.keys("u");
    expect(prompt.state.text).toBe("hello world");
  });

  it("counts multiply: d2w and 2dw delete two words; 3x three characters; r replaces; a count past the line's end does nothing", () => {
    expect(vimPrompt("a b c d").keys("0d2w").state.text).toBe("c d");
    expect(vimPrompt("a b c d").keys("02dw").state.text).toBe("c d");
    expect(vimPrompt("abcdef").keys("03x").state).toEqual({ text: "def", cursor: 0 });
    expect(vimPrompt("abc").keys("0rx").state).toEqual({ text: "xbc", cursor: 0 });
    expect(vimPrompt("abc").keys("03rx").state).toEqual({ text: "xxx", cursor: 2 });
    expect(vimPrompt("abc").keys("04rx").state.text).toBe("abc");
  });

  it("cw changes to the word's end and types in insert mode; one Esc and u take the whole change back", () => {
    const prompt = vimPrompt("hello world");
    prompt.keys("0cw");
    expect(prompt.vim.mode).toBe("insert");
    expect(prompt.state).toEqual({ text: " world", cursor: 0 });
    prompt.keys("bye").escape();
    expect(prompt.state).toEqual({ text: "bye world", cursor: 2 });
    prompt.keys("u");
    expect(prompt.state.text).toBe("hello world");
  });

  it("dd deletes the line with its line break, p puts it back below as a line; o opens a line", () => {
    const prompt = vimPrompt("one\ntwo\nthree");
    prompt.keys("kdd");
    expect(prompt.state).toEqual({ text: "one\nthree", cursor: 4 });
    prompt.keys("p");
    expect(prompt.state).toEqual({ text: "one\nthree\ntwo", cursor: 10 });
    prompt.keys("ggoinserted").escape();
    expect(prompt.state.text).toBe("one\ninserted\nthree\ntwo");
    prompt.keys("G");
    expect(prompt.state.cursor).toBe(19);
  });

  it("A and I type at the line's end and start; a run of keys after i is typed text", () => {
    expect(vimPrompt("  mid").keys("Aend").state.text).toBe("  midend");
    expect(vimPrompt("  mid").keys("Istart").state.text).toBe("  startmid");
    const prompt = vimPrompt("ac");
    prompt.keys("0");
    // A fast run arrives as one text key: after `a`, the rest is what was typed.
    expect(prompt.vim.handle(text("ab"), prompt.state)).toEqual({ state: { text: "abc", cursor: 2 } });
  });

  it("k on the first line and j on the last step through the prompt history instead", () => {
    const prompt = vimPrompt("one\ntwo");
    prompt.keys("j");
    expect(prompt.history).toBe(1);
    prompt.keys("k");
    expect(prompt.history).toBeUndefined();
    expect(prompt.state.cursor).toBe(2);
    prompt.keys("k");
    expect(prompt.history).toBe(-1);
  });

  it("Esc in normal mode with no command typed is left to the session (Esc Esc: /rewind)", () => {
    const prompt = vimPrompt("text");
    expect(prompt.vim.handle(key("escape"), prompt.state)).toBeUndefined();
  });
});
