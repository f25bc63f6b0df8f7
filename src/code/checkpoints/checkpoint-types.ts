/**
 * What a file was at one moment, as a checkpoint keeps it: its content's hash (the blob to restore it from), size
 * and permission bits. `stored: false` marks a file over the size cap: its change is known, its content was not
 * kept, and it cannot be restored.
 */
export type FileState = {
  hash: string | undefined;
  size: number;
  mode: number;
  stored: boolean;
};

/** Who changed a file: a tool (`Write`, `Edit`, `Bash`, an MCP tool…), a rewind, or someone else (`outside`). */
export type ChangeAuthor = string;

/** One file's change: its state before and after (`null`: the file did not exist). */
export type FileChange = {
  /** Absolute path. */
  path: string;
  before: FileState | null;
  after: FileState | null;
  /** The tool that made it, `rewind`, or `outside` (the person, an editor, a process the session did not start). */
  by: ChangeAuthor;
};

/** The point a checkpoint marks: before a prompt, or before a rewind (which can itself be rewound: undone). */
export type CheckpointKind = "prompt" | "rewind";

/** What the conversation was when a checkpoint was made: how many messages, and a fingerprint of the last one. */
export type ConversationMark = { length: number; fingerprint: string | undefined };

/**
 * A checkpoint: the workspace as it was before a prompt (or a rewind), with every change made after it until the
 * next one. Plain JSON.
 */
export type Checkpoint = {
  /** Stable id (`cp_…`), for the library and `--rewind`. */
  id: string;
  /** 1-based position in the session's list, as `/rewind` shows it. */
  number: number;
  kind: CheckpointKind;
  /** When it was made (ISO 8601). */
  at: string;
  /** The prompt's first line (at most 200 characters), for a prompt checkpoint. */
  prompt?: string | undefined;
  /** For a rewind: the checkpoint it went back to, and what it restored. */
  rewound?: { to: string; code: boolean; conversation: boolean } | undefined;
  /** The conversation before it. */
  conversation: ConversationMark;
  /** The changes made after it, until the next checkpoint, in the order they were seen. */
  changes: FileChange[];
};

/** One file a rewind would change, or did. */
export type RestoredFile = {
  path: string;
  /** What it is now and what it goes back to (`null`: absent). */
  from: FileState | null;
  to: FileState | null;
};

/** A file a rewind would overwrite although someone changed it after the agent did, or that cannot be restored. */
export type RewindConflict = {
  path: string;
  /** `changed`: changed after the agent's last change (by hand, most likely); `not-stored`: over the size cap. */
  reason: "changed" | "not-stored";
  /** In words a person reads. */
  description: string;
};

/** What rewinding the code to before a checkpoint would do (see `Checkpoints.planRewind`). */
export type RewindPlan = {
  checkpoint: Checkpoint;
  /** Files that would be restored (conflicting ones not among them). */
  files: RestoredFile[];
  conflicts: RewindConflict[];
};

/** What to do with conflicting files: stop before changing anything, leave them as they are, or restore them too. */
export type RewindConflictPolicy = "refuse" | "keep" | "overwrite";
