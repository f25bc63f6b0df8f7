// Text helpers shared by Read, Write and Edit: how lines are shown, how binary files are recognised, and how a
// file's conventions (line endings, byte-order mark) are kept.
import { ToolError } from "../../errors.js";
import { formatNumber } from "../../text.js";

/** How many bytes at the start of a file are checked for signs of binary content. */
export const sniffLength = 8192;

const byteOrderMark = "\uFEFF";

/** One line as `cat -n` shows it: the number right-aligned in six columns, a tab, the text. */
export function formatLine(lineNumber: number, text: string): string {
  return `${String(lineNumber).padStart(6)}\t${text}`;
}

/**
 * Why `bytes` (the start of a file) is not UTF-8 text, or undefined if it looks like text: a NUL byte, or a
 * sequence that is not UTF-8. A multi-byte character cut at the end of the sample is not held against it.
 */
export function describeBinary(bytes: Uint8Array): string | undefined {
  const kind = knownFormat(bytes);
  if (kind) return `a binary file (${kind})`;
  if (bytes.includes(0)) return "a binary file (it contains NUL bytes)";
  try {
    new TextDecoder("utf-8", { fatal: true }).decode(bytes, { stream: true });
    return undefined;
  } catch {
    return "not UTF-8 text (it contains byte sequences that are not UTF-8)";
  }
}

const signatures: [string, number[]][] = [
  ["PNG image", [0x89, 0x50, 0x4e, 0x47]],
  ["JPEG image", [0xff, 0xd8, 0xff]],
  ["GIF image", [0x47, 0x49, 0x46, 0x38]],
  ["PDF document", [0x25, 0x50, 0x44, 0x46, 0x2d]],
  ["zip archive", [0x50, 0x4b, 0x03, 0x04]],
  ["gzip archive", [0x1f, 0x8b]],
  ["ELF executable", [0x7f, 0x45, 0x4c, 0x46]],
  ["WebAssembly module", [0x00, 0x61, 0x73, 0x6d]],
  ["UTF-16 text, which Read does not decode", [0xff, 0xfe]],
  ["UTF-16 text, which Read does not decode", [0xfe, 0xff]],
];

function knownFormat(bytes: Uint8Array): string | undefined {
  return signatures.find(([, signature]) => signature.every((byte, index) => bytes[index] === byte))?.[0];
}

/** Decodes a whole file that must be UTF-8 text; throws a ToolError naming the file otherwise. */
export function decodeText(bytes: Uint8Array, shown: string, action: string): string {
  const binary = describeBinary(bytes.subarray(0, sniffLength));
  if (!binary) {
    try {
      return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
    } catch {
      // fall through: invalid UTF-8 further on
    }
  }
  throw new ToolError(
    `${shown} is ${binary ?? "not UTF-8 text (it contains byte sequences that are not UTF-8)"}; ${action} works on UTF-8 text files only, and would corrupt it.`,
  );
}

/** A file's text without its byte-order mark, and whether it had one. */
export function splitByteOrderMark(text: string): { bom: boolean; body: string } {
  return text.startsWith(byteOrderMark) ? { bom: true, body: text.slice(1) } : { bom: false, body: text };
}

/** `body` with a byte-order mark in front when `bom` says so. */
export function joinByteOrderMark(bom: boolean, body: string): string {
  return bom && !body.startsWith(byteOrderMark) ? byteOrderMark + body : body;
}

/** The line ending most of `text`'s lines use: "\r\n" when CRLF lines are at least as many as LF-only ones. */
export function detectLineEnding(text: string): "\n" | "\r\n" {
  let crlf = 0;
  let lf = 0;
  for (let index = text.indexOf("\n"); index !== -1; index = text.indexOf("\n", index + 1)) {
    if (index > 0 && text.charCodeAt(index - 1) === 13) crlf++;
    else lf++;
  }
  return crlf > 0 && crlf >= lf ? "\r\n" : "\n";
}

/** `text` with every line break (LF or CRLF) written as `ending`. */
export function withLineEnding(text: string, ending: "\n" | "\r\n"): string {
  return text.replace(/\r?\n/g, ending);
}

/** How many lines `text` has: a final line without a line break counts, an empty text has none. */
export function countLines(text: string): number {
  if (text === "") return 0;
  let lines = text.endsWith("\n") ? 0 : 1;
  for (let index = text.indexOf("\n"); index !== -1; index = text.indexOf("\n", index + 1)) lines++;
  return lines;
}

/** "1,234 bytes", "2.5 MB": a size a model can take in at a glance. */
export function formatSize(bytes: number): string {
  if (bytes < 1024 * 1024) return `${formatNumber(bytes)} byte${bytes === 1 ? "" : "s"}`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

/** `count` followed by `noun`, plural unless it is one: "1 line", "3 lines". */
export function plural(count: number, noun: string): string {
  return `${formatNumber(count)} ${noun}${count === 1 ? "" : "s"}`;
}
