/** A piece of a command's body: text (with `@file` references), code a fence keeps as it is, or a shell line to run. */
export type CommandPart =
  | { kind: "text"; text: string }
  /** A fenced code block other than a shell block: kept as written, its `@` and `` !` `` are not read. */
  | { kind: "code"; text: string }
  /** `` !`command` `` inline, or a ```` ```! ```` fenced block: run before the prompt is sent, its output in its place. */
  | { kind: "shell"; command: string; written: string };

/** A fence opening or closing a code block: three or more backticks or tildes, and what follows them. */
const fence = /^([ \t]{0,3})(`{3,}|~{3,})(.*)$/;
/**
 * Claude Code's inline form: `!` at the start of a line or after whitespace, then a command in single backticks on
 * one line (`- Status: !`git status``).
 */
const inlineShell = /(?<=^|\s)!`([^`\n]+)`/gm;

/**
 * Splits a command's body into its parts, in order: fenced blocks whose info string starts with `!` (```` ```! ````)
 * are shell blocks, other fenced blocks are code, and the rest is text in which each `` !`command` `` is a shell
 * part. An unclosed fence runs to the end (as Markdown reads it). The body is split before any argument is put in,
 * so that arguments cannot add shell lines of their own.
 */
export function splitCommandParts(body: string): CommandPart[] {
  const segments: { kind: "text" | "code" | "shell"; lines: string[] }[] = [];
  const lines = body.split("\n");
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index] as string;
    const opening = fence.exec(line);
    if (!opening || ((opening[2] as string).startsWith("`") && (opening[3] as string).includes("`"))) {
      const last = segments.at(-1);
      if (last?.kind === "text") last.lines.push(line);
      else segments.push({ kind: "text", lines: [line] });
      continue;
    }
    const closing = closingFence(opening[2] as string);
    let end = index + 1;
    while (end < lines.length && !closing.test(lines[end] as string)) end++;
    segments.push({ kind: (opening[3] as string).trimStart().startsWith("!") ? "shell" : "code", lines: lines.slice(index, end + 1) });
    index = end;
  }
  const parts: CommandPart[] = [];
  segments.forEach((segment, index) => {
    // The line break between two segments is text: it stays when a shell block is replaced by its output.
    if (index > 0) parts.push({ kind: "text", text: "\n" });
    const written = segment.lines.join("\n");
    if (segment.kind === "text") parts.push(...splitInlineShell(written));
    else if (segment.kind === "code") parts.push({ kind: "code", text: written });
    else {
      const marker = fence.exec(segment.lines[0] as string)?.[2] as string;
      const closed = segment.lines.length > 1 && closingFence(marker).test(segment.lines.at(-1) as string);
      parts.push({ kind: "shell", command: segment.lines.slice(1, closed ? -1 : undefined).join("\n"), written });
    }
  });
  return parts.filter((part) => part.kind === "shell" || part.text !== "");
}

/** The line that closes a fence opened with `marker`: the same character, at least as many times. */
function closingFence(marker: string): RegExp {
  return new RegExp(`^[ \\t]{0,3}${marker[0] === "`" ? "`" : "~"}{${marker.length},}[ \\t]*$`);
}

function splitInlineShell(text: string): CommandPart[] {
  const parts: CommandPart[] = [];
  let last = 0;
  for (const match of text.matchAll(inlineShell)) {
    parts.push({ kind: "text", text: text.slice(last, match.index) });
    parts.push({ kind: "shell", command: match[1] as string, written: match[0] });
    last = match.index + match[0].length;
  }
  parts.push({ kind: "text", text: text.slice(last) });
  return parts;
}

/**
 * The `@path` references of a text, in order and each once: an `@` at the start or after whitespace or an opening
 * bracket, then a path (`@src/a.ts`, `@docs/`, `@"name with spaces.md"`). Punctuation that ends a sentence is not
 * part of the path (`see @src/a.ts.` names `src/a.ts`); an e-mail address (`me@example.com`) is no reference.
 */
export function findFileReferences(text: string): string[] {
  const found: string[] = [];
  for (const match of text.matchAll(/(?<=^|[\s([{])@(?:"([^"\n]+)"|([^\s"'`]+))/g)) {
    const path = match[1] ?? (match[2] as string).replace(/[.,;:!?)\]}>]+$/, "");
    if (path !== "" && !found.includes(path)) found.push(path);
  }
  return found;
}
