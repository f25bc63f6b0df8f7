import { ToolError } from "../../../errors.js";

/** A pattern ready for the search threads. */
export type SearchPattern = {
  /** The regular expression's source, after the rewrites below. */
  source: string;
  /** Its flags: always `m` (`^` and `$` at line ends), `i` for -i, `s` for multiline, `u` when it compiles so. */
  flags: string;
  /** Texts every match contains (runs of plain characters, longest first): a file without one of them is not decoded. */
  literals: string[];
};

const posixClasses: Record<string, string> = {
  alnum: "a-zA-Z0-9",
  alpha: "a-zA-Z",
  digit: "0-9",
  lower: "a-z",
  upper: "A-Z",
  space: "\\s",
  word: "\\w",
  xdigit: "0-9a-fA-F",
  punct: "!-\\/:-@\\[-`{-~",
};

/**
 * Turns the model's pattern into a JavaScript regular expression: a leading inline flag group as ripgrep takes it
 * (`(?i)`, `(?s)`) becomes a flag, POSIX classes (`[[:alpha:]]`) become ranges, and outside multiline mode a
 * leading `.*` is dropped. Unicode mode when the pattern allows it (`\p{L}` works), else without (`\-` works).
 * Throws a ToolError saying what is wrong with an invalid pattern.
 */
export function compileSearchPattern(pattern: string, options: { ignoreCase: boolean; multiline: boolean }): SearchPattern {
  let source = pattern;
  let ignoreCase = options.ignoreCase;
  let dotAll = options.multiline;
  const inline = /^\(\?([imsU]+)\)/.exec(source);
  if (inline) {
    source = source.slice(inline[0].length);
    ignoreCase ||= inline[1]?.includes("i") === true;
    dotAll ||= inline[1]?.includes("s") === true;
  }
  source = source.replace(/\[:([a-z]+):\]/g, (whole, name: string) => posixClasses[name] ?? whole);
  if (!dotAll) source = source.replace(/^\^?\.\*\??(?![*+?{])/, "");
  const flags = `m${ignoreCase ? "i" : ""}${dotAll ? "s" : ""}`;
  for (const candidate of [`${flags}u`, flags]) {
    try {
      new RegExp(source, candidate);
      return { source, flags: candidate, literals: ignoreCase ? [] : requiredLiterals(source) };
    } catch (error) {
      if (candidate === flags) {
        const reason = String((error as Error).message).replace(/^Invalid regular expression: \/.*\/[a-z]*: /s, "");
        throw new ToolError(
          `Invalid regular expression ${JSON.stringify(pattern)}: ${reason}. Grep takes JavaScript regular expressions: put a backslash before ( ) [ ] { } . * + ? | \\ ^ $ to match the character itself.`,
        );
      }
    }
  }
  throw new Error("unreachable");
}

/**
 * Runs of plain characters that every match must contain (two characters or more, the longest four, longest
 * first), or none when an alternation at the top makes every part optional. Groups, classes, escapes such as
 * `\w` and quantified characters end a run; `\.` and other escaped punctuation are plain characters.
 */
export function requiredLiterals(source: string): string[] {
  const runs: string[] = [];
  let run = "";
  const endRun = () => {
    if (run.length >= 2) runs.push(run);
    run = "";
  };
  for (let index = 0; index < source.length; ) {
    const char = source[index] as string;
    let atom: string | undefined;
    let next = index + 1;
    if (char === "\\") {
      const escaped = source[index + 1];
      if (escaped === undefined) return [];
      if (/[A-Za-z0-9]/.test(escaped)) next = skipEscape(source, index);
      else [atom, next] = [escaped, index + 2];
    } else if (char === "(" || char === "[") {
      next = char === "(" ? skipGroup(source, index) : skipClass(source, index);
      if (next === -1) return [];
    } else if (char === "|" || char === ")") return [];
    else if (!"^$.*+?{".includes(char)) atom = char;
    const quantifier = quantifierAt(source, next);
    if (quantifier?.optional) endRun();
    else if (atom !== undefined) run += atom;
    if (quantifier || atom === undefined) endRun();
    index = quantifier?.end ?? next;
  }
  endRun();
  return runs.sort((a, b) => b.length - a.length).slice(0, 4);
}

function quantifierAt(source: string, at: number): { optional: boolean; end: number } | undefined {
  const char = source[at];
  let end: number;
  if (char === "*" || char === "?" || char === "+") end = at + 1;
  else if (char === "{") {
    const braces = /^\{\d+(?:,\d*)?\}/.exec(source.slice(at, at + 24));
    if (!braces) return undefined;
    end = at + braces[0].length;
  } else return undefined;
  if (source[end] === "?") end += 1;
  return { optional: char !== "+", end };
}

function skipEscape(source: string, index: number): number {
  const kind = source[index + 1] as string;
  const closing = (open: string, close: string) =>
    source[index + 2] === open ? source.indexOf(close, index + 3) + 1 || source.length : index + 2;
  if (kind === "x") return index + 4;
  if (kind === "c") return index + 3;
  if (kind === "u") return source[index + 2] === "{" ? closing("{", "}") : index + 6;
  if (kind === "p" || kind === "P") return closing("{", "}");
  if (kind === "k") return closing("<", ">");
  let end = index + 2;
  if (/[0-9]/.test(kind)) while (/[0-9]/.test(source[end] ?? "")) end += 1;
  return end;
}

function skipGroup(source: string, index: number): number {
  let depth = 0;
  for (let at = index; at < source.length; at += 1) {
    const char = source[at];
    if (char === "\\") at += 1;
    else if (char === "[") {
      const end = skipClass(source, at);
      if (end === -1) return -1;
      at = end - 1;
    } else if (char === "(") depth += 1;
    else if (char === ")" && --depth === 0) return at + 1;
  }
  return -1;
}

function skipClass(source: string, index: number): number {
  for (let at = index + 1; at < source.length; at += 1) {
    if (source[at] === "\\") at += 1;
    else if (source[at] === "]") return at + 1;
  }
  return -1;
}
