// Checkpoints and rewind for minagent/code: the workspace's files before each prompt, kept by content, so that
// what the agent did (file tools and shell commands alike) can be undone. Explicit named exports only.
export { BlobStore, hashContent } from "./blob-store.js";
export { type CheckpointSettings, readCheckpointSettings } from "./checkpoint-settings.js";
export type {
  ChangeAuthor,
  Checkpoint,
  CheckpointKind,
  ConversationMark,
  FileChange,
  FileState,
  RestoredFile,
  RewindConflict,
  RewindConflictPolicy,
  RewindPlan,
} from "./checkpoint-types.js";
export {
  Checkpoints,
  type CheckpointsOptions,
  fingerprintOf,
  logFile,
  manifestFile,
  markSweepDue,
  RewindConflictError,
  type RewindOutcome,
} from "./checkpoints.js";
export { planRewind, sameState } from "./plan-rewind.js";
export { type PruneCheckpointsOptions, type PrunedCheckpoints, pruneCheckpointStore } from "./prune-checkpoint-store.js";
export { defaultCheckpointExclusions } from "./scan-workspace.js";
export { type FileChangeSummary, summarizeChanges, unifiedDiff } from "./summarize-changes.js";
export { withCheckpoints } from "./with-checkpoints.js";
