import type { Key } from "./keys.js";

// The editing keys every way of typing a prompt shares (the prompt itself, its vim mode, text typed ahead while a
// turn runs), as pure functions of the text and the cursor.

/** The text being edited and where the cursor is (an index into the text, between characters). */
export type LineState = { text: string; cursor: number };

/**
 * The state after an editing key that needs nothing but the text (typing, pasting, deleting, moving along a line),
 * or undefined for a key that is not one of them. `paste` turns pasted text into what is inserted.
 */
export function applyEditingKey(state: LineState, key: Key, paste: (text: string) => string = (text) => text): LineState | undefined {
  const { text, cursor } = state;
  const insert = (inserted: string) => ({ text: text.slice(0, cursor) + inserted + text.slice(cursor), cursor: cursor + inserted.length });
  const start = lineStartOf(text, cursor);
  const end = lineEndOf(text, cursor);
  switch (key.name) {
    case "text":
      return insert(key.text);
    case "paste":
      return insert(paste(key.text));
    case "newline":
      return insert("\n");
    case "backspace": {
      const from = previousCharacter(text, cursor);
      return { text: text.slice(0, from) + text.slice(cursor), cursor: from };
    }
    case "delete":
    case "ctrl-d":
      return { text: text.slice(0, cursor) + text.slice(nextCharacter(text, cursor)), cursor };
    case "left":
      return { text, cursor: previousCharacter(text, cursor) };
    case "right":
      return { text, cursor: nextCharacter(text, cursor) };
    case "home":
      return { text, cursor: start };
    case "end":
      return { text, cursor: end };
    case "word-left":
      return { text, cursor: wordStart(text, cursor) };
    case "word-right":
      return { text, cursor: wordEnd(text, cursor) };
    case "delete-word": {
      const from = wordStart(text, cursor);
      return { text: text.slice(0, from) + text.slice(cursor), cursor: from };
    }
    case "ctrl-u":
      return { text: text.slice(0, start) + text.slice(cursor), cursor: start };
    case "ctrl-k":
      return { text: text.slice(0, cursor) + text.slice(end), cursor };
    default:
      return undefined;
  }
}

/** Whether Enter at this state continues the text on a new line (a `\` just before the cursor, at the end). */
export function continuesLine(state: LineState): boolean {
  return state.cursor > 0 && state.cursor === state.text.length && state.text[state.cursor - 1] === "\\";
}

/** The state after Enter that continues the line: the `\` becomes a line break. */
export function continueLine(state: LineState): LineState {
  return { text: `${state.text.slice(0, state.cursor - 1)}\n${state.text.slice(state.cursor)}`, cursor: state.cursor };
}

/** Where the line holding `index` starts. */
export function lineStartOf(text: string, index: number): number {
  return text.lastIndexOf("\n", index - 1) + 1;
}

/** Where the line holding `index` ends (the index of its line break, or the text's length). */
export function lineEndOf(text: string, index: number): number {
  const end = text.indexOf("\n", index);
  return end === -1 ? text.length : end;
}

export function previousCharacter(text: string, index: number): number {
  if (index <= 0) return 0;
  const code = text.charCodeAt(index - 1);
  return code >= 0xdc00 && code <= 0xdfff && index >= 2 ? index - 2 : index - 1;
}

export function nextCharacter(text: string, index: number): number {
  if (index >= text.length) return text.length;
  const code = text.charCodeAt(index);
  return code >= 0xd800 && code <= 0xdbff && index + 1 < text.length ? index + 2 : index + 1;
}

function wordStart(text: string, index: number): number {
  let at = index;
  while (at > 0 && /\s/.test(text[at - 1] as string)) at--;
  while (at > 0 && !/\s/.test(text[at - 1] as string)) at--;
  return at;
}

function wordEnd(text: string, index: number): number {
  let at = index;
  while (at < text.length && /\s/.test(text[at] as string)) at++;
  while (at < text.length && !/\s/.test(text[at] as string)) at++;
  return at;
}
