// Sessions for minagent/code: conversations written as they happen (crash-safe JSON Lines files), listed,
// loaded, continued and forked. Explicit named exports only.
export {
  checkSessionId,
  defaultDataDirectory,
  JsonLinesSessionStore,
  type JsonLinesSessionStoreOptions,
  projectFolderName,
} from "./json-lines-session-store.js";
export { interruptedRunResult, type OpenedSession, type OpenSessionOptions, openSession } from "./open-session.js";
export { pruneSessions } from "./prune-sessions.js";
export { conversationBefore, readSession } from "./read-session.js";
export { createSessionScrubber, environmentSecrets, scrubMessage } from "./scrub-message.js";
export { SessionFileError } from "./session-file-error.js";
export {
  formatSessionLine,
  type SessionCheckpointLine,
  type SessionCompactionLine,
  type SessionEntry,
  type SessionHeader,
  type SessionLine,
  type SessionMessageLine,
  type SessionModel,
  type SessionModelLine,
  type SessionNameLine,
  type SessionPendingLine,
  type SessionPermissionModeLine,
  type SessionRunEndLine,
  sessionFormatVersion,
} from "./session-format.js";
export { SessionInUseError, type SessionLockHolder } from "./session-lock.js";
export { SessionRecorder, type SessionRecorderOptions } from "./session-recorder.js";
export type { LoadedSession, SessionProblem, SessionStatus, SessionStore, SessionSummary } from "./session-store.js";
