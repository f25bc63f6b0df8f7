import type { Key, KeyName } from "./keys.js";
import type { Terminal } from "./terminal.js";
import { displayWidth, truncateToWidth } from "./text-width.js";

/** How a {@link readLine} ended: submitted, stopped by its signal, or one of the caller's own outcomes. */
export type LineOutcome<Extra> = { kind: "submit"; text: string } | { kind: "aborted" } | Extra;

/** The text being edited, for the key handlers a caller adds. */
export type LineState = { text: string; cursor: number };

/** Settings of {@link readLine}. */
export type LineOptions<Extra> = {
  /** What starts the first line (may be styled), e.g. "> ". */
  prompt: string;
  /** What starts the lines after it (default: spaces as wide as the prompt). */
  continuation?: string | undefined;
  /** Text to start with (typed ahead while the agent was working). */
  initial?: string | undefined;
  /** Earlier inputs, oldest first: Up and Down walk through them. A submitted line is added. */
  history?: string[] | undefined;
  /** A dim line shown under the input for the text as it stands (suggestions, a warning), or undefined. */
  hint?: ((state: LineState) => string | undefined) | undefined;
  /** What a paste inserts (default: the text as pasted): an image file's path becomes a chip, say. */
  paste?: ((text: string) => string) | undefined;
  /** Tab: the text and cursor completed (a command's name, an `@path`), or undefined to leave them. */
  complete?: ((state: LineState) => LineState | undefined) | undefined;
  /**
   * The caller's own keys, before the editor's: return an outcome to end the read, `true` when handled (the line is
   * drawn again, with any change made to `state`), or undefined to let the editor handle the key.
   */
  keys?: Partial<Record<KeyName, (state: LineState) => Extra | true | undefined>> | undefined;
  /**
   * Lets the caller draw the line again when its hint changes without a key (results that came in): called once
   * with a function that draws it; what it returns is called when the read ends.
   */
  redraws?: ((redraw: () => void) => () => void) | undefined;
  /** Told of every key first (e.g. to disarm a "press again to exit"). */
  onKey?: ((key: Key) => void) | undefined;
  /** Ends the read with `{ kind: "aborted" }`. */
  signal?: AbortSignal | undefined;
};

/** Rows a submitted input takes on the screen once {@link readLine} has left it there (for erasing a dialog). */
export function countInputRows(prompt: string, text: string, columns: number): number {
  const continuation = displayWidth(prompt);
  return text.split("\n").reduce((rows, line, index, lines) => {
    const width = continuation + displayWidth(line);
    return rows + (index === lines.length - 1 ? Math.floor(width / columns) + 1 : Math.max(1, Math.ceil(width / columns)));
  }, 0);
}

/**
 * Reads a line (or several: Alt+Enter, a paste, or a `\` before Enter add a line break) on the terminal with the
 * usual editing keys, drawn where the cursor is. When it ends the text stays on the screen, and the cursor moves to
 * the start of the next line.
 */
export function readLine<Extra = never>(terminal: Terminal, options: LineOptions<Extra>): Promise<LineOutcome<Extra>> {
  return new Promise((resolve) => {
    const editor = new LineEditor(terminal, options);
    const end = (outcome: LineOutcome<Extra>) => {
      release();
      stopResizing();
      stopRedraws?.();
      options.signal?.removeEventListener("abort", onAbort);
      editor.finish();
      resolve(outcome);
    };
    const onAbort = () => end({ kind: "aborted" });
    const release = terminal.pushKeys((key) => {
      options.onKey?.(key);
      const outcome = editor.handle(key);
      if (outcome !== undefined) end(outcome);
    });
    const stopResizing = terminal.onResize(() => editor.redraw());
    const stopRedraws = options.redraws?.(() => editor.render());
    if (options.signal?.aborted) return end({ kind: "aborted" });
    options.signal?.addEventListener("abort", onAbort, { once: true });
    editor.render();
  });
}

