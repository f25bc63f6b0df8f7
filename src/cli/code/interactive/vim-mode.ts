import type { Key } from "./keys.js";
import { type LineState, lineEndOf, lineStartOf } from "./text-editing.js";

/** What a key did in vim mode: the new state, and a step through the history when j or k went past the text's edge. */
export type VimOutcome = { state: LineState; history?: -1 | 1 };

type Register = { text: string; linewise: boolean };

/** Characters of a vim "word": letters, digits and `_` (a run of other non-blank characters is a word too). */
const wordCharacter = /[\p{L}\p{N}_]/u;

/**
 * Vim keys for the prompt (/vim). Insert mode types as the usual editor does; Esc goes to normal mode, where the
 * keys are commands: h l j k, w b e (W B E), 0 ^ $, gg G, x X, r, dd D, cc C S s, d c y with a motion, i a I A o O,
 * p P, u, with counts (3w, d2w). Enter sends the prompt in either mode.
 */
export class VimMode {
  mode: "insert" | "normal" = "insert";
  /** The command typed so far in normal mode (a count, an operator…). */
  #pending = "";
  #register: Register = { text: "", linewise: false };
  readonly #undo: LineState[] = [];
  /** The state when insert mode began: what `u` goes back to once it ends. */
  #insertStart: LineState | undefined;

  /** What the hint row shows: the mode, and a command being typed. */
  describe(): string {
    return this.mode === "insert" ? "-- INSERT --" : `-- NORMAL --${this.#pending ? ` ${this.#pending}` : ""}`;
  }

  /** Handles `key` when vim has a meaning for it; undefined leaves it to the editor (and the caller's keys). */
  handle(key: Key, state: LineState): VimOutcome | undefined {
    if (this.mode === "insert") {
      if (key.name !== "escape") {
        this.#insertStart ??= state;
        return undefined;
      }
      this.mode = "normal";
      if (this.#insertStart && this.#insertStart.text !== state.text) this.#undo.push(this.#insertStart);
      this.#insertStart = undefined;
      // As in vim, the cursor steps back onto the last character typed.
      const back = state.cursor > lineStartOf(state.text, state.cursor) ? state.cursor - 1 : state.cursor;
      return { state: { text: state.text, cursor: back } };
    }
    if (key.name === "escape") {
      // Esc in normal mode drops a half-typed command; with none it is the session's (Esc Esc: /rewind).
      if (this.#pending === "") return undefined;
      this.#pending = "";
      return { state };
    }
    if (key.name === "backspace")
      return { state: { text: state.text, cursor: Math.max(lineStartOf(state.text, state.cursor), state.cursor - 1) } };
    if (key.name !== "text") return undefined;
    let outcome: VimOutcome = { state };
    for (const [position, character] of [...key.text].entries()) {
      // A command before this character may have started insert mode.
      if ((this.mode as VimMode["mode"]) === "insert") {
        // The rest of a fast run of keys after `i` is typed text.
        const rest = [...key.text].slice(position).join("");
        const { text, cursor } = outcome.state;
        return { state: { text: text.slice(0, cursor) + rest + text.slice(cursor), cursor: cursor + rest.length } };
      }
      outcome = this.#command(character, outcome.state);
      if (outcome.history !== undefined) return outcome;
    }
    return outcome;
  }

  /** Starts insert mode at `cursor` of `text`; `before` is what `u` gives back afterwards. */
  #insert(before: LineState, text: string, cursor: number): VimOutcome {
    this.mode = "insert";
    this.#insertStart = before;
    return { state: { text, cursor } };
  }

  #command(character: string, state: LineState): VimOutcome {
    const command = this.#pending + character;
    const parsed = /^([1-9]\d*)?(?:([dcy])([1-9]\d*)?)?(g|r)?(.?)$/su.exec(command);
    if (!parsed) {
      this.#pending = "";
      return { state };
    }
    const [, countText, operator, operatorCountText, prefix, action = ""] = parsed;
    if (action === "") {
      this.#pending = command;
      return { state };
    }
    this.#pending = "";
    const count = Number(countText ?? 1) * Number(operatorCountText ?? 1);
    if (prefix === "r") return this.#change(state, () => replaceCharacters(state, action, count));
    const motion = `${prefix ?? ""}${action}`;
    if (operator) return this.#operate(operator, motion, count, state);
    return this.#normal(motion, count, state);
  }

  #normal(motion: string, count: number, state: LineState): VimOutcome {
    const { text, cursor } = state;
    const start = lineStartOf(text, cursor);
    const end = lineEndOf(text, cursor);
    switch (motion) {
      case "i":
        return this.#insert(state, text, cursor);
      case "a":
        return this.#insert(state, text, Math.min(cursor + 1, end));
      case "I":
        return this.#insert(state, text, firstNonBlank(text, start));
      case "A":
        return this.#insert(state, text, end);
      case "o":
        return this.#insert(state, `${text.slice(0, end)}\n${text.slice(end)}`, end + 1);
      case "O":
        return this.#insert(state, `${text.slice(0, start)}\n${text.slice(start)}`, start);
      case "x":
        return this.#operate("d", "l", count, state);
      case "X":
        return this.#operate("d", "h", count, state);
      case "s":
        return this.#operate("c", "l", count, state);
      case "S":
        return this.#operate("c", "c", count, state);
      case "D":
        return this.#operate("d", "$", count, state);
      case "C":
        return this.#operate("c", "$", count, state);
      case "p":
      case "P":
        return this.#change(state, () => this.#put(state, motion === "p", count));
      case "u": {
        let restored: LineState | undefined;
        for (let step = 0; step < count && this.#undo.length > 0; step++) restored = this.#undo.pop();
        return { state: restored ? normalCursor(restored) : state };
      }
      case "j":
      case "k": {
        const moved = moveLines(text, cursor, motion === "j" ? count : -count);
        if (moved === undefined) return { state, history: motion === "j" ? 1 : -1 };
        return { state: normalCursor({ text, cursor: moved }) };
      }
      default: {
        const target = motionTarget(motion, count, state, false);
        return { state: target === undefined ? state : normalCursor({ text, cursor: target }) };
      }
    }
  }

  /** d, c or y over a motion (or dd, cc, yy: whole lines). */
  #operate(operator: string, motion: string, count: number, state: LineState): VimOutcome {
    const { text, cursor } = state;
    if (motion === operator) return this.#operateOnLines(operator, count, state);
    // cw on a word changes to its end, as in vim (it keeps the blank after the word).
    const changeWord = operator === "c" && (motion === "w" || motion === "W") && !/\s/.test(text[cursor] ?? " ");
    const target = motionTarget(changeWord ? (motion === "w" ? "e" : "E") : motion, count, state, true);
    if (target === undefined) return { state };
    const inclusive = changeWord || motion === "e" || motion === "E" || motion === "$";
    const from = Math.min(cursor, target);
    const to = Math.min(text.length, Math.max(cursor, target) + (inclusive && target >= cursor ? 1 : 0));
    this.#register = { text: text.slice(from, to), linewise: false };
    const rest = text.slice(0, from) + text.slice(to);
    if (operator === "y") return { state: { text, cursor: from } };
    if (operator === "c") return this.#insert(state, rest, from);
    return this.#change(state, () => normalCursor({ text: rest, cursor: from }));
  }

