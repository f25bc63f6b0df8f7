import { MinagentError } from "../../errors.js";

/** A front-matter value: a string, or a list of strings. */
export type FrontMatterValue = string | string[];

/** A Markdown file split into its front matter and its body. */
export type FrontMatterDocument = { data: Record<string, FrontMatterValue>; body: string };

/** A file whose front matter cannot be read; `line` is 1-based in the file. */
export class FrontMatterError extends MinagentError {
  constructor(
    message: string,
    readonly line: number | undefined,
  ) {
    super(message);
  }
}

const keyLine = /^([A-Za-z_][A-Za-z0-9_-]*)[ \t]*:(?:[ \t]+(.*?))?[ \t]*$/;
const listItem = /^([ \t]+)-(?:[ \t]+(.*?))?[ \t]*$/;
const blockScalar = /^([|>])[+-]?$/;

/**
 * Splits a Markdown file into its YAML front matter and body, reading the subset of YAML that agent definitions
 * use — on purpose no more, and no dependency:
 *
 * - the block opens with `---` on the first line and closes with `---` (or `...`) on a line of its own;
 * - `key: value` lines at the left margin (a key is letters, digits, `_`, `-`); blank lines and `# comments` skipped;
 * - a value is plain text (a ` #` starts a comment), `"double quoted"` (JSON escapes), `'single quoted'` (`''` is a
 *   quote), a flow list `[a, "b", c]`, a block list (the key alone, then indented `- item` lines), or a block
 *   scalar (`|` keeps line breaks, `>` folds them into spaces) whose lines are indented;
 * - every value is a string or a list of strings: `true` stays `"true"`, and the caller decides.
 *
 * Anything else (a nested map, an anchor, a tab where a key should be, a key given twice) throws a
 * {@link FrontMatterError} with its line.
 */
export function parseFrontMatter(text: string): FrontMatterDocument {
  const lines = text.replace(/^\uFEFF/, "").split(/\r?\n/);
  if (lines[0]?.trimEnd() !== "---") throw new FrontMatterError("it does not start with a front matter block (a line `---`)", 1);
  const end = lines.findIndex((line, index) => index > 0 && (line.trimEnd() === "---" || line.trimEnd() === "..."));
  if (end === -1) throw new FrontMatterError("its front matter block is not closed (a line `---` after it)", undefined);
  const data: Record<string, FrontMatterValue> = {};
  let index = 1;
  while (index < end) {
    const line = lines[index] as string;
    if (line.trim() === "" || line.trimStart().startsWith("#")) {
      index++;
      continue;
    }
    const match = keyLine.exec(line);
    if (!match) throw new FrontMatterError(`expected \`key: value\`, found \`${shorten(line)}\``, index + 1);
    const key = match[1] as string;
    if (Object.hasOwn(data, key)) throw new FrontMatterError(`the key \`${key}\` is given twice`, index + 1);
    const raw = match[2] ?? "";
    const block = indentedLines(lines, index + 1, end);
    if (raw === "" || raw.startsWith("#")) {
      data[key] = block.length > 0 ? readBlockList(block, index + 2) : "";
    } else if (blockScalar.test(raw)) {
      data[key] = readBlockScalar(block, raw.startsWith("|"));
    } else {
      if (block.length > 0) throw new FrontMatterError(`\`${key}\` has a value and indented lines under it`, index + 2);
      data[key] = readInlineValue(raw, index + 1);
    }
    index += 1 + block.length;
  }
  return {
    data,
    body: lines
      .slice(end + 1)
      .join("\n")
      .trim(),
  };
}

/** The lines after a key that belong to it: indented ones, and blank ones between them. */
function indentedLines(lines: readonly string[], start: number, end: number): string[] {
  let last = start;
  for (let index = start; index < end; index++) {
    const line = lines[index] as string;
    if (/^[ \t]/.test(line) && line.trim() !== "") last = index + 1;
    else if (line.trim() !== "") break;
  }
  return lines.slice(start, last);
}

