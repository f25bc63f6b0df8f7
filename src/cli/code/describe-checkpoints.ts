import { relative } from "node:path";
import type { Checkpoint, Checkpoints, FileChangeSummary } from "../../code/checkpoints/index.js";
import { summarizeChanges } from "../../code/checkpoints/index.js";

/** A checkpoint with what the session changed after it, for a list a person chooses from (`/rewind`, `--rewind list`). */
export type CheckpointListing = {
  checkpoint: Checkpoint;
  /** What the session's changes after this checkpoint did to each file, until the next checkpoint. */
  files: FileChangeSummary[];
  added: number;
  removed: number;
};

/** Each checkpoint of the session with its files and lines (+ and −), oldest first. */
export async function listCheckpoints(checkpoints: Checkpoints): Promise<CheckpointListing[]> {
  const contentOf = (state: Parameters<Checkpoints["content"]>[0]) => checkpoints.content(state).catch(() => undefined);
  const listings: CheckpointListing[] = [];
  for (const checkpoint of checkpoints.checkpoints) {
    const files = await summarizeChanges([checkpoint], contentOf);
    listings.push({
      checkpoint,
      files,
      added: files.reduce((sum, file) => sum + (file.added ?? 0), 0),
      removed: files.reduce((sum, file) => sum + (file.removed ?? 0), 0),
    });
  }
  return listings;
}

/** What a checkpoint stands before, in a few words: its prompt, or which rewind it was. */
export function describeCheckpoint(checkpoint: Checkpoint, all: readonly Checkpoint[]): string {
  if (checkpoint.kind === "prompt") return checkpoint.prompt || "(empty prompt)";
  const to = all.find((other) => other.id === checkpoint.rewound?.to);
  const what =
    checkpoint.rewound?.code && checkpoint.rewound.conversation
      ? "code and conversation"
      : checkpoint.rewound?.code
        ? "code"
        : "conversation";
  return `↶ rewind of the ${what} to before ${to ? `#${to.number}` : "a pruned checkpoint"}`;
}

/** `3 files +12 −4`, or `no file changes`. */
export function describeFileCounts(listing: Pick<CheckpointListing, "files" | "added" | "removed">): string {
  if (listing.files.length === 0) return "no file changes";
  return `${listing.files.length} file${listing.files.length === 1 ? "" : "s"} +${listing.added} −${listing.removed}`;
}

/** One line per file: `M src/app.ts +3 −1` (A created, D deleted, M modified; binary files without counts). */
export function describeFiles(files: readonly FileChangeSummary[], root: string): string[] {
  return files.map((file) => {
    const letter = file.kind === "created" ? "A" : file.kind === "deleted" ? "D" : "M";
    const counts = file.added === undefined ? " (binary or large)" : ` +${file.added} −${file.removed ?? 0}`;
    return `${letter} ${displayPath(file.path, root)}${counts}`;
  });
}

/** A path relative to the workspace root when it is inside it, else as it is. */
export function displayPath(path: string, root: string): string {
  const inside = relative(root, path);
  return inside.startsWith("..") || inside === "" ? path : inside;
}
