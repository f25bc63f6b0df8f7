// What the Grep tool, its search pool (search-pool.ts) and its search threads (search-thread.cts) say to each other.
// Types only: the thread imports them with `import type`, so it loads no module of the package at run time.
import type { SearchPattern } from "./pattern.js";

export type OutputMode = "content" | "files_with_matches" | "count";

/** A line of content output: its number, ":" for a match, "-" for context, "--" between groups; its text. */
export type Entry = [lineNumber: number, kind: ":" | "-" | "--", text: string];

/** What a search thread found in one file. */
export type FoundFile = { path: string; mtimeMs: number; count: number; entries?: Entry[]; entryCount?: number; cutLines?: boolean };

/** What every search thread is told. */
export type SearchSettings = SearchPattern & {
  mode: OutputMode;
  multiline: boolean;
  before: number;
  after: number;
  /** Content lines kept per file (all are counted). */
  maxEntries: number;
  maxFileBytes: number;
  maxColumns: number;
};

/** A thread's `workerData`: the settings, and where it counts the files it has finished (an Int32, -1 while it starts). */
export type ThreadData = SearchSettings & { progress: SharedArrayBuffer };

/** Paths sent to a thread at once; it answers each batch with one {@link BatchAnswer}. */
export type Batch = { id: number; files: string[] };

/** A file of the batch (its index there) that matched, or that was too big to search (its size in bytes). */
export type FileResult = { index: number } & ({ tooBig: number } | Omit<FoundFile, "path">);

export type BatchAnswer = { id: number; results: FileResult[] };
