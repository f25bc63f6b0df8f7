import type { CodeSessionContext } from "../session-context.js";
import { type Key, KeyDecoder } from "./keys.js";
import { truncateToWidth } from "./text-width.js";

/** Colours and emphasis; every function returns its text unchanged when colour is off. */
export type Style = Record<
  "bold" | "dim" | "italic" | "red" | "green" | "yellow" | "blue" | "magenta" | "cyan" | "inverse",
  (text: string) => string
>;

/** Receives the keys while it is on top of the terminal's stack of key handlers. */
export type KeyHandler = (key: Key) => void;

/** How long a lone ESC waits for the rest of a sequence before it counts as the Escape key. */
const escapeWaitMs = 30;

const codes: Record<keyof Style, [number, number]> = {
  bold: [1, 22],
  dim: [2, 22],
  italic: [3, 23],
  red: [31, 39],
  green: [32, 39],
  yellow: [33, 39],
  blue: [34, 39],
  magenta: [35, 39],
  cyan: [36, 39],
  inverse: [7, 27],
};

/** Colour is on for a terminal unless NO_COLOR is set or TERM is dumb; FORCE_COLOR turns it on anywhere. */
export function createStyle(enabled: boolean): Style {
  const style = {} as Style;
  for (const [name, [open, close]] of Object.entries(codes) as [keyof Style, [number, number]][])
    style[name] = enabled ? (text) => `\x1b[${open}m${text}\x1b[${close}m` : (text) => text;
  return style;
}

export function colorEnabled(env: Record<string, string | undefined>, isTerminal: boolean): boolean {
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== "0") return true;
  return isTerminal && env.NO_COLOR === undefined && env.TERM !== "dumb";
}

/**
 * The terminal of an interactive session: keys in raw mode, dispatched to the handler on top of a stack (the prompt,
 * a running turn, a dialog), and the screen. On a real terminal the bottom row keeps a status line and everything
 * else scrolls above it (a scroll region, as apt's progress bar does); output of a run is held back while a dialog
 * is open and written when it closes.
 */
export class Terminal {
  readonly style: Style;
  /** Whether the output is a terminal that takes cursor movements (otherwise lines are only appended). */
  readonly live: boolean;
  readonly #input: CodeSessionContext["terminal"]["input"];
  readonly #output: CodeSessionContext["terminal"]["output"];
  readonly #decoder = new KeyDecoder();
  readonly #handlers: KeyHandler[] = [];
  #escapeTimer: NodeJS.Timeout | undefined;
  #held: string[] | undefined;
  #status = "";
  /** Rows of the screen when the scroll region was set; undefined without one. */
  #regionRows: number | undefined;
  #started = false;
  /** While a full-screen view is on the alternate screen: what it redraws on a resize; undefined otherwise. */
  #alternate: { onResize: () => void; resized: boolean } | undefined;
  readonly #resizeListeners = new Set<() => void>();

  constructor(streams: CodeSessionContext["terminal"], env: Record<string, string | undefined>) {
    this.#input = streams.input;
    this.#output = streams.output;
    this.live = streams.output.isTTY === true && env.TERM !== "dumb";
    this.style = createStyle(colorEnabled(env, streams.output.isTTY === true));
  }

