import { formatNumber } from "../../text.js";
import { formatLine } from "./file-text.js";

/**
 * Where the window's bytes come from: an open file (a FileHandle is one) or text already in memory
 * ({@link readBytesOf}). `read` copies up to `length` bytes from `position` into `buffer` at `offset`.
 */
export type ByteSource = {
  read(buffer: Buffer, offset: number, length: number, position: number): Promise<{ bytesRead: number }>;
};

/** A {@link ByteSource} over bytes in memory, such as an editor's text encoded as UTF-8. */
export function readBytesOf(bytes: Buffer): ByteSource {
  return {
    read: async (buffer, offset, length, position) => ({
      bytesRead: position >= bytes.length ? 0 : bytes.copy(buffer, offset, position, Math.min(bytes.length, position + length)),
    }),
  };
}

/** Which lines of a file to show, and within what bounds. */
export type WindowRequest = {
  /** First line to show, 1-based. */
  start: number;
  /** Most lines to show. */
  limit: number;
  /** Longer lines are cut to this many characters. */
  maxLineLength: number;
  /** Most characters of output; lines stop before it is passed (at least one line is shown). */
  maxCharacters: number;
  /** Read on to the end after the window to count the file's lines (only worth it for smaller files). */
  countAll: boolean;
  signal: AbortSignal;
};

/** The lines shown and what was left out. */
export type Window = {
  /** The lines, formatted like `cat -n`. */
  lines: string[];
  /** Numbers of the lines that were cut to `maxLineLength`. */
  cutLines: number[];
  /** Number of the last line shown (`start - 1` when none was). */
  last: number;
  /** How many lines the file has, when the whole file was scanned. */
  total: number | undefined;
  /** Why the window ended: the file's end, the line limit, or the character budget. */
  stop: "end" | "lines" | "characters";
};

const chunkSize = 64 * 1024;

/**
 * Reads the requested lines from an open file (or any {@link ByteSource}), streaming: memory holds one chunk and at
 * most a few kilobytes of the current line, however large the file or its lines; reading stops after the window
 * unless asked to count.
 */
export async function readLineWindow(source: ByteSource, request: WindowRequest): Promise<Window> {
  const window: Window = { lines: [], cutLines: [], last: request.start - 1, total: undefined, stop: "end" };
  let lineNumber = 1;
  let characters = 0;
  let counting = false;
  const splitter = new LineSplitter(request.maxLineLength * 4 + 4, (bytes, length) => {
    if (lineNumber >= request.start && !counting) {
      const stop = window.lines.length >= request.limit ? "lines" : undefined;
      const { text, cut } = stop ? { text: "", cut: false } : decodeLine(bytes, length, lineNumber, request.maxLineLength);
      const formatted = formatLine(lineNumber, text);
      const overBudget = !stop && window.lines.length > 0 && characters + formatted.length + 1 > request.maxCharacters;
      if (stop || overBudget) {
        window.stop = stop ?? "characters";
        if (!request.countAll) return false;
        counting = true;
      } else {
        window.lines.push(formatted);
        characters += formatted.length + 1;
        if (cut) window.cutLines.push(lineNumber);
        window.last = lineNumber;
      }
    }
    lineNumber++;
    return true;
  });
  const buffer = Buffer.allocUnsafe(chunkSize);
  for (let position = 0; ; ) {
    request.signal.throwIfAborted();
    const { bytesRead } = await source.read(buffer, 0, chunkSize, position);
    if (bytesRead === 0) {
      splitter.end();
      window.total = lineNumber - 1;
      return window;
    }
    position += bytesRead;
    if (!splitter.push(buffer.subarray(0, bytesRead))) return window;
  }
}

function decodeLine(bytes: Buffer, length: number, lineNumber: number, maxLength: number): { text: string; cut: boolean } {
  let text = bytes.toString("utf8");
  if (lineNumber === 1 && text.startsWith("\uFEFF")) text = text.slice(1);
  if (length === bytes.length && text.endsWith("\r")) text = text.slice(0, -1);
  if (text.length <= maxLength && length === bytes.length) return { text, cut: false };
  let end = maxLength;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end--; // never split a surrogate pair
  return { text: `${text.slice(0, end)}… [line cut; it is ${formatNumber(length)} bytes long]`, cut: true };
}

/**
 * Splits a stream of bytes at LF into lines, keeping at most `keep` bytes of each (and its full length). Lines are
 * split on bytes: a LF byte never occurs inside a multi-byte UTF-8 character.
 */
class LineSplitter {
  readonly #keep: number;
  readonly #onLine: (bytes: Buffer, length: number) => boolean;
  #parts: Buffer[] = [];
  #kept = 0;
  #length = 0;

  /** `onLine` gets each line's kept bytes (without the LF) and its full length; it returns false to stop. */
  constructor(keep: number, onLine: (bytes: Buffer, length: number) => boolean) {
    this.#keep = keep;
    this.#onLine = onLine;
  }

  /** Feeds a chunk (which may be reused afterwards); returns false once `onLine` asked to stop. */
  push(chunk: Buffer): boolean {
    for (let from = 0; ; ) {
      const newline = chunk.indexOf(10, from);
      const end = newline === -1 ? chunk.length : newline;
      if (newline !== -1 && this.#length === 0) {
        // The whole line is in this chunk: hand over a view, no copy.
        if (!this.#onLine(chunk.subarray(from, Math.min(end, from + this.#keep)), end - from)) return false;
      } else {
        this.#take(chunk, from, end);
        if (newline === -1) return true;
        if (!this.#emit()) return false;
      }
      from = newline + 1;
      if (from === chunk.length) return true;
    }
  }

  /** Ends the stream: a last line without a line break is a line too. */
  end(): void {
    if (this.#length > 0) this.#emit();
  }

  #take(chunk: Buffer, from: number, end: number): void {
    this.#length += end - from;
    const room = this.#keep - this.#kept;
    if (room <= 0 || end === from) return;
    const part = Buffer.from(chunk.subarray(from, Math.min(end, from + room)));
    this.#parts.push(part);
    this.#kept += part.length;
  }

  #emit(): boolean {
    const bytes = this.#parts.length === 1 ? (this.#parts[0] as Buffer) : Buffer.concat(this.#parts);
    const length = this.#length;
    this.#parts = [];
    this.#kept = 0;
    this.#length = 0;
    return this.#onLine(bytes, length);
  }
}