  #operateOnLines(operator: string, count: number, state: LineState): VimOutcome {
    const { text, cursor } = state;
    const start = lineStartOf(text, cursor);
    let end = lineEndOf(text, cursor);
    for (let line = 1; line < count && end < text.length; line++) end = lineEndOf(text, end + 1);
    this.#register = { text: `${text.slice(start, end)}\n`, linewise: true };
    if (operator === "y") return { state };
    if (operator === "c") return this.#insert(state, text.slice(0, start) + text.slice(end), start);
    // The lines go with one of the line breaks around them.
    const rest = end < text.length ? text.slice(0, start) + text.slice(end + 1) : text.slice(0, Math.max(0, start - 1));
    const at = Math.min(end < text.length ? start : lineStartOf(rest, rest.length), rest.length);
    return this.#change(state, () => ({ text: rest, cursor: firstNonBlank(rest, at) }));
  }

  #put(state: LineState, after: boolean, count: number): LineState {
    const { text, cursor } = state;
    const { text: register, linewise } = this.#register;
    if (register === "") return state;
    if (linewise) {
      const lines = register.slice(0, -1);
      const block = Array.from({ length: count }, () => lines).join("\n");
      if (after) {
        const end = lineEndOf(text, cursor);
        return { text: `${text.slice(0, end)}\n${block}${text.slice(end)}`, cursor: end + 1 };
      }
      const start = lineStartOf(text, cursor);
      return { text: `${text.slice(0, start)}${block}\n${text.slice(start)}`, cursor: start };
    }
    const at = after && cursor < lineEndOf(text, cursor) ? cursor + 1 : cursor;
    const block = register.repeat(count);
    return { text: text.slice(0, at) + block + text.slice(at), cursor: at + block.length - 1 };
  }

  /** A change `u` can undo. */
  #change(state: LineState, change: () => LineState): VimOutcome {
    const next = change();
    if (next.text !== state.text) this.#undo.push(state);
    return { state: next };
  }
}

