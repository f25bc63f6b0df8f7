import type { Key } from "./keys.js";
import type { LineState } from "./text-editing.js";

/** What a key did to a {@link HistorySearch}: still searching, accepted (the key then goes on to the editor or not), cancelled. */
export type HistorySearchOutcome =
  | { kind: "searching" }
  | { kind: "accepted"; state: LineState; passOn: boolean }
  | { kind: "cancelled"; state: LineState };

/**
 * Ctrl-R: a reverse incremental search over the earlier prompts, as in bash. Typing narrows the search (ignoring
 * case), Ctrl-R goes to an older match and Ctrl-S to a newer one; Enter or Tab accept the match into the input to edit
 * or send, a key that moves the cursor accepts it and moves; Esc, Ctrl-G and Ctrl-C give the draft back.
 */
export class HistorySearch {
  readonly #entries: readonly string[];
  readonly #draft: LineState;
  #query = "";
  /** The entry shown (an index into the entries), or undefined when nothing matches (or nothing was typed). */
  #match: number | undefined;
  #failed = false;
  #forward = false;

  constructor(entries: readonly string[], draft: LineState) {
    this.#entries = entries;
    this.#draft = draft;
  }

  /** What the input shows meanwhile: the match, the cursor at the query in it, or the draft. */
  get state(): LineState {
    if (this.#match === undefined) return this.#draft;
    const text = this.#entries[this.#match] as string;
    const at = text.toLowerCase().lastIndexOf(this.#query.toLowerCase());
    return { text, cursor: Math.max(0, at) };
  }

  /** The line under the input: the query and how to go on. */
  describe(): string {
    const what = `${this.#failed ? "failed " : ""}${this.#forward ? "i-search" : "reverse-i-search"}`;
    return `(${what})'${this.#query}'  ctrl+r older · ctrl+s newer · enter accept · esc cancel`;
  }

  handle(key: Key): HistorySearchOutcome {
    switch (key.name) {
      case "text":
      case "paste":
        this.#query += key.text.replace(/\n/g, " ");
        this.#find(this.#match ?? this.#entries.length - 1, -1, true);
        return { kind: "searching" };
      case "backspace":
        this.#query = this.#query.slice(0, -1);
        if (this.#query === "") {
          this.#match = undefined;
          this.#failed = false;
        } else this.#find(this.#entries.length - 1, -1, true);
        return { kind: "searching" };
      case "ctrl-r":
        this.#find((this.#match ?? this.#entries.length) - 1, -1, false);
        return { kind: "searching" };
      case "ctrl-s":
        if (this.#match !== undefined) this.#find(this.#match + 1, 1, false);
        return { kind: "searching" };
      case "escape":
      case "ctrl-g":
      case "ctrl-c":
        return { kind: "cancelled", state: this.#draft };
      case "enter":
      case "tab":
        return { kind: "accepted", state: this.state, passOn: false };
      default:
        return { kind: "accepted", state: this.state, passOn: true };
    }
  }

  /**
   * Looks from `from` in `step`'s direction for an entry holding the query; `sameAllowed` lets the match shown stay
   * (typing more that it still holds), otherwise an entry with the same text as the match is passed over.
   */
  #find(from: number, step: -1 | 1, sameAllowed: boolean): void {
    this.#forward = step === 1;
    const query = this.#query.toLowerCase();
    const current = this.#match === undefined ? undefined : this.#entries[this.#match];
    for (let index = from; index >= 0 && index < this.#entries.length; index += step) {
      const entry = this.#entries[index] as string;
      if (!sameAllowed && entry === current) continue;
      if (entry.toLowerCase().includes(query)) {
        this.#match = index;
        this.#failed = false;
        return;
      }
    }
    this.#failed = true;
  }
}
