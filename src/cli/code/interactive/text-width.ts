// Widths of text on a terminal: escape sequences take no room, wide (East Asian, emoji) characters take two
// columns, combining marks none. Close enough for a prompt and status line; no table of every code point.

// biome-ignore lint/suspicious/noControlCharactersInRegex: escape sequences are what is removed
const ansiPattern = /\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b[78]|\x1b\][^\x07]*\x07/g;

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is removed
const controlPattern = /[\x00-\x08\x0b-\x1f\x7f]/g;

/**
 * `text` safe to print: control characters other than line breaks and tabs removed, so that text from a model or a
 * file (an ESC, a carriage return) cannot move the cursor or change the terminal.
 */
export function printable(text: string): string {
  return text.replace(controlPattern, "");
}

/** `text` without terminal escape sequences. */
export function stripAnsi(text: string): string {
  return text.replace(ansiPattern, "");
}

/** Columns one code point takes. */
export function codePointWidth(codePoint: number): number {
  if (codePoint < 0x20 || (codePoint >= 0x7f && codePoint < 0xa0)) return 0;
  if (
    (codePoint >= 0x300 && codePoint <= 0x36f) || // combining diacritics
    (codePoint >= 0x200b && codePoint <= 0x200f) || // zero-width space, joiners, marks
    (codePoint >= 0xfe00 && codePoint <= 0xfe0f) // variation selectors
  )
    return 0;
  if (
    (codePoint >= 0x1100 && codePoint <= 0x115f) ||
    (codePoint >= 0x2e80 && codePoint <= 0x303e) ||
    (codePoint >= 0x3041 && codePoint <= 0x33ff) ||
    (codePoint >= 0x3400 && codePoint <= 0x4dbf) ||
    (codePoint >= 0x4e00 && codePoint <= 0x9fff) ||
    (codePoint >= 0xa000 && codePoint <= 0xa4cf) ||
    (codePoint >= 0xac00 && codePoint <= 0xd7a3) ||
    (codePoint >= 0xf900 && codePoint <= 0xfaff) ||
    (codePoint >= 0xfe30 && codePoint <= 0xfe4f) ||
    (codePoint >= 0xff00 && codePoint <= 0xff60) ||
    (codePoint >= 0xffe0 && codePoint <= 0xffe6) ||
    (codePoint >= 0x1f300 && codePoint <= 0x1f64f) ||
    (codePoint >= 0x1f900 && codePoint <= 0x1f9ff) ||
    (codePoint >= 0x20000 && codePoint <= 0x3fffd)
  )
    return 2;
  return 1;
}

/** Columns `text` takes (escape sequences removed). */
export function displayWidth(text: string): number {
  let width = 0;
  for (const character of stripAnsi(text)) width += codePointWidth(character.codePointAt(0) as number);
  return width;
}

/** `text` (without escape sequences) cut to at most `columns` columns, ending in "…" when cut. */
export function truncateToWidth(text: string, columns: number): string {
  if (displayWidth(text) <= columns) return text;
  const plain = stripAnsi(text);
  let width = 0;
  let cut = "";
  for (const character of plain) {
    const next = codePointWidth(character.codePointAt(0) as number);
    if (width + next > columns - 1) break;
    cut += character;
    width += next;
  }
  return `${cut}…`;
}

/** Text on one line: runs of white space (line breaks included) become one space. */
export function flattenText(text: string): string {
  return printable(text).replace(/\s+/g, " ").trim();
}

/**
 * `text` (without escape sequences) broken into lines of at most `columns` columns, at spaces where it can be — a
 * word wider than a line is cut — each paragraph's first line starting with `indent`, the rest with `hangingIndent`
 * (default: `indent`), so that a long description lines up under its own start rather than breaking mid-word.
 * @example wrapToWidth("one two three", 9, { hangingIndent: "  " }) // ["one two", "  three"]
 */
export function wrapToWidth(text: string, columns: number, options: { indent?: string; hangingIndent?: string } = {}): string[] {
  const indent = options.indent ?? "";
  const hanging = options.hangingIndent ?? indent;
  const lines: string[] = [];
  for (const paragraph of text.split("\n")) {
    let prefix = indent;
    let line = "";
    const push = () => {
      lines.push(`${prefix}${line}`.trimEnd());
      prefix = hanging;
      line = "";
    };
    // Split at each space, so that a run of spaces within a line stays as written.
    for (const word of paragraph.split(" ")) {
      const room = Math.max(1, columns - displayWidth(prefix));
      const candidate = line === "" ? word : `${line} ${word}`;
      if (displayWidth(candidate) <= room) {
        line = candidate;
        continue;
      }
      if (line !== "") push();
      // A word wider than a whole line is cut where the line ends.
      let rest = word;
      while (displayWidth(rest) > Math.max(1, columns - displayWidth(prefix))) {
        const [head, tail] = splitAtWidth(rest, Math.max(1, columns - displayWidth(prefix)));
        line = head;
        push();
        rest = tail;
      }
      line = rest;
    }
    push();
  }
  return lines;
}

/** `text` cut after at most `columns` columns (at least one character), and what is left. */
function splitAtWidth(text: string, columns: number): [string, string] {
  let width = 0;
  let index = 0;
  for (const character of text) {
    const next = codePointWidth(character.codePointAt(0) as number);
    if (width + next > columns && index > 0) break;
    width += next;
    index += character.length;
  }
  return [text.slice(0, index), text.slice(index)];
}
