import { codePointWidth, displayWidth } from "./text-width.js";

// Where each character of the prompt's text goes on the screen. The editor draws every row itself (a line break
// after each), rather than letting the terminal wrap: a wide character that does not fit, a tab, a row filled to the
// last column then behave the same on every terminal, and the cursor's row is known exactly.

/** How many columns a tab takes: to the next multiple of this, counted from the start of its line of text. */
const tabStop = 4;

/** One row of the input as drawn. */
export type InputRow = {
  /** What is drawn, its prefix (the prompt, or spaces as wide) included. */
  text: string;
  /** Columns it takes. */
  width: number;
  /** The text indices the cursor can stand at on this row, in order, and the column of each. */
  indices: number[];
  columns: number[];
};

/** The rows of an input and where the cursor is among them. */
export type InputLayout = { rows: InputRow[]; cursorRow: number; cursorColumn: number };

/**
 * Lays out `text` in rows at most `columns` wide: the first line after `prompt`, the others (and every row a long
 * line wraps onto) after `continuation`. A line that fills its last row exactly gets an empty row after it, for the
 * cursor at its end to stand on.
 */
export function layoutInput(prompt: string, continuation: string, text: string, cursor: number, columns: number): InputLayout {
  const rows: InputRow[] = [];
  const indent = displayWidth(continuation);
  let offset = 0;
  for (const [lineIndex, line] of text.split("\n").entries()) {
    const prefix = lineIndex === 0 ? prompt : continuation;
    let row: InputRow = { text: prefix, width: displayWidth(prefix), indices: [], columns: [] };
    let lineColumn = 0;
    let index = offset;
    for (const character of line) {
      const shown = shownCharacter(character, lineColumn);
      const width = shown === character ? codePointWidth(character.codePointAt(0) as number) : displayWidth(shown);
      if (row.width + width > columns && row.indices.length > 0) {
        rows.push(row);
        row = { text: continuation, width: indent, indices: [], columns: [] };
      }
      row.indices.push(index);
      row.columns.push(row.width);
      row.text += shown;
      row.width += width;
      lineColumn += width;
      index += character.length;
    }
    if (row.width >= columns) {
      rows.push(row);
      row = { text: continuation, width: indent, indices: [], columns: [] };
    }
    row.indices.push(index);
    row.columns.push(row.width);
    rows.push(row);
    offset = index + 1;
  }
  const cursorRow = Math.max(
    0,
    rows.findIndex((row) => row.indices.includes(cursor)),
  );
  const row = rows[cursorRow] as InputRow;
  const cursorColumn = row.columns[row.indices.indexOf(cursor)] ?? row.width;
  return { rows, cursorRow, cursorColumn };
}

/** The text index on `row` nearest to `column` (at or before it): where Up and Down take the cursor. */
export function indexAtColumn(row: InputRow, column: number): number {
  let found = row.indices[0] ?? 0;
  for (const [position, index] of row.indices.entries()) if ((row.columns[position] as number) <= column) found = index;
  return found;
}

/** A tab as spaces to the next tab stop; other control characters as `^X`, so that none moves the terminal's cursor. */
function shownCharacter(character: string, lineColumn: number): string {
  if (character === "\t") return " ".repeat(tabStop - (lineColumn % tabStop));
  const code = character.charCodeAt(0);
  if (code < 0x20) return `^${String.fromCharCode(code + 0x40)}`;
  if (code === 0x7f) return "^?";
  return character;
}