/** Where a motion takes the cursor, or undefined for a key that is not one. `operating`: after d, c or y. */
function motionTarget(motion: string, count: number, { text, cursor }: LineState, operating: boolean): number | undefined {
  const start = lineStartOf(text, cursor);
  const end = lineEndOf(text, cursor);
  let at = cursor;
  const repeat = (step: (index: number) => number) => {
    for (let time = 0; time < count; time++) at = step(at);
    return at;
  };
  switch (motion) {
    case "h":
      return Math.max(start, cursor - count);
    case "l":
      return Math.min(operating ? end : Math.max(start, end - 1), cursor + count);
    case "0":
      return start;
    case "^":
      return firstNonBlank(text, start);
    case "$": {
      let last = end;
      for (let line = 1; line < count && last < text.length; line++) last = lineEndOf(text, last + 1);
      return Math.max(start, last - 1);
    }
    case "w":
    case "W":
      return repeat((index) => nextWordStart(text, index, motion === "W"));
    case "e":
    case "E":
      return repeat((index) => wordEndFrom(text, index, motion === "E"));
    case "b":
    case "B":
      return repeat((index) => previousWordStart(text, index, motion === "B"));
    case "gg":
      return 0;
    case "G":
      return lineStartOf(text, text.length);
    default:
      return undefined;
  }
}

/** 0 for blanks (line breaks too), 1 for word characters, 2 for other characters (1 for any non-blank when `big`). */
function classOf(character: string | undefined, big: boolean): number {
  if (character === undefined || /\s/.test(character)) return 0;
  return big || wordCharacter.test(character) ? 1 : 2;
}

function nextWordStart(text: string, index: number, big: boolean): number {
  let at = index;
  const kind = classOf(text[at], big);
  if (kind !== 0) while (at < text.length && classOf(text[at], big) === kind) at++;
  while (at < text.length && classOf(text[at], big) === 0) at++;
  return at;
}

function wordEndFrom(text: string, index: number, big: boolean): number {
  let at = index + 1;
  while (at < text.length && classOf(text[at], big) === 0) at++;
  const kind = classOf(text[at], big);
  while (at + 1 < text.length && classOf(text[at + 1], big) === kind) at++;
  return Math.min(at, Math.max(0, text.length - 1));
}

function previousWordStart(text: string, index: number, big: boolean): number {
  let at = index - 1;
  while (at > 0 && classOf(text[at], big) === 0) at--;
  const kind = classOf(text[at], big);
  while (at > 0 && classOf(text[at - 1], big) === kind) at--;
  return Math.max(0, at);
}

function firstNonBlank(text: string, start: number): number {
  let at = start;
  while (at < text.length && (text[at] === " " || text[at] === "\t")) at++;
  return at;
}

/** The cursor `lines` lines down (up when negative) at the same column, or undefined past the first or last line. */
function moveLines(text: string, cursor: number, lines: number): number | undefined {
  const column = cursor - lineStartOf(text, cursor);
  let start = lineStartOf(text, cursor);
  for (let step = 0; step < Math.abs(lines); step++) {
    if (lines > 0) {
      const end = lineEndOf(text, start);
      if (end >= text.length) return step === 0 ? undefined : start + Math.min(column, lineEndOf(text, start) - start);
      start = end + 1;
    } else {
      if (start === 0) return step === 0 ? undefined : Math.min(column, lineEndOf(text, 0));
      start = lineStartOf(text, start - 1);
    }
  }
  return start + Math.min(column, lineEndOf(text, start) - start);
}

/** In normal mode the cursor stands on a character: not after the last one of a line that has any. */
function normalCursor({ text, cursor }: LineState): LineState {
  const start = lineStartOf(text, cursor);
  const end = lineEndOf(text, cursor);
  return { text, cursor: Math.max(start, Math.min(cursor, end - 1)) };
}

function replaceCharacters(state: LineState, character: string, count: number): LineState {
  const { text, cursor } = state;
  if (cursor + count > lineEndOf(text, cursor)) return state;
  return { text: text.slice(0, cursor) + character.repeat(count) + text.slice(cursor + count), cursor: cursor + count - 1 };
}
