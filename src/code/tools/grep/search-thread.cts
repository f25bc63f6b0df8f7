// A Grep search thread (started by search-pool.ts, one module per thread): reads each file of a batch with
// synchronous calls (no thread-pool round trips), skips binary ones, looks for the pattern's literals in the bytes,
// decodes (as UTF-8) and runs the pattern. It counts the files it has finished in shared memory for the pool's
// watchdog, which kills the thread when a pattern runs too long on one file. A CommonJS module (.cts, built to
// search-thread.cjs): a thread starts it faster than an ES module. It requires only Node's modules (and imports
// types), so that it runs from the TypeScript sources too (see search-pool.ts).
import fs = require("node:fs");
import threads = require("node:worker_threads");

import type { Batch, BatchAnswer, Entry, FileResult, FoundFile, ThreadData } from "./protocol.js";

/** A matching line: where it starts and ends in the text (before its "\n"), and where the match is. */
type Line = { start: number; end: number; at: number };

type Found = Omit<FoundFile, "path">;

const { closeSync, constants, fstatSync, openSync, readSync } = fs;
if (threads.parentPort === null) throw new Error("search-thread.cjs runs as a worker thread of Grep's search pool.");
const port = threads.parentPort;
const settings = threads.workerData as ThreadData;
const progress = new Int32Array(settings.progress);
const regex = new RegExp(settings.source, `${settings.flags}g`);
const lineRegex = new RegExp(settings.source, settings.flags);
const literals = settings.literals.map((literal) => Buffer.from(literal, "utf8"));
const content = settings.mode === "content";
const firstOnly = settings.mode === "files_with_matches";
const head = Buffer.allocUnsafe(65536);
let done = 0;
Atomics.store(progress, 0, 0); // started: the watchdog's clock runs from now, not from the thread's start-up

port.on("message", (batch: Batch) => {
  const results: FileResult[] = [];
  for (const [index, path] of batch.files.entries()) {
    const result = searchFile(path);
    if (result !== undefined) results.push({ ...result, index });
    Atomics.store(progress, 0, ++done);
  }
  port.postMessage({ id: batch.id, results } satisfies BatchAnswer);
});

function searchFile(path: string): Found | { tooBig: number } | undefined {
  const file = readText(path);
  if (file === undefined || "tooBig" in file) return file;
  try {
    const { text } = file;
    const found = settings.multiline ? matchSpans(text) : matchLines(text);
    if (found.count === 0) return undefined;
    const result: Found = { mtimeMs: firstOnly ? fstatSync(file.fd).mtimeMs : 0, count: found.count };
    if (content) describeLines(text, found.lines, result);
    return result;
  } finally {
    closeSync(file.fd);
  }
}

/**
 * The file's text and its open descriptor (for a match's date; the caller closes it), its size when it is too big,
 * or undefined for what is not searched (unreadable, empty, binary, without a literal). Three calls for most files:
 * open, read (a short read is the end), close; fstat only for a match's date.
 */
function readText(path: string): { text: string; fd: number } | { tooBig: number } | undefined {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK); // a FIFO must not block the thread
  } catch {
    return undefined;
  }
  let kept = false;
  try {
    const first = readSync(fd, head, 0, head.length, 0);
    let bytes = head.subarray(0, first);
    if (first === 0 || bytes.includes(0)) return undefined;
    if (first === head.length) {
      const size = fstatSync(fd).size;
      if (size > settings.maxFileBytes) return { tooBig: size };
      let whole = Buffer.allocUnsafe(Math.max(size, first) + 1);
      bytes.copy(whole);
      let length = first;
      for (;;) {
        if (length === whole.length) {
          if (length > settings.maxFileBytes) return { tooBig: length }; // it grows while being read
          const larger = Buffer.allocUnsafe(whole.length * 2);
          whole.copy(larger);
          whole = larger;
        }
        const read = readSync(fd, whole, length, whole.length - length, length);
        if (read === 0) break;
        length += read;
      }
      bytes = whole.subarray(0, length);
      if (bytes.indexOf(0, first) !== -1) return undefined;
    }
    for (const literal of literals) if (bytes.indexOf(literal) === -1) return undefined;
    kept = true;
    return { text: bytes.toString("utf8"), fd };
  } catch {
    return undefined;
  } finally {
    if (!kept) closeSync(fd);
  }
}

/**
 * Line mode: the regular expression runs over the whole text, and a match is kept when it lies within one line
 * (else that line is tried alone). The search goes on from the next line: each line counts once. In a text with
 * "\r" (or U+2028, U+2029), which JavaScript's ^ and $ also take for line ends, every line is tried alone,
 * without its final "\r": "b$" matches "b\r\n", "^$" does not.
 */
