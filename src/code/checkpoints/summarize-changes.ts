import { createRequire } from "node:module";
import type { Checkpoint, FileChange, FileState } from "./checkpoint-types.js";

/** The `diff` package, loaded when a diff is first made rather than at every start. */
let diffPackage: typeof import("diff") | undefined;
function diff(): typeof import("diff") {
  diffPackage ??= createRequire(import.meta.url)("diff") as typeof import("diff");
  return diffPackage;
}

/** One file's net change over some checkpoints: where it started, where it ended, and the lines added and removed. */
export type FileChangeSummary = {
  path: string;
  before: FileState | null;
  after: FileState | null;
  /** Lines added and removed; undefined for binary files, files over the size cap, or over 1 MiB. */
  added: number | undefined;
  removed: number | undefined;
  /** `created`, `deleted`, `modified`. */
  kind: "created" | "deleted" | "modified";
};

/** Reads a state's content (undefined when not kept). */
type ContentOf = (state: FileState) => Promise<Buffer | undefined>;

const maxDiffBytes = 1024 * 1024;

/**
 * The net changes the session made in `checkpoints` (a tool's or a rewind's; outside changes are not the
 * session's), one per file: its state before the first and after the last, files back where they started left
 * out. With `contentOf`, lines added and removed are counted for text files.
 */
export async function summarizeChanges(checkpoints: readonly Checkpoint[], contentOf?: ContentOf): Promise<FileChangeSummary[]> {
  const net = new Map<string, { before: FileState | null; after: FileState | null }>();
  for (const change of checkpoints.flatMap((checkpoint) => checkpoint.changes)) {
    if (change.by === "outside") continue;
    const known = net.get(change.path);
    if (known) known.after = change.after;
    else net.set(change.path, { before: change.before, after: change.after });
  }
  const summaries: FileChangeSummary[] = [];
  for (const [path, { before, after }] of [...net].sort(([a], [b]) => (a < b ? -1 : 1))) {
    if (before?.hash === after?.hash && (before === null) === (after === null)) continue;
    const kind = before === null ? "created" : after === null ? "deleted" : "modified";
    const texts = contentOf ? await textsOf(before, after, contentOf) : undefined;
    let added: number | undefined;
    let removed: number | undefined;
    if (texts) {
      added = 0;
      removed = 0;
      for (const part of diff().diffLines(texts[0], texts[1])) {
        if (part.added) added += part.count ?? 0;
        else if (part.removed) removed += part.count ?? 0;
      }
    }
    summaries.push({ path, before, after, added, removed, kind });
  }
  return summaries;
}

/** A unified diff of the summaries' text files (binary and large files named, not shown); `display` shortens paths. */
export async function unifiedDiff(
  summaries: readonly FileChangeSummary[],
  contentOf: ContentOf,
  display: (path: string) => string = (path) => path,
): Promise<string> {
  const parts: string[] = [];
  for (const summary of summaries) {
    const name = display(summary.path);
    const texts = await textsOf(summary.before, summary.after, contentOf);
    if (!texts) {
      parts.push(`Binary or large file ${name} ${summary.kind}\n`);
      continue;
    }
    const from = summary.before === null ? "/dev/null" : `a/${name}`;
    const to = summary.after === null ? "/dev/null" : `b/${name}`;
    parts.push(diff().createTwoFilesPatch(from, to, texts[0], texts[1], undefined, undefined, { context: 3 }).replace(/^=+\n/, ""));
  }
  return parts.join("");
}

async function textsOf(
  before: FileChange["before"],
  after: FileChange["after"],
  contentOf: ContentOf,
): Promise<[string, string] | undefined> {
  const texts: string[] = [];
  for (const state of [before, after]) {
    if (state === null) {
      texts.push("");
      continue;
    }
    if (!state.stored || state.size > maxDiffBytes) return undefined;
    const content = await contentOf(state);
    if (content === undefined || content.subarray(0, 8000).includes(0)) return undefined;
    texts.push(content.toString("utf8"));
  }
  return texts as [string, string];
}
