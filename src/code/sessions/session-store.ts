import type { Message, PendingToolCall, Usage } from "../../engine.js";
import type { SessionHeader, SessionLine, SessionModel, SessionRunEndLine } from "./session-format.js";

/**
 * Where sessions are kept. `append` is synchronous on purpose: the recorder calls it from an event listener, and
 * what it returns from must be stored (written to the kernel, for files), so that a process killed right after
 * loses nothing. A store that cannot write synchronously cannot make that promise.
 */
export interface SessionStore {
  /**
   * Appends lines to a session, in order. A session that does not exist yet is created by an append whose first
   * line is its header; appending other lines to an unknown session throws.
   */
  append(sessionId: string, lines: readonly SessionLine[]): void;
  /** Reads a session: the conversation as the model saw it last, and what is known about it. Throws if there is none. */
  load(sessionId: string): Promise<LoadedSession>;
  /** The sessions of a folder, most recently updated first. */
  list(cwd: string): Promise<SessionSummary[]>;
  /** Deletes a session (and, for a store that keeps them, its checkpoints); false when there was none. */
  remove(sessionId: string): Promise<boolean>;
  /**
   * The conversation as it stood before a checkpoint (a `checkpoint` marker, or a rewind's `compaction` line, with
   * that id), looked for in the sessions a fork was made from too; undefined when there is none.
   */
  conversationBefore?(sessionId: string, checkpointId: string): Promise<Message[] | undefined>;
  /**
   * Takes the session's write lock for this process, so that no other process appends to it until `unlock` (or
   * this process's exit): call it before `load` when going on with a session. Throws (naming the process) when
   * another running process holds it. A store without it cannot keep two processes from mixing one session.
   */
  lock?(sessionId: string): void;
  /** Gives the session's write lock up. */
  unlock?(sessionId: string): void;
}

/** A line a reader skipped, and why: a torn last line (the process died while writing it), or a damaged one. */
export type SessionProblem = {
  /** 1-based line number in the file. */
  line: number;
  /** Why it was skipped, in words a person reads. */
  reason: string;
};

/** How a session's last run ended: a run's status, `failed` (it threw), or `unfinished` (the process died). */
export type SessionStatus = SessionRunEndLine["status"] | "unfinished";

/** A session as `load` gives it. Plain JSON. */
export type LoadedSession = {
  sessionId: string;
  header: SessionHeader;
  /**
   * The conversation as the model saw it last: after any compaction, each turn's tool results in the order of
   * its calls. Pass it as `history` to go on (`agent.run(prompt, { history: session.messages })`); a turn cut
   * short by a crash may end in calls without results, which the engine answers before it sends anything.
   */
  messages: Message[];
  /** The first prompt of the session (a user message), as recorded. */
  firstPrompt: string | undefined;
  /** The last name the person gave the session (`/rename`; a `name` line), if any. */
  name: string | undefined;
  /**
   * What lists call it (`sessionTitle`): the name, else the first prompt that is not a bracketed note such as
   * `[Request interrupted by user]`; on one line, not cut. Undefined before either was written.
   */
  title: string | undefined;
  /** User messages recorded (prompts, and a Stop hook's continuations). */
  prompts: number;
  /** Model calls of the conversation recorded. */
  turns: number;
  /** Tokens spent, child runs' included, summed over the lines. */
  usage: Usage;
  /** When the session was created and last written to (ISO 8601). */
  createdAt: string;
  updatedAt: string;
  /** The model of the last run. */
  model: SessionModel | undefined;
  /** The last permission mode recorded, if one was. */
  permissionMode: string | undefined;
  /** How the last run ended. */
  status: SessionStatus;
  /** Calls that wait for a decision (the last run ended `interrupted`), in call order; see `interruptedRunResult`. */
  pending: PendingToolCall[];
  /** How many times the history was replaced (compaction). */
  compactions: number;
  /** Lines skipped: a torn last line after a crash, damaged lines. Empty for a healthy file. */
  problems: SessionProblem[];
};

/** A session as `list` gives it: enough to choose one, without reading the conversation. */
export type SessionSummary = {
  sessionId: string;
  cwd: string;
  /** The first prompt, as recorded; undefined before the first prompt was written. */
  firstPrompt: string | undefined;
  /** The last name given (`/rename`), if any. */
  name: string | undefined;
  /** What lists call it: the name, else the first prompt worth a title, on one line (see `LoadedSession.title`). */
  title: string | undefined;
  /** Model calls recorded, counted as `load` counts them. */
  turns: number;
  /** User messages recorded. */
  prompts: number;
  /** ISO 8601. */
  createdAt: string;
  /** ISO 8601: the time of the last line. */
  updatedAt: string;
  model: SessionModel | undefined;
  forkedFrom: string | undefined;
};
