import type { Key } from "./keys.js";
import type { Terminal } from "./terminal.js";
import { truncateToWidth } from "./text-width.js";

/**
 * The transcript (Ctrl-O): the whole conversation, every tool output in full, on the terminal's alternate screen so
 * that the session's own screen and scrollback come back untouched when it closes. It takes every key while open
 * (none reaches the prompt or a running turn) and holds the run's output back until it closes. While a turn runs it
 * follows the turn: {@link refresh} draws the new steps, and keeps the view at the end if it was there.
 */
export class TranscriptView {
  readonly #terminal: Terminal;
  /** The transcript's lines for a width, built afresh from the conversation at each refresh. */
  readonly #build: (columns: number) => string[];
  #lines: string[] = [];
  /** The first line shown. */
  #top = 0;
  #open = false;
  #drawn = false;
  #releaseKeys: (() => void) | undefined;
  #closed: Promise<void> = Promise.resolve();
  #resolveClosed: () => void = () => {};

  constructor(terminal: Terminal, build: (columns: number) => string[]) {
    this.#terminal = terminal;
    this.#build = build;
  }

  get isOpen(): boolean {
    return this.#open;
  }

  /** Settles once the view is closed (at once when it is not open). */
  get closed(): Promise<void> {
    return this.#closed;
  }

  /**
   * Opens the view at the end of the transcript. Keys are taken at once; the screen is switched a moment later, once
   * the key handler that opened it has finished drawing on the session's screen (the prompt redraws itself).
   * A terminal that takes no cursor movements gets the whole transcript printed instead.
   */
  open(): void {
    if (this.#open) return;
    if (!this.#terminal.live) {
      this.#terminal.write(`\n${this.#build(this.#terminal.columns).join("\n")}\n\n`);
      return;
    }
    this.#open = true;
    this.#drawn = false;
    this.#closed = new Promise((resolve) => {
      this.#resolveClosed = resolve;
    });
    this.#terminal.hold();
    this.#releaseKeys = this.#terminal.pushKeys(this.#onKey);
    queueMicrotask(() => {
      if (!this.#open) return;
      this.#terminal.enterAlternateScreen(() => this.refresh());
      this.#lines = this.#build(this.#terminal.columns);
      this.#top = this.#lastTop();
      this.#drawn = true;
      this.#draw();
    });
  }

  /** Gives the session's screen back as it was, status line included, and the output held meanwhile. */
  close(): void {
    if (!this.#open) return;
    this.#open = false;
    this.#releaseKeys?.();
    this.#releaseKeys = undefined;
    if (this.#drawn) this.#terminal.leaveAlternateScreen();
    this.#terminal.release();
    this.#resolveClosed();
  }

  /** Builds the lines again (the turn went on, the terminal was resized); the end stays in view if it was. */
  refresh(): void {
    if (!this.#open || !this.#drawn) return;
    const atEnd = this.#top >= this.#lastTop();
    this.#lines = this.#build(this.#terminal.columns);
    this.#top = atEnd ? this.#lastTop() : Math.min(this.#top, this.#lastTop());
    this.#draw();
  }

  /** Rows the lines have: all but the bottom one, which says where the view is and how to leave. */
  get #bodyRows(): number {
    return this.#terminal.rows - 1;
  }

  #lastTop(): number {
    return Math.max(0, this.#lines.length - this.#bodyRows);
  }

  readonly #onKey = (key: Key): void => {
    const page = Math.max(1, this.#bodyRows - 1);
    const text = key.name === "text" ? key.text : undefined;
    let top = this.#top;
    if (key.name === "ctrl-o" || key.name === "escape" || key.name === "ctrl-c" || text === "q") {
      this.close();
      return;
    }
    if (key.name === "up" || text === "k") top -= 1;
    else if (key.name === "down" || text === "j" || key.name === "enter") top += 1;
    else if (key.name === "page-up" || text === "b") top -= page;
    else if (key.name === "page-down" || text === " ") top += page;
    else if (key.name === "home" || text === "g") top = 0;
    else if (key.name === "end" || text === "G") top = this.#lastTop();
    // Every other key is taken too: nothing typed here reaches the prompt.
    else return;
    this.#top = Math.max(0, Math.min(top, this.#lastTop()));
    if (this.#drawn) this.#draw();
  };

  #draw(): void {
    const { columns } = this.#terminal;
    const { dim, inverse } = this.#terminal.style;
    const rows = this.#bodyRows;
    let output = "\x1b[H";
    for (let row = 0; row < rows; row++) {
      const line = this.#lines[this.#top + row];
      output += `\x1b[${row + 1};1H\x1b[2K${line === undefined ? "" : truncateToWidth(line, columns - 1)}`;
    }
    const last = Math.min(this.#lines.length, this.#top + rows);
    const where = `Transcript · lines ${this.#lines.length === 0 ? 0 : this.#top + 1}–${last} of ${this.#lines.length}`;
    const help = "↑↓ PgUp PgDn Home End: scroll · ctrl+o, esc, q: close";
    const footer = truncateToWidth(`${where} · ${help}`, columns - 1);
    output += `\x1b[${rows + 1};1H\x1b[2K${inverse(dim(footer))}`;
    this.#terminal.write(output);
  }
}
