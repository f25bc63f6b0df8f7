import { formatNumber } from "../../../text.js";
import { formatSize, plural } from "../file-text.js";
import type { FoundFile, OutputMode } from "./protocol.js";
import type { SearchReport } from "./search-pool.js";

/** Most characters of output (as Read's): the registry would cut a longer one without saying how to see the rest. */
const maxOutputCharacters = 40_000;
/** Shown lines are cut to this many characters, around the match. */
export const maxColumns = 500;

/** What the search found, as much of it as can still be shown. */
export type Collected = { files: FoundFile[]; keptEntries: number; totalEntries: number };

/**
 * Adds a file to what is kept. Content output is in path order and stops at `limit` lines, so only the files that
 * can still be shown are kept: a pattern matching a million lines costs a limit's worth of memory.
 */
export function collect(collected: Collected, file: FoundFile, mode: OutputMode, limit: number): void {
  const { files } = collected;
  if (mode !== "content") return void files.push(file);
  collected.totalEntries += file.entryCount ?? 0;
  let low = 0;
  let high = files.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((files[middle] as FoundFile).path < file.path) low = middle + 1;
    else high = middle;
  }
  files.splice(low, 0, file);
  collected.keptEntries += file.entries?.length ?? 0;
  for (let last = files.at(-1) as FoundFile; files.length > 1; last = files.at(-1) as FoundFile) {
    const without = collected.keptEntries - (last.entries?.length ?? 0);
    if (without < limit) break;
    collected.keptEntries = without;
    files.pop();
  }
}

export function listFiles(files: FoundFile[], limit: number, shown: (path: string) => string): string[] {
  if (files.length === 0) return ["No files found."];
  files.sort((a, b) => b.mtimeMs - a.mtimeMs || (a.path < b.path ? -1 : 1));
  const paths = files.map((file) => shown(file.path));
  const count = fitting(paths, limit);
  const lines = [`Found ${plural(files.length, "file")}`, ...paths.slice(0, count)];
  if (files.length > count)
    lines.push(
      `[Showing the ${count} most recently modified of ${formatNumber(files.length)} files${budgetNote(count, limit)}; narrow the search with path, glob or type, or raise head_limit.]`,
    );
  return lines;
}

export function listCounts(files: FoundFile[], limit: number, shown: (path: string) => string, multiline: boolean): string[] {
  if (files.length === 0) return ["No matches found."];
  files.sort((a, b) => (a.path < b.path ? -1 : 1));
  const total = files.reduce((sum, file) => sum + file.count, 0);
  const what = multiline ? `${formatNumber(total)} match${total === 1 ? "" : "es"}` : plural(total, "matching line");
  const counts = files.map((file) => `${shown(file.path)}:${file.count}`);
  const count = fitting(counts, limit);
  const lines = counts.slice(0, count);
  if (files.length > count)
    lines.push(
      `[Showing ${count} of ${formatNumber(files.length)} files, in path order${budgetNote(count, limit)}; raise head_limit to see more.]`,
    );
  lines.push(`Found ${what} in ${plural(files.length, "file")}.`);
  return lines;
}

export function listContent(
  collected: Collected,
  limit: number,
  shown: (path: string) => string,
  numbers: boolean,
  withContext: boolean,
): string[] {
  const lines: string[] = [];
  let count = 0;
  let characters = 0;
  files: for (const file of collected.files) {
    const path = shown(file.path);
    if (withContext && lines.length > 0) lines.push("--");
    for (const [lineNumber, kind, text] of file.entries ?? []) {
      const line = kind === "--" ? "--" : numbers ? `${path}${kind}${lineNumber}${kind}${text}` : `${path}${kind}${text}`;
      characters += line.length + 1;
      if (count >= limit || (count > 0 && characters > maxOutputCharacters)) break files;
      count += 1;
      lines.push(line);
    }
  }
  if (lines.at(-1) === "--") lines.pop();
  if (lines.length === 0) return ["No matches found."];
  if (collected.totalEntries > count)
    lines.push(
      `[Showing the first ${count} of ${formatNumber(collected.totalEntries)} lines, in path order${budgetNote(count, limit)}; narrow the search with path, glob or type, or raise head_limit.]`,
    );
  if (collected.files.some((file) => file.cutLines))
    lines.push(`[Lines longer than ${maxColumns} characters are shown in part, around the match; Read shows a whole line.]`);
  return lines;
}

/** How many of `lines` to show: at most `limit`, and no more than fit in {@link maxOutputCharacters} (one at least). */
function fitting(lines: readonly string[], limit: number): number {
  let characters = 0;
  const most = Math.min(limit, lines.length);
  for (let index = 0; index < most; index += 1) {
    characters += (lines[index] as string).length + 1;
    if (characters > maxOutputCharacters) return Math.max(index, 1);
  }
  return most;
}

function budgetNote(count: number, limit: number): string {
  return count < limit ? ` (output is limited to ${formatNumber(maxOutputCharacters)} characters)` : "";
}

/** Notes on what was not searched, and why a search found nothing when the pattern explains it. */
export function describeSkipped(
  report: SearchReport,
  nothingFound: boolean,
  pattern: string,
  multiline: boolean,
  limits: { maxFileBytes: number; maxFileMilliseconds: number },
  shown: (path: string) => string,
): string[] {
  const notes: string[] = [];
  const list = (paths: string[]) => paths.slice(0, 5).map(shown).join(", ") + (paths.length > 5 ? ", …" : "");
  if (report.tooBig.length > 0)
    notes.push(
      `[Not searched: ${plural(report.tooBig.length, "file")} larger than ${formatSize(limits.maxFileBytes)} (${list(report.tooBig)}). Search them with Bash (grep -n) if you need to.]`,
    );
  if (report.slow.length > 0) {
    const seconds = `${formatNumber(limits.maxFileMilliseconds / 1000)} s`;
    const what = report.stopped
      ? `The search stopped, so the results are incomplete: the pattern took over ${seconds} on each of ${list(report.slow)}.`
      : `Gave up on ${list(report.slow)}: the pattern took over ${seconds} there.`;
    notes.push(
      `[${what} The pattern backtracks on long lines: avoid nested quantifiers such as (a+)+ and .* between common words, or search fewer files with path, glob or type.]`,
    );
  }
  if (nothingFound && !multiline && /\\n|\n/.test(pattern))
    notes.push("[The pattern contains a line break, which never matches within one line: pass multiline: true to match across lines.]");
  return notes;
}
