import { HistorySearch } from "./history-search.js";
import { indexAtColumn, layoutInput } from "./input-layout.js";
import type { Key, KeyName } from "./keys.js";
import type { Terminal } from "./terminal.js";
import { applyEditingKey, continueLine, continuesLine, type LineState } from "./text-editing.js";
import { displayWidth, truncateToWidth } from "./text-width.js";
import { VimMode } from "./vim-mode.js";

export type { LineState } from "./text-editing.js";

/** How a {@link readLine} ended: submitted, stopped by its signal, or one of the caller's own outcomes. */
export type LineOutcome<Extra> = { kind: "submit"; text: string } | { kind: "aborted" } | Extra;

/** Earlier inputs for Up, Down and Ctrl-R, oldest first; a submitted input is added. */
export type InputHistory = {
  readonly entries: readonly string[];
  add(text: string): void;
};

/** Settings of {@link readLine}. */
export type LineOptions<Extra> = {
  /** What starts the first line (may be styled), e.g. "> ". */
  prompt: string;
  /** What starts the lines after it, and the rows a long line wraps onto (default: spaces as wide as the prompt). */
  continuation?: string | undefined;
  /** Text to start with (typed ahead while the agent was working). */
  initial?: string | undefined;
  /** Where the cursor starts in `initial` (default: its end). */
  initialCursor?: number | undefined;
  /** Draws `initial` as submitted and ends at once (a prompt typed ahead and sent with Enter during a turn). */
  submitAtOnce?: boolean | undefined;
  /** Earlier inputs: Up and Down walk through them, Ctrl-R searches them. */
  history?: InputHistory | undefined;
  /** Vim keys (normal and insert modes; /vim). */
  vim?: boolean | undefined;
  /** A dim line shown under the input for the text as it stands (suggestions, a warning), or undefined. */
  hint?: ((state: LineState) => string | undefined) | undefined;
  /** What a paste inserts (default: the text as pasted): an image file's path becomes a chip, say. */
  paste?: ((text: string) => string) | undefined;
  /** Tab: the text and cursor completed (a command's name, an `@path`), or undefined to leave them. */
  complete?: ((state: LineState) => LineState | undefined) | undefined;
  /**
   * The caller's own keys, before the editor's: return an outcome to end the read, `true` when handled (the line is
   * drawn again, with any change made to `state`), or undefined to let the editor handle the key. A Ctrl-R search and
   * vim's insert mode take their keys first (Esc there ends the search, or goes to normal mode).
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
  const continuation = " ".repeat(displayWidth(prompt));
  return layoutInput(prompt, continuation, text, text.length, columns).rows.length;
}

/**
 * Reads a line (or several: Alt+Enter, a paste, or a `\` before Enter add a line break) on the terminal with the
 * usual editing keys, drawn where the cursor is. An input taller than the screen shows the rows around the cursor.
 * When it ends the whole text stays on the screen, and the cursor moves to the start of the next line.
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
    if (options.submitAtOnce) return end(editor.submit());
    options.signal?.addEventListener("abort", onAbort, { once: true });
    editor.render();
  });
}

class LineEditor<Extra> {
  readonly #terminal: Terminal;
  readonly #options: LineOptions<Extra>;
  readonly #prompt: string;
  readonly #continuation: string;
  readonly #vim: VimMode | undefined;
  #state: LineState;
  /** Rows drawn from the first one on the screen to the cursor's, their widths, and the cursor's column. */
  #cursorRow = 0;
  #rowWidths: number[] = [];
  #cursorColumn = 0;
  /** The first row of the input drawn when it is taller than the screen. */
  #windowTop = 0;
  /** The column Up and Down keep to while they move through rows of different lengths. */
  #goalColumn: number | undefined;
  /** Where Up/Down are in the history (its length: the draft), and the draft kept meanwhile. */
  #historyIndex: number;
  #draft = "";
  #search: HistorySearch | undefined;

  constructor(terminal: Terminal, options: LineOptions<Extra>) {
    this.#terminal = terminal;
    this.#options = options;
    this.#prompt = options.prompt;
    this.#continuation = options.continuation ?? " ".repeat(displayWidth(options.prompt));
    this.#historyIndex = options.history?.entries.length ?? 0;
    this.#vim = options.vim ? new VimMode() : undefined;
    const initial = options.initial ?? "";
    this.#state = { text: initial, cursor: Math.max(0, Math.min(options.initialCursor ?? initial.length, initial.length)) };
  }

  /** The outcome when the key ends the read; the line is drawn again otherwise. */
  handle(key: Key): LineOutcome<Extra> | undefined {
    const goalColumn = this.#goalColumn;
    this.#goalColumn = undefined;
    if (this.#search && !this.#searchKey(this.#search, key)) return this.#drawn();
    const vim = this.#vim?.handle(key, this.#state);
    if (vim) {
      this.#state = vim.state;
      if (vim.history !== undefined) this.#walkHistory(vim.history);
      return this.#drawn();
    }
    const state = { ...this.#state };
    const own = this.#options.keys?.[key.name]?.(state);
    if (own !== undefined && own !== true) return own;
    if (own === true) this.#state = { text: state.text, cursor: Math.max(0, Math.min(state.cursor, state.text.length)) };
    else if (key.name === "up" || key.name === "down") this.#moveRow(key.name === "up" ? -1 : 1, goalColumn);
    else if (key.name === "enter" && !continuesLine(this.#state)) return this.submit();
    else this.#edit(key);
    return this.#drawn();
  }

  /** Ends the read with the text as it stands, remembered in the history. */
  submit(): LineOutcome<Extra> {
    const { text } = this.#state;
    if (text.trim() !== "") this.#options.history?.add(text);
    return { kind: "submit", text };
  }

  /** Draws the input (and its hint) over what was drawn before; `whole`: every row, however tall. */
  render(showHint = true, whole = false): void {
    const columns = this.#terminal.columns;
    // A search shows its match, not yet taken into the input.
    const shown = this.#search?.state ?? this.#state;
    const layout = layoutInput(this.#prompt, this.#continuation, shown.text, shown.cursor, columns);
    const hint = showHint ? this.#hint() : undefined;
    // The status row stays; the hint needs its row too.
    const height = Math.max(3, this.#terminal.rows - 1 - (hint === undefined ? 0 : 1));
    let rows = layout.rows.map((row) => row.text);
    let widths = layout.rows.map((row) => row.width);
    let cursorRow = layout.cursorRow;
    if (!whole && rows.length > height) {
      const top = this.#window(rows.length, height, cursorRow);
      const dim = this.#terminal.style.dim;
      const below = rows.length - (top + height);
      const lines = (count: number) => (count === 1 ? "1 more line" : `${count} more lines`);
      rows = rows.slice(top, top + height);
      widths = widths.slice(top, top + height);
      // A marker takes the place of the row it stands on.
      if (top > 0) rows[0] = dim(`${this.#continuation}↑ ${lines(top + 1)} above`);
      if (below > 0) rows[height - 1] = dim(`${this.#continuation}↓ ${lines(below + 1)} below`);
      cursorRow -= top;
    }
    let output = `\r${this.#cursorRow > 0 ? `\x1b[${this.#cursorRow}A` : ""}\x1b[J${rows.join("\r\n")}`;
    let endRow = rows.length - 1;
    if (hint !== undefined) {
      output += `\r\n${truncateToWidth(hint, columns - 1)}`;
      endRow += 1;
    }
    const column = layout.cursorColumn;
    output += `\r${endRow > cursorRow ? `\x1b[${endRow - cursorRow}A` : ""}${column > 0 ? `\x1b[${column}C` : ""}`;
    this.#cursorRow = cursorRow;
    this.#rowWidths = widths.slice(0, cursorRow);
    this.#cursorColumn = column;
    this.#terminal.write(output + this.#terminal.statusDrawing());
  }

  /**
   * Draws the input again after a resize. The terminal has re-wrapped what was drawn to the new width (as tmux, VTE,
   * iTerm2, kitty and Windows Terminal do): the rows above the cursor now take as many rows as their widths need.
   */
  redraw(): void {
    const columns = this.#terminal.columns;
    const above = this.#rowWidths.reduce((rows, width) => rows + Math.max(1, Math.ceil(width / columns)), 0);
    this.#cursorRow = Math.min(above + Math.floor(this.#cursorColumn / columns), this.#terminal.rows - 2);
    this.render();
  }

  /** Leaves the whole input on the screen without its hint, the cursor on the line below it. */
  finish(): void {
    this.#search = undefined;
    this.#state = { ...this.#state, cursor: this.#state.text.length };
    this.render(false, true);
    this.#terminal.write("\r\n");
    this.#cursorRow = 0;
    this.#rowWidths = [];
  }

  #drawn(): undefined {
    this.render();
    return undefined;
  }

  /** What the hint row shows: the search, or vim's mode and the caller's hint. */
  #hint(): string | undefined {
    const style = this.#terminal.style;
    if (this.#search) return this.#search.describe();
    const own = this.#options.hint?.(this.#state);
    const mode = this.#vim ? style.bold(this.#vim.describe()) : undefined;
    if (mode === undefined) return own;
    return own === undefined ? mode : `${mode}  ${own}`;
  }

  /** The first row drawn of an input `total` rows tall on `height` rows, keeping the cursor off the marker rows. */
  #window(total: number, height: number, cursorRow: number): number {
    let top = this.#windowTop;
    if (cursorRow < top + 1) top = cursorRow - 1;
    if (cursorRow > top + height - 2) top = cursorRow - height + 2;
    top = Math.max(0, Math.min(top, total - height));
    this.#windowTop = top;
    return top;
  }

  /** A key during a Ctrl-R search; true when the editor should go on to handle it. */
  #searchKey(search: HistorySearch, key: Key): boolean {
    const outcome = search.handle(key);
    if (outcome.kind === "searching") return false;
    this.#search = undefined;
    this.#state = outcome.state;
    return outcome.kind === "accepted" && outcome.passOn;
  }

  /** Up or Down: the row above or below (on wrapped rows too), the history past the first or last row. */
  #moveRow(step: -1 | 1, goalColumn: number | undefined): void {
    const layout = layoutInput(this.#prompt, this.#continuation, this.#state.text, this.#state.cursor, this.#terminal.columns);
    const target = layout.rows[layout.cursorRow + step];
    if (!target) {
      this.#walkHistory(step);
      return;
    }
    const column = goalColumn ?? layout.cursorColumn;
    this.#state = { text: this.#state.text, cursor: indexAtColumn(target, column) };
    this.#goalColumn = column;
  }

  /** Applies an editing key. */
  #edit(key: Key): void {
    const state = this.#state;
    switch (key.name) {
      case "enter":
        this.#state = continueLine(state);
        return;
      case "tab": {
        const completed = this.#options.complete?.(state);
        if (completed !== undefined)
          this.#state = { text: completed.text, cursor: Math.max(0, Math.min(completed.cursor, completed.text.length)) };
        return;
      }
      case "ctrl-l":
        this.#terminal.clearScreen();
        this.#cursorRow = 0;
        return;
      case "ctrl-r":
        if (this.#options.history) this.#search = new HistorySearch(this.#options.history.entries, state);
        return;
      default:
        this.#state = applyEditingKey(state, key, this.#options.paste) ?? state;
    }
  }

  #walkHistory(step: number): void {
    const entries = this.#options.history?.entries;
    if (!entries) return;
    const index = this.#historyIndex + step;
    if (index < 0 || index > entries.length) return;
    if (this.#historyIndex === entries.length) this.#draft = this.#state.text;
    this.#historyIndex = index;
    const text = index === entries.length ? this.#draft : (entries[index] as string);
    this.#state = { text, cursor: text.length };
  }
}
