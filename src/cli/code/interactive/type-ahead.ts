import type { Key } from "./keys.js";
import { applyEditingKey, continueLine, continuesLine, type LineState } from "./text-editing.js";

/**
 * What is typed while a turn runs, with the prompt's editing keys (line breaks, the cursor moved, words deleted), for
 * the prompt after the turn. Enter queues the text typed so far, as Claude Code does: it is sent when the turn ends,
 * or given back to edit when the turn is interrupted.
 */
export class TypeAhead {
  #state: LineState = { text: "", cursor: 0 };
  #queued: string[] = [];

  /** Applies a key typed during the turn; `paste` turns pasted text into what is inserted (an image's chip). */
  handle(key: Key, paste?: (text: string) => string): void {
    if (key.name === "enter") {
      if (continuesLine(this.#state)) this.#state = continueLine(this.#state);
      else if (this.#state.text.trim() !== "") {
        this.#queued.push(this.#state.text);
        this.#state = { text: "", cursor: 0 };
      }
      return;
    }
    this.#state = applyEditingKey(this.#state, key, paste) ?? this.#state;
  }

  /** The prompts queued with Enter, as one prompt (undefined when none), taken off the queue. */
  takeQueued(): string | undefined {
    const queued = this.#queued;
    this.#queued = [];
    return queued.length > 0 ? queued.join("\n") : undefined;
  }

  /** Puts the queued prompts back in front of the text being typed, not to be sent (the turn was interrupted). */
  unqueue(): void {
    const queued = this.takeQueued();
    if (queued === undefined) return;
    const text = this.#state.text === "" ? queued : `${queued}\n${this.#state.text}`;
    this.#state = { text, cursor: this.#state.cursor + text.length - this.#state.text.length };
  }

  /** The text typed (not queued) and its cursor, taken. */
  takeDraft(): LineState {
    const state = this.#state;
    this.#state = { text: "", cursor: 0 };
    return state;
  }
}