function matchLines(text: string): { count: number; lines: Line[] } {
  const lines: Line[] = [];
  let count = 0;
  let from = 0;
  let otherBreaks: boolean | undefined;
  while (from < text.length) {
    regex.lastIndex = from;
    const match = regex.exec(text);
    if (match === null) break;
    const at = match.index;
    if (at === text.length && text.charCodeAt(at - 1) === 10) break; // after the last line break: no line there
    const start = at === 0 ? 0 : text.lastIndexOf("\n", at - 1) + 1;
    let end = text.indexOf("\n", at);
    if (end === -1) end = text.length;
    let hit = at;
    otherBreaks ??= /[\r\u2028\u2029]/.test(text);
    if (at + match[0].length > end || otherBreaks) {
      const alone = lineRegex.exec(text.slice(start, end > start && text.charCodeAt(end - 1) === 13 ? end - 1 : end));
      hit = alone === null ? -1 : start + alone.index;
    }
    if (hit !== -1) {
      count++;
      if (content) lines.push({ start, end, at: hit });
      if (firstOnly) break;
    }
    from = end + 1;
  }
  return { count, lines };
}

/** Multiline mode: matches may span lines; each counts once, and every line it touches is shown. */
function matchSpans(text: string): { count: number; lines: Line[] } {
  const lines: Line[] = [];
  let count = 0;
  let lastStart = -1;
  regex.lastIndex = 0;
  for (let match = regex.exec(text); match !== null; match = regex.exec(text)) {
    const at = match.index;
    if (at === text.length && at > 0 && text.charCodeAt(at - 1) === 10) break;
    count++;
    if (firstOnly) break;
    if (match[0] === "") regex.lastIndex++;
    if (!content) continue;
    const last = at + Math.max(match[0].length - 1, 0);
    let start = at === 0 ? 0 : text.lastIndexOf("\n", at - 1) + 1;
    while (start <= last && start <= text.length) {
      let end = text.indexOf("\n", start);
      if (end === -1) end = text.length;
      if (start > lastStart) lines.push({ start, end, at: Math.max(start, at) });
      lastStart = start;
      start = end + 1;
    }
  }
  return { count, lines };
}

/**
 * The lines to print, with their numbers and context, as entries [line number, ":" (match) or "-" (context), text];
 * [0, "--", ""] separates groups that are not adjacent. Only the first maxEntries are kept, all are counted.
 */
function describeLines(text: string, lines: Line[], result: Found): void {
  const entries: Entry[] = [];
  let total = 0;
  const push = (lineNumber: number, kind: Entry[1], start = 0, end = 0, at = 0) => {
    total++;
    if (entries.length < settings.maxEntries) entries.push([lineNumber, kind, kind === "--" ? "" : show(text, start, end, at, result)]);
  };
  const numbers: number[] = [];
  let position = 0;
  let lineNumber = 1;
  for (const line of lines) {
    for (let next = text.indexOf("\n", position); next !== -1 && next < line.start; next = text.indexOf("\n", position)) {
      lineNumber++;
      position = next + 1;
    }
    numbers.push(lineNumber);
  }
  const withContext = settings.before > 0 || settings.after > 0;
  let printed = 0;
  for (const [index, line] of lines.entries()) {
    const number = numbers[index] as number;
    const from = Math.max(number - settings.before, printed + 1, 1);
    if (withContext && printed > 0 && from > printed + 1) push(0, "--");
    const before: [number: number, start: number, end: number][] = [];
    for (let previous = number - 1, start = line.start; previous >= from; previous--) {
      const previousStart = start >= 2 ? text.lastIndexOf("\n", start - 2) + 1 : 0;
      before.push([previous, previousStart, start - 1]);
      start = previousStart;
    }
    for (const [previous, start, end] of before.reverse()) push(previous, "-", start, end, start);
    push(number, ":", line.start, line.end, line.at);
    printed = number;
    const next = numbers[index + 1];
    const until = Math.min(number + settings.after, next === undefined ? Number.MAX_SAFE_INTEGER : next - 1);
    for (let following = number + 1, start = line.end + 1; following <= until && start < text.length; following++) {
      let end = text.indexOf("\n", start);
      if (end === -1) end = text.length;
      push(following, "-", start, end, start);
      printed = following;
      start = end + 1;
    }
  }
  result.entries = entries;
  result.entryCount = total;
}

/** A line as shown: without its "\r"; a long one cut to maxColumns characters around `at`. */
function show(text: string, start: number, lineEnd: number, at: number, result: Found): string {
  const end = lineEnd > start && text.charCodeAt(lineEnd - 1) === 13 ? lineEnd - 1 : lineEnd;
  if (end - start <= settings.maxColumns) return text.slice(start, end);
  result.cutLines = true;
  const from = Math.max(start, Math.min(at - 100, end - settings.maxColumns));
  const to = Math.min(end, from + settings.maxColumns);
  return (from > start ? "…" : "") + text.slice(from, to) + (to < end ? "…" : "");
}
