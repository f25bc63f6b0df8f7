import type { Diagnostic } from "vscode-languageserver-protocol";

/** A file's text with the diagnostics the server gave for it. */
export type DiagnosedText = { text: string; diagnostics: readonly Diagnostic[] };

/** LSP's severity 1; a diagnostic without a severity counts as an error (the spec leaves it to the client). */
const errorSeverity = 1;

/**
 * The errors of `after` that `before` did not have. Lines move when an edit adds or removes some, so an error is
 * known by what it says and where it stands in the text, not by its line: its code, its message and the text of its
 * range (`x` in `const x: number = "a"`). Counted, so that a second identical error on another identical line is
 * new. Warnings and hints are left out.
 */
export function newErrors(before: DiagnosedText | undefined, after: DiagnosedText): Diagnostic[] {
  const seen = new Map<string, number>();
  for (const diagnostic of before?.diagnostics ?? []) {
    if (!isError(diagnostic)) continue;
    const key = keyOf(diagnostic, before?.text ?? "");
    seen.set(key, (seen.get(key) ?? 0) + 1);
  }
  const found: Diagnostic[] = [];
  for (const diagnostic of after.diagnostics) {
    if (!isError(diagnostic)) continue;
    const key = keyOf(diagnostic, after.text);
    const left = seen.get(key) ?? 0;
    if (left > 0) seen.set(key, left - 1);
    else found.push(diagnostic);
  }
  return found.sort((a, b) => a.range.start.line - b.range.start.line || a.range.start.character - b.range.start.character);
}

function isError(diagnostic: Diagnostic): boolean {
  return (diagnostic.severity ?? errorSeverity) === errorSeverity;
}

function keyOf(diagnostic: Diagnostic, text: string): string {
  return JSON.stringify([diagnostic.source, diagnostic.code, diagnostic.message, textIn(text, diagnostic.range)]);
}

/** The text a range covers (LSP positions count UTF-16 code units, as JavaScript strings do). */
function textIn(text: string, range: Diagnostic["range"]): string {
  const lines = text.split("\n");
  const startLine = lines[range.start.line] ?? "";
  if (range.start.line === range.end.line) return startLine.slice(range.start.character, range.end.character);
  const middle = lines.slice(range.start.line + 1, range.end.line);
  return [startLine.slice(range.start.character), ...middle, (lines[range.end.line] ?? "").slice(0, range.end.character)].join("\n");
}

/**
 * The errors as compiler lines, `src/a.ts:3:14 error TS2322: message` (1-based line and column), at most `maxErrors`
 * of them and `maxCharacters` in all, with a line saying how many more there are.
 */
export function formatErrors(shown: string, errors: readonly Diagnostic[], caps: { maxErrors: number; maxCharacters: number }): string {
  const lines: string[] = [];
  let length = 0;
  for (const error of errors) {
    if (lines.length === caps.maxErrors) break;
    const line = `${shown}:${error.range.start.line + 1}:${error.range.start.character + 1} error ${codeOf(error)}${oneLine(error.message)}`;
    if (length + line.length > caps.maxCharacters && lines.length > 0) break;
    lines.push(line.slice(0, caps.maxCharacters));
    length += line.length + 1;
  }
  const more = errors.length - lines.length;
  if (more > 0) lines.push(`… and ${more} more error${more === 1 ? "" : "s"}`);
  return lines.join("\n");
}

function codeOf(error: Diagnostic): string {
  if (error.code === undefined || error.code === "") return "";
  // TypeScript's codes as tsc prints them; other servers' with their source.
  if (error.source === "typescript" || error.source === "ts") return `TS${error.code}: `;
  return error.source ? `${error.source}(${error.code}): ` : `${error.code}: `;
}

function oneLine(message: Diagnostic["message"]): string {
  // LSP 3.18 allows Markdown messages; their text is shown as it is.
  return (typeof message === "string" ? message : message.value).replace(/\s*\n\s*/g, " ");
}
