import type { Message, PendingToolCall, RunStatus, ToolCall, Usage } from "../../engine.js";
/**
 * The session file format, version 1 (docs/sessions.md): JSON Lines, one object per line, the first line the
 * header. Lines are only ever appended. Readers skip line types they do not know, so new types may be added
 * within a version; anything a version-1 reader would misread needs a new `version`.
 */

/** The format version this minagent writes and reads; a reader refuses a header with another. */
export const sessionFormatVersion = 1;

/** The model a session talks to, as a run reports it. */
export type SessionModel = {
  provider?: string | undefined;
  modelId?: string | undefined;
};

/** The first line of every session file. */
export type SessionHeader = {
  type: "session";
  /** The format version ({@link sessionFormatVersion}). */
  version: number;
  /** The session's id: also the file's name. */
  sessionId: string;
  /** The folder the agent worked in (absolute). `list(cwd)` finds sessions by it. */
  cwd: string;
  /** When the session was created (ISO 8601). */
  createdAt: string;
  /** The model of the first run (a later change is a `model` line). */
  model?: SessionModel | undefined;
  /** The minagent version that created the file. */
  minagentVersion?: string | undefined;
  /** Set on a fork: the session it was copied from (whose file is left as it was). */
  forkedFrom?: { sessionId: string } | undefined;
};

/** Fields every line after the header has. */
type LineBase = {
  /** When the line was written (ISO 8601). */
  at: string;
  /**
   * Tokens spent since the previous line: the model call on an assistant message's line, and the model calls of
   * child runs (sub-agents) on whichever line comes next. The session's usage is the sum over its lines.
   */
  usage?: Usage | undefined;
};

/**
 * One message of the conversation, appended when it happens: the prompt (and the system prompt) when a run
 * starts, each assistant message when the model answers, each tool result when its call ends.
 */
export type SessionMessageLine = LineBase & {
  type: "message";
  message: Message;
  /**
   * `"tool-call-end"` on a result written when its call ended. Such results are written in the order the calls
   * finished; a reader puts each after the results of its turn's earlier calls (call order, as the engine sends
   * them). Every other message line is in conversation order.
   */
  event?: "tool-call-end" | undefined;
};

/**
 * The history was replaced: by `prepareTurn` (compaction, pruning; `reason: "prepare-turn"`), by a run started
 * with a history that is not the recorded one (`reason: "history"`), or by a rewind of the conversation to a
 * checkpoint (`reason: "rewind"`). The conversation is now its first `keep` messages followed by `messages`; both
 * parts are on one line, so a replacement is on disk whole or not at all.
 */
export type SessionCompactionLine = LineBase & {
  type: "compaction";
  reason: "prepare-turn" | "history" | "rewind";
  keep: number;
  messages: Message[];
  /**
   * On a rewind: the rewind's own checkpoint id. The conversation just before this line is the one the rewind
   * replaced, found by this id as a marker's is (`conversationBefore`), so that a rewind can be undone.
   */
  checkpointId?: string | undefined;
};

/**
 * A checkpoint: written when a prompt begins, before its user message line. It marks where the conversation
 * stood before that prompt, so that it can be rewound there (`conversationBefore`); it changes nothing in the
 * conversation, and loading a session passes over it.
 */
export type SessionCheckpointLine = LineBase & {
  type: "checkpoint";
  /** The checkpoint's id (the one the workspace's record of files before the prompt is kept under). */
  checkpointId: string;
};

/** The permission mode changed (the person's shift-tab, or the model's EnterPlanMode / ExitPlanMode). */
export type SessionPermissionModeLine = LineBase & { type: "permission-mode"; mode: string };

/** A run talked to another model than the one before. */
export type SessionModelLine = LineBase & { type: "model"; model: SessionModel };

/**
 * The person named the session (`/rename <name>`): lists title it by its last name line, else by its first prompt
 * (`sessionTitle`). It changes nothing in the conversation. A reader from before names passes over it.
 */
export type SessionNameLine = LineBase & { type: "name"; name: string };

/** A tool call waits for a decision (a run ended `interrupted`): it has no result yet. */
export type SessionPendingLine = LineBase & {
  type: "pending";
  toolCall: ToolCall;
  reason?: string | undefined;
  deferred?: true | undefined;
};

/** A run of the conversation ended: how, and (for a run that failed) why, secrets hidden. */
export type SessionRunEndLine = LineBase & {
  type: "run-end";
  status: RunStatus | "failed";
  /** The error's message, for a run that failed (an abort, a model error). */
  error?: string | undefined;
};

/**
 * A sub-agent's run started (a child run: the Agent tool's, at any depth). Its lines are not the conversation's: a
 * reader of the conversation skips them (and adds up their `usage`), the trace viewer draws them under the call.
 */
export type SessionChildRunStartLine = LineBase & {
  type: "child-run-start";
  runId: string;
  parentRunId: string;
  /** The parent's tool call that started it. */
  parentToolCallId?: string | undefined;
  /** What the run is (the sub-agent's type). */
  name?: string | undefined;
  model: SessionModel;
  /** What the child's first model call is sent: its system prompt and its task. */
  messages: Message[];
};

/** A sub-agent's model answer (with that call's `usage`) or a tool result of its own. */
export type SessionChildMessageLine = LineBase & { type: "child-message"; runId: string; message: Message };

/** A sub-agent's run ended. */
export type SessionChildRunEndLine = LineBase & {
  type: "child-run-end";
  runId: string;
  status: RunStatus | "failed";
  error?: string | undefined;
};

/** Every line after the header. */
export type SessionEntry =
  | SessionMessageLine
  | SessionCompactionLine
  | SessionCheckpointLine
  | SessionPermissionModeLine
  | SessionModelLine
  | SessionNameLine
  | SessionPendingLine
  | SessionRunEndLine
  | SessionChildRunStartLine
  | SessionChildMessageLine
  | SessionChildRunEndLine;

/** Any line of a session file. */
export type SessionLine = SessionHeader | SessionEntry;

/** A line as written: its JSON and a newline (JSON escapes newlines inside strings, so a line is one line). */
export function formatSessionLine(line: SessionLine): string {
  return `${JSON.stringify(line)}\n`;
}

/** A pending call as an interrupted run's state reports it. */
export function toPendingToolCall(line: SessionPendingLine): PendingToolCall {
  return {
    toolCall: line.toolCall,
    ...(line.reason !== undefined && { reason: line.reason }),
    ...(line.deferred && { deferred: true as const }),
  };
}