class LineEditor<Extra> {
  readonly #terminal: Terminal;
  readonly #options: LineOptions<Extra>;
  readonly #prompt: string;
  readonly #continuation: string;
  #state: LineState = { text: "", cursor: 0 };
  /** Rows from the first row of the input to the row the cursor is on. */
  #cursorRow = 0;
  /** Where Up/Down are in the history (its length: the draft), and the draft kept meanwhile. */
  #historyIndex: number;
  #draft = "";

  constructor(terminal: Terminal, options: LineOptions<Extra>) {
    this.#terminal = terminal;
    this.#options = options;
    this.#prompt = options.prompt;
    this.#continuation = options.continuation ?? " ".repeat(displayWidth(options.prompt));
    this.#historyIndex = options.history?.length ?? 0;
    const initial = options.initial ?? "";
    this.#state = { text: initial, cursor: initial.length };
  }

  /** The outcome when the key ends the read; the line is drawn again otherwise. */
  handle(key: Key): LineOutcome<Extra> | undefined {
    const state = { ...this.#state };
    const own = this.#options.keys?.[key.name]?.(state);
    if (own !== undefined && own !== true) return own;
    if (own === true) this.#state = { text: state.text, cursor: Math.max(0, Math.min(state.cursor, state.text.length)) };
    else {
      const submitted = this.#edit(key);
      if (submitted !== undefined) return { kind: "submit", text: submitted };
    }
    this.render();
    return undefined;
  }

  /** Draws the input (and its hint) over what was drawn before. */
  render(showHint = true): void {
    const columns = this.#terminal.columns;
    const { text, cursor } = this.#state;
    const lines = text.split("\n");
    let output = `\r${this.#cursorRow > 0 ? `\x1b[${this.#cursorRow}A` : ""}\x1b[J`;
    let rows = 0;
    let cursorRow = 0;
    let cursorColumn = 0;
    let offset = 0;
    let cursorPlaced = false;
    lines.forEach((line, index) => {
      const prefix = index === 0 ? this.#prompt : this.#continuation;
      const width = displayWidth(prefix) + displayWidth(line);
      const last = index === lines.length - 1;
      output += `${prefix}${line}${last ? "" : "\r\n"}`;
      if (!cursorPlaced && cursor <= offset + line.length) {
        const before = displayWidth(prefix) + displayWidth(line.slice(0, cursor - offset));
        cursorRow = rows + Math.floor(before / columns);
        cursorColumn = before % columns;
        cursorPlaced = true;
      }
      // A full last row leaves the cursor waiting to wrap: give it the row below to stand on.
      if (last && width > 0 && width % columns === 0) output += "\r\n";
      rows += last ? Math.floor(width / columns) + 1 : Math.max(1, Math.ceil(width / columns));
      offset += line.length + 1;
    });
    let endRow = rows - 1;
    const hint = showHint ? this.#options.hint?.(this.#state) : undefined;
    if (hint !== undefined) {
      output += `\r\n${truncateToWidth(hint, columns - 1)}`;
      endRow += 1;
    }
    output += `\r${endRow > cursorRow ? `\x1b[${endRow - cursorRow}A` : ""}${cursorColumn > 0 ? `\x1b[${cursorColumn}C` : ""}`;
    this.#cursorRow = cursorRow;
    this.#terminal.write(output + this.#terminal.statusDrawing());
  }

  /** Draws the input afresh from the cursor's row (after a resize, which may have moved what was drawn). */
  redraw(): void {
    this.#cursorRow = 0;
    this.render();
  }

  /** Leaves the input on the screen without its hint, the cursor on the line below it. */
  finish(): void {
    this.#state = { ...this.#state, cursor: this.#state.text.length };
    this.render(false);
    this.#terminal.write("\r\n");
    this.#cursorRow = 0;
  }

  /** Applies an editing key; returns the text when it is submitted. */
  #edit(key: Key): string | undefined {
    const { text, cursor } = this.#state;
    const set = (next: string, at: number) => {
      this.#state = { text: next, cursor: at };
    };
    const insert = (inserted: string) => set(text.slice(0, cursor) + inserted + text.slice(cursor), cursor + inserted.length);
    const lineStart = text.lastIndexOf("\n", cursor - 1) + 1;
    const lineEndIndex = text.indexOf("\n", cursor);
    const lineEnd = lineEndIndex === -1 ? text.length : lineEndIndex;
    switch (key.name) {
      case "text":
        insert(key.text);
        break;
      case "paste":
        insert(this.#options.paste ? this.#options.paste(key.text) : key.text);
        break;
      case "newline":
        insert("\n");
        break;
      case "enter":
        if (cursor > 0 && text[cursor - 1] === "\\" && cursor === text.length) {
          set(`${text.slice(0, cursor - 1)}\n`, cursor);
          break;
        }
        this.#remember(text);
        return text;
      case "backspace":
        if (cursor > 0) {
          const from = previousCharacter(text, cursor);
          set(text.slice(0, from) + text.slice(cursor), from);
        }
        break;
      case "delete":
      case "ctrl-d":
        if (cursor < text.length) set(text.slice(0, cursor) + text.slice(nextCharacter(text, cursor)), cursor);
        break;
      case "left":
        set(text, previousCharacter(text, cursor));
        break;
      case "right":
        set(text, nextCharacter(text, cursor));
        break;
      case "home":
        set(text, lineStart);
        break;
      case "end":
        set(text, lineEnd);
        break;
      case "word-left":
        set(text, wordStart(text, cursor));
        break;
      case "word-right":
        set(text, wordEnd(text, cursor));
        break;
      case "delete-word": {
        const from = wordStart(text, cursor);
        set(text.slice(0, from) + text.slice(cursor), from);
        break;
      }
      case "ctrl-u":
        set(text.slice(0, lineStart) + text.slice(cursor), lineStart);
        break;
      case "ctrl-k":
        set(text.slice(0, cursor) + text.slice(lineEnd), cursor);
        break;
      case "up":
        if (lineStart > 0) {
          const previousStart = text.lastIndexOf("\n", lineStart - 2) + 1;
          set(text, Math.min(previousStart + (cursor - lineStart), lineStart - 1));
        } else this.#walkHistory(-1);
        break;
      case "down":
        if (lineEnd < text.length) {
          const nextEndIndex = text.indexOf("\n", lineEnd + 1);
          set(text, Math.min(lineEnd + 1 + (cursor - lineStart), nextEndIndex === -1 ? text.length : nextEndIndex));
        } else this.#walkHistory(1);
        break;
      case "tab": {
        const completed = this.#options.complete?.({ text, cursor });
        if (completed !== undefined) set(completed.text, Math.max(0, Math.min(completed.cursor, completed.text.length)));
        break;
      }
      case "ctrl-l":
        this.#terminal.clearScreen();
        this.#cursorRow = 0;
        break;
      default:
        break;
    }
    return undefined;
  }

  #walkHistory(step: number): void {
    const history = this.#options.history;
    if (!history) return;
    const index = this.#historyIndex + step;
    if (index < 0 || index > history.length) return;
    if (this.#historyIndex === history.length) this.#draft = this.#state.text;
    this.#historyIndex = index;
    const text = index === history.length ? this.#draft : (history[index] as string);
    this.#state = { text, cursor: text.length };
  }

  #remember(text: string): void {
    const history = this.#options.history;
    if (!history || text.trim() === "" || history[history.length - 1] === text) return;
    history.push(text);
  }
}

function previousCharacter(text: string, index: number): number {
  if (index <= 0) return 0;
  const code = text.charCodeAt(index - 1);
  return code >= 0xdc00 && code <= 0xdfff && index >= 2 ? index - 2 : index - 1;
}

function nextCharacter(text: string, index: number): number {
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
