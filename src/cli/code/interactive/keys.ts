/** A key (or a run of typed or pasted text) read from a terminal in raw mode. */
export type Key =
  | { name: "text"; text: string }
  /** Text pasted with bracketed paste on: inserted as is, line breaks included. */
  | { name: "paste"; text: string }
  | {
      name:
        | "enter"
        /** A line break in the input: Alt+Enter, Shift+Enter where the terminal reports it, Ctrl+J. */
        | "newline"
        | "backspace"
        | "delete"
        | "left"
        | "right"
        | "up"
        | "down"
        | "home"
        | "end"
        | "word-left"
        | "word-right"
        | "delete-word"
        | "tab"
        | "shift-tab"
        | "escape"
        | "ctrl-c"
        | "ctrl-d"
        | "ctrl-l"
        | "ctrl-u"
        | "ctrl-k"
        /** The transcript view (Claude Code's Ctrl-O): every tool output in full. */
        | "ctrl-o"
        /** History search, backwards (Ctrl-R) and forwards (Ctrl-S). */
        | "ctrl-r"
        | "ctrl-s"
        | "ctrl-g"
        | "page-up"
        | "page-down"
        | "unknown";
    };

export type KeyName = Key["name"];

/** The keys that carry no text. */
type PlainKeyName = Exclude<KeyName, "text" | "paste">;

const pasteStart = "\x1b[200~";
const pasteEnd = "\x1b[201~";

const controlKeys: Readonly<Record<string, Key>> = {
  "\r": { name: "enter" },
  "\n": { name: "newline" },
  "\x7f": { name: "backspace" },
  "\b": { name: "backspace" },
  "\t": { name: "tab" },
  "\x03": { name: "ctrl-c" },
  "\x04": { name: "ctrl-d" },
  "\x0c": { name: "ctrl-l" },
  "\x15": { name: "ctrl-u" },
  "\x0b": { name: "ctrl-k" },
  "\x0f": { name: "ctrl-o" },
  "\x12": { name: "ctrl-r" },
  "\x13": { name: "ctrl-s" },
  "\x07": { name: "ctrl-g" },
  "\x17": { name: "delete-word" },
  "\x01": { name: "home" },
  "\x05": { name: "end" },
  "\x02": { name: "left" },
  "\x06": { name: "right" },
  "\x10": { name: "up" },
  "\x0e": { name: "down" },
};

// CSI sequences (ESC [ … final byte), by what follows the "[".
const csiKeys: Readonly<Record<string, PlainKeyName>> = {
  A: "up",
  B: "down",
  C: "right",
  D: "left",
  H: "home",
  F: "end",
  Z: "shift-tab",
  "1~": "home",
  "7~": "home",
  "4~": "end",
  "8~": "end",
  "3~": "delete",
  "5~": "page-up",
  "6~": "page-down",
  "1;5C": "word-right",
  "1;5D": "word-left",
  "1;3C": "word-right",
  "1;3D": "word-left",
  "13;2u": "newline",
  "27;2;13~": "newline",
};

const ss3Keys: Readonly<Record<string, PlainKeyName>> = { A: "up", B: "down", C: "right", D: "left", H: "home", F: "end" };

/**
 * Turns the bytes a terminal sends in raw mode (read as UTF-8 text) into keys. An escape sequence split across two
 * reads is kept until the rest arrives; a lone ESC at the end of a read is kept too, and becomes the Escape key when
 * {@link flush} is called (the caller waits a few milliseconds for more bytes first, as terminals send a sequence in
 * one write). Pastes between the bracketed-paste markers come as one `paste` key.
 */
export class KeyDecoder {
  #pending = "";
  #paste: string | undefined;

  /** Whether bytes are kept waiting for the rest of a sequence (call {@link flush} if none come). */
  get waiting(): boolean {
    return this.#pending !== "";
  }

