import { knownContextWindowOf } from "../../../code/compaction/context-windows.js";

/**
 * The context window of `modelId` in tokens, if known: the compactor's table of known models (one source for the
 * status line's context use and the compaction threshold), and no percentage rather than a guess for the others.
 */
export function contextWindowOf(modelId: string): number | undefined {
  return knownContextWindowOf(modelId);
}