function readBlockList(block: readonly string[], firstLine: number): string[] {
  const items: string[] = [];
  block.forEach((line, offset) => {
    if (line.trim() === "" || line.trim().startsWith("#")) return;
    const match = listItem.exec(line);
    if (!match) throw new FrontMatterError(`expected a list item \`- value\`, found \`${shorten(line)}\``, firstLine + offset);
    const value = readInlineValue(match[2] ?? "", firstLine + offset);
    if (Array.isArray(value)) throw new FrontMatterError("a list inside a list is not supported", firstLine + offset);
    items.push(value);
  });
  return items;
}

function readBlockScalar(block: readonly string[], literal: boolean): string {
  const indents = block.filter((line) => line.trim() !== "").map((line) => (/^[ \t]*/.exec(line) as RegExpExecArray)[0].length);
  const indent = Math.min(...indents);
  const texts = block.map((line) => line.slice(indent).trimEnd());
  while (texts.length > 0 && texts[texts.length - 1] === "") texts.pop();
  if (literal) return texts.join("\n");
  // Folded: lines of one paragraph are joined by spaces; a blank line is a line break.
  return texts.reduce((folded, text, index) => {
    if (index === 0) return text;
    if (text === "") return `${folded}\n`;
    return folded.endsWith("\n") ? `${folded}${text}` : `${folded} ${text}`;
  }, "");
}

function readInlineValue(raw: string, line: number): FrontMatterValue {
  if (raw.startsWith("[")) {
    if (!raw.endsWith("]")) throw new FrontMatterError(`the list \`${shorten(raw)}\` is not closed with \`]\``, line);
    const inner = raw.slice(1, -1).trim();
    if (inner === "") return [];
    return splitFlowList(inner, line).map((item) => {
      const value = readInlineValue(item, line);
      if (Array.isArray(value)) throw new FrontMatterError("a list inside a list is not supported", line);
      return value;
    });
  }
  if (raw.startsWith('"')) {
    const end = closingQuote(raw, '"');
    if (end === -1) throw new FrontMatterError(`the string ${shorten(raw)} is not closed`, line);
    try {
      const value: unknown = JSON.parse(raw.slice(0, end + 1));
      rejectTrailing(raw.slice(end + 1), line);
      return value as string;
    } catch (error) {
      if (error instanceof FrontMatterError) throw error;
      throw new FrontMatterError(`the string ${shorten(raw)} has an invalid escape`, line);
    }
  }
  if (raw.startsWith("'")) {
    const end = closingQuote(raw, "'");
    if (end === -1) throw new FrontMatterError(`the string ${shorten(raw)} is not closed`, line);
    rejectTrailing(raw.slice(end + 1), line);
    return raw.slice(1, end).replaceAll("''", "'");
  }
  if (/^[&*!{]/.test(raw)) throw new FrontMatterError(`\`${shorten(raw)}\`: anchors, aliases, tags and maps are not supported`, line);
  return raw.replace(/[ \t]+#.*$/, "").trim();
}

/** The index of the quote closing a string that starts at 0 (`\"` escapes in double quotes, `''` in single ones). */
function closingQuote(raw: string, quote: string): number {
  for (let index = 1; index < raw.length; index++) {
    const character = raw[index];
    if (quote === '"' && character === "\\") index++;
    else if (character === quote) {
      if (quote === "'" && raw[index + 1] === "'") index++;
      else return index;
    }
  }
  return -1;
}

function rejectTrailing(rest: string, line: number): void {
  const trimmed = rest.trim();
  if (trimmed !== "" && !trimmed.startsWith("#"))
    throw new FrontMatterError(`unexpected \`${shorten(trimmed)}\` after a quoted string`, line);
}

/** Splits `a, "b, c", d` on the commas outside quotes. */
function splitFlowList(inner: string, line: number): string[] {
  const items: string[] = [];
  let start = 0;
  for (let index = 0; index < inner.length; index++) {
    const character = inner[index] as string;
    if (character === '"' || character === "'") {
      const end = closingQuote(inner.slice(index), character);
      if (end === -1) throw new FrontMatterError(`a string in the list \`[${shorten(inner)}]\` is not closed`, line);
      index += end;
    } else if (character === ",") {
      items.push(inner.slice(start, index).trim());
      start = index + 1;
    }
  }
  items.push(inner.slice(start).trim());
  return items.filter((item) => item !== "");
}

function shorten(text: string): string {
  const trimmed = text.trim();
  return trimmed.length > 60 ? `${trimmed.slice(0, 57)}…` : trimmed;
}