  feed(chunk: string): Key[] {
    const keys: Key[] = [];
    let input = this.#pending + chunk;
    this.#pending = "";
    while (input !== "") {
      if (this.#paste !== undefined) {
        const end = input.indexOf(pasteEnd);
        if (end === -1) {
          // Keep what could be the start of the end marker.
          const keep = partialSuffix(input, pasteEnd);
          this.#paste += input.slice(0, input.length - keep);
          this.#pending = input.slice(input.length - keep);
          return keys;
        }
        keys.push({ name: "paste", text: normalizeBreaks(this.#paste + input.slice(0, end)) });
        this.#paste = undefined;
        input = input.slice(end + pasteEnd.length);
        continue;
      }
      const read = readKey(input);
      if (read === undefined) {
        this.#pending = input;
        return keys;
      }
      input = input.slice(read.length);
      if (read.key === "paste-start") this.#paste = "";
      else pushKey(keys, read.key);
    }
    return keys;
  }

  /** The keys kept waiting, as they are: a lone ESC is the Escape key. */
  flush(): Key[] {
    const pending = this.#pending;
    this.#pending = "";
    if (this.#paste !== undefined) {
      const text = this.#paste + pending;
      this.#paste = undefined;
      return [{ name: "paste", text: normalizeBreaks(text) }];
    }
    if (pending === "") return [];
    const keys: Key[] = [{ name: "escape" }];
    if (pending.length > 1) keys.push(...this.feed(pending.slice(1)));
    return keys;
  }
}

/** Reads one key from the start of `input`: the key and how many characters it took, or undefined when incomplete. */
function readKey(input: string): { key: Key | "paste-start"; length: number } | undefined {
  const first = input[0] as string;
  if (first === "\x1b") return readEscape(input);
  if (first === "\r") return { key: { name: "enter" }, length: input[1] === "\n" ? 2 : 1 };
  const control = controlKeys[first];
  if (control) return { key: control, length: 1 };
  if (first < " ") return { key: { name: "unknown" }, length: 1 };
  let end = 1;
  while (end < input.length && (input[end] as string) >= " " && input[end] !== "\x7f") end++;
  return { key: { name: "text", text: input.slice(0, end) }, length: end };
}

function readEscape(input: string): { key: Key | "paste-start"; length: number } | undefined {
  const second = input[1];
  if (second === undefined) return undefined;
  if (second === "[") {
    // Parameters and intermediates (0x20–0x3f), then one final byte (0x40–0x7e).
    let end = 2;
    while (end < input.length && (input.charCodeAt(end) < 0x40 || input.charCodeAt(end) > 0x7e)) {
      if (input.charCodeAt(end) < 0x20 || end > 32) return { key: { name: "escape" }, length: 1 };
      end++;
    }
    if (end >= input.length) return undefined;
    const body = input.slice(2, end + 1);
    if (`\x1b[${body}` === pasteStart) return { key: "paste-start", length: end + 1 };
    return { key: { name: csiKeys[body] ?? "unknown" }, length: end + 1 };
  }
  if (second === "O") {
    const third = input[2];
    if (third === undefined) return undefined;
    return { key: { name: ss3Keys[third] ?? "unknown" }, length: 3 };
  }
  if (second === "\r") return { key: { name: "newline" }, length: 2 };
  if (second === "b") return { key: { name: "word-left" }, length: 2 };
  if (second === "f") return { key: { name: "word-right" }, length: 2 };
  if (second === "\x7f") return { key: { name: "delete-word" }, length: 2 };
  // ESC then something else: Escape, pressed just before the next key.
  return { key: { name: "escape" }, length: 1 };
}

/** Merges consecutive text keys (a fast typist, a paste without bracketed paste). */
function pushKey(keys: Key[], key: Key): void {
  const last = keys[keys.length - 1];
  if (key.name === "text" && last?.name === "text") keys[keys.length - 1] = { name: "text", text: last.text + key.text };
  else keys.push(key);
}

function normalizeBreaks(text: string): string {
  return text.replace(/\r\n?/g, "\n");
}

/** The length of the longest end of `text` that is a proper start of `marker`. */
function partialSuffix(text: string, marker: string): number {
  for (let length = Math.min(marker.length - 1, text.length); length > 0; length--)
    if (marker.startsWith(text.slice(text.length - length))) return length;
  return 0;
}