  get columns(): number {
    return Math.max(20, this.#output.columns ?? 80);
  }

  get rows(): number {
    return Math.max(5, this.#output.rows ?? 24);
  }

  /** Raw mode, key reading, bracketed paste and the status row. */
  start(): void {
    if (this.#started) return;
    this.#started = true;
    this.#input.setRawMode?.(true);
    this.#input.setEncoding?.("utf8");
    this.#input.on("data", this.#onData);
    this.#input.resume();
    process.on("exit", this.#restoreOnExit);
    if (!this.live) return;
    this.#output.write("\x1b[?2004h");
    this.#setRegion();
    this.#output.on("resize", this.#onResize);
  }

  /** Gives the terminal back as it was: cooked mode, no scroll region, no status row. */
  close(): void {
    if (!this.#started) return;
    this.#started = false;
    clearTimeout(this.#escapeTimer);
    this.#input.off("data", this.#onData);
    this.#input.setRawMode?.(false);
    this.#input.pause();
    process.off("exit", this.#restoreOnExit);
    this.release();
    if (!this.live) return;
    // A session that ends with the transcript open (a SIGTERM) leaves the alternate screen first.
    if (this.#alternate) this.#output.write("\x1b[2J\x1b[?1049l");
    this.#alternate = undefined;
    this.#output.off("resize", this.#onResize);
    const rows = this.#regionRows;
    this.#regionRows = undefined;
    this.#output.write(`\x1b[?2004l${rows === undefined ? "" : `\x1b7\x1b[${rows};1H\x1b[2K\x1b[r\x1b8`}`);
  }

  /** A process that ends without {@link close} (a crash) still gives the terminal back: writes to a TTY are synchronous. */
  readonly #restoreOnExit = (): void => this.close();

  /** Puts `handler` on top of the key handlers; the function returned takes it off. */
  pushKeys(handler: KeyHandler): () => void {
    this.#handlers.push(handler);
    return () => {
      const index = this.#handlers.lastIndexOf(handler);
      if (index !== -1) this.#handlers.splice(index, 1);
    };
  }

  /** Output of a run: written now, or when the open dialog closes. */
  print(text: string): void {
    if (this.#held) this.#held.push(text);
    else this.#output.write(text);
  }

  /** Writes now, dialog or not (the prompt, a dialog itself). */
  write(text: string): void {
    this.#output.write(text);
  }

  /** Holds back {@link print}ed output until {@link release} (while a dialog is open). */
  hold(): void {
    this.#held ??= [];
  }

  release(): void {
    const held = this.#held;
    this.#held = undefined;
    if (held?.length) this.#output.write(held.join(""));
  }

  /** The status row's text (shown on a live terminal only). */
  setStatus(text: string): void {
    if (text === this.#status) return;
    this.#status = text;
    if (this.#regionRows !== undefined && !this.#alternate) this.#output.write(this.#statusDrawing());
  }

  /** What redraws the status row, to add to a write that may have erased it (`\x1b[J`). */
  statusDrawing(): string {
    return this.#regionRows === undefined || this.#alternate ? "" : this.#statusDrawing();
  }

  /**
   * Switches to the alternate screen for a full-screen view (the transcript), the whole of it, no status row: the
   * session's screen, cursor and scrollback stay as they are until {@link leaveAlternateScreen}. Meanwhile a resize
   * calls `onResize` only; the session's own redraws wait until the screen is back.
   */
  enterAlternateScreen(onResize: () => void): void {
    if (!this.live || this.#alternate) return;
    this.#alternate = { onResize, resized: false };
    this.#output.write("\x1b[?1049h\x1b[r\x1b[2J\x1b[H");
  }

  /** Back to the session's screen as it was: its scroll region and status row drawn again (redrawn after a resize). */
  leaveAlternateScreen(): void {
    const alternate = this.#alternate;
    if (!alternate) return;
    this.#alternate = undefined;
    this.#output.write("\x1b[2J\x1b[?1049l");
    if (alternate.resized) this.#onResize();
    else if (this.#regionRows !== undefined) this.#output.write(`\x1b7\x1b[1;${this.#regionRows - 1}r\x1b8${this.#statusDrawing()}`);
  }

  /**
   * Erases the `count` rows above the cursor's row and that row itself, leaving the cursor at the start of the
   * first of them: a dialog taken off the screen once answered.
   */
  eraseRowsAbove(count: number): void {
    if (!this.live) return;
    const up = Math.min(count, (this.#regionRows ?? this.rows) - 2);
    this.#output.write(`\r${up > 0 ? `\x1b[${up}A` : ""}\x1b[J${this.statusDrawing()}`);
  }

  /** Clears the screen and the scrollback, then draws the status row again (/clear). */
  clearScreen(): void {
    if (!this.live) return;
    this.#output.write("\x1b[2J\x1b[3J\x1b[H");
    this.#regionRows = undefined;
    this.#setRegion();
  }

  #statusDrawing(): string {
    const rows = this.#regionRows as number;
    return `\x1b7\x1b[${rows};1H\x1b[2K${truncateToWidth(this.#status, this.columns - 1)}\x1b8`;
  }

  /** Keeps the bottom row out of the scrolling area; the cursor stays where it was (one row up if it was there). */
  #setRegion(): void {
    const rows = this.rows;
    if (rows < 6) return;
    // A line feed makes room when the cursor is on the bottom row; the cursor then goes back up.
    this.#output.write(`\n\x1b[1A\x1b7\x1b[1;${rows - 1}r\x1b8`);
    this.#regionRows = rows;
    this.#output.write(this.#statusDrawing());
  }

  /** Calls `listener` after the terminal is resized (the prompt draws itself again); the function returned stops it. */
  onResize(listener: () => void): () => void {
    this.#resizeListeners.add(listener);
    return () => this.#resizeListeners.delete(listener);
  }

  readonly #onResize = (): void => {
    if (this.#alternate) {
      this.#alternate.resized = true;
      this.#alternate.onResize();
      return;
    }
    const old = this.#regionRows;
    // A terminal that grew leaves the old status row in the middle: clear it. One that shrank has moved it (terminals
    // differ in how): the new status row is drawn over what is there.
    if (old !== undefined) this.#output.write(`\x1b7${old <= this.rows ? `\x1b[${old};1H\x1b[2K` : ""}\x1b[r\x1b8`);
    this.#regionRows = undefined;
    this.#setRegion();
    for (const listener of this.#resizeListeners) listener();
  };

  readonly #onData = (chunk: string | Buffer): void => {
    clearTimeout(this.#escapeTimer);
    this.#dispatch(this.#decoder.feed(typeof chunk === "string" ? chunk : chunk.toString("utf8")));
    if (this.#decoder.waiting) this.#escapeTimer = setTimeout(() => this.#dispatch(this.#decoder.flush()), escapeWaitMs);
  };

  #dispatch(keys: readonly Key[]): void {
    for (const key of keys) this.#handlers[this.#handlers.length - 1]?.(key);
  }
}
