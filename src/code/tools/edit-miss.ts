// Why Edit's old_string was not found, in words that lead the model to the text it meant.
import { plural } from "./file-text.js";

const lineNumberPrefix = /^ *\d+(\t|→)/;

/**
 * The observation for an old_string that occurs nowhere in `content` (the file's text, without byte-order mark):
 * a line-number prefix copied from Read's output, a match once whitespace and quotes are ignored (with the file's
 * actual text), or the line where old_string's first line occurs.
 */
export function explainMiss(content: string, oldString: string, shown: string): string {
  const missed = `old_string was not found in ${shown} (0 matches).`;
  const stripped = stripLineNumbers(oldString);
  if (stripped !== undefined && fuzzyFind(content, stripped)) {
    return `${missed} It seems to include line numbers copied from Read's output (the number and tab before each line); they are not part of the file. Send the text after the tab.`;
  }
  const found = fuzzyFind(content, oldString);
  if (found) {
    const lines = content.split(/\r?\n/).slice(found.first - 1, found.last);
    const actual = lines.join("\n");
    const where = found.first === found.last ? `line ${found.first}` : `lines ${found.first}–${found.last}`;
    const text = actual.length <= 600 ? ` The file has there, exactly (as JSON): ${JSON.stringify(actual)}.` : "";
    const more = found.count > 1 ? ` (and ${plural(found.count - 1, "other place")})` : "";
    return `${missed} It matches ${where}${more} if whitespace and quotes are ignored: ${describeDifference(actual, oldString)}.${text} Copy the text exactly as it is in the file.`;
  }
  const firstLine = oldString.split("\n").find((line) => line.trim() !== "");
  const firstFound = firstLine === undefined ? undefined : fuzzyFind(content, firstLine);
  if (firstFound)
    return `${missed} Its first line matches line ${firstFound.first}, so the difference is further on: Read the file around that line and copy the text exactly.`;
  return `${missed} Read the file to see its current content, and copy old_string from it exactly (indentation included).`;
}

/** old_string without `cat -n` prefixes, if every non-empty line has one. */
function stripLineNumbers(text: string): string | undefined {
  const lines = text.split("\n");
  const numbered = lines.filter((line) => line.trim() !== "");
  if (numbered.length === 0 || !numbered.every((line) => lineNumberPrefix.test(line))) return undefined;
  return lines.map((line) => line.replace(lineNumberPrefix, "")).join("\n");
}

/** Where `needle` occurs in `content` once each line's whitespace runs, ends and curly quotes are normalised. */
function fuzzyFind(content: string, needle: string): { first: number; last: number; count: number } | undefined {
  const target = normalise(needle).replace(/^\n+|\n+$/g, "");
  if (target === "") return undefined;
  const haystack = normalise(content);
  const index = haystack.indexOf(target);
  if (index === -1) return undefined;
  let count = 0;
  for (let at = index; at !== -1; at = haystack.indexOf(target, at + target.length)) count++;
  const first = countNewlines(haystack, 0, index) + 1;
  return { first, last: first + countNewlines(target, 0, target.length), count };
}

function normalise(text: string): string {
  return text
    .split(/\r?\n/)
    .map((line) =>
      line
        .replace(/[‘’]/g, "'")
        .replace(/[“”]/g, '"')
        .replace(/[ \t]+/g, " ")
        .trim(),
    )
    .join("\n");
}

function countNewlines(text: string, from: number, to: number): number {
  let count = 0;
  for (let at = text.indexOf("\n", from); at !== -1 && at < to; at = text.indexOf("\n", at + 1)) count++;
  return count;
}

function describeDifference(actual: string, wanted: string): string {
  if (/^\t/m.test(actual) && !/^\t/m.test(wanted)) return "the file indents with tabs where old_string has spaces";
  if (/^ /m.test(actual) && /^\t/m.test(wanted)) return "the file indents with spaces where old_string has tabs";
  if (/[‘’“”]/.test(actual) !== /[‘’“”]/.test(wanted)) return "the quotes differ (curly in one, straight in the other)";
  return "the spacing differs (indentation, spaces inside lines, or trailing whitespace)";
}
