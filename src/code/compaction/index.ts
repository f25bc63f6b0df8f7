// Compaction for long sessions (docs/compaction.md): a prepareTurn that measures every request and, near the
// window, clears old tool results, then summarises the older conversation. Explicit named exports only.
export { chainPrepareTurns } from "./chain-prepare-turns.js";
export { isCompactionMessage, type PinnedState } from "./compaction-messages.js";
export { ContextMeter } from "./context-meter.js";
export { contextWindowOf, defaultContextWindow, knownContextWindowOf, knownContextWindows } from "./context-windows.js";
export { type CompactionEnd, type CompactionStart, type Compactor, type CompactorOptions, createCompactor } from "./create-compactor.js";
export { describePermissions, describeTodos } from "./describe-state.js";
export { charactersPerToken, estimateMessageTokens, estimateTextTokens } from "./estimate-tokens.js";
