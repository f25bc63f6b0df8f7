import { resolve } from "node:path";
import { type Message, type RunResult, UsageError } from "../../engine.js";
import { SessionRecorder, type SessionRecorderOptions } from "./session-recorder.js";
import type { LoadedSession, SessionStore } from "./session-store.js";

/** How to open a session: a new one, the newest of the folder (`continue`), or one by id (`resume`); either may be forked. */
export type OpenSessionOptions = Omit<SessionRecorderOptions, "store" | "resume" | "fork" | "cwd"> & {
  /** The folder the agent works in (default: `process.cwd()`). */
  cwd?: string | undefined;
  /** Go on with the folder's most recently updated session (the CLI's `--continue`). */
  continue?: boolean | undefined;
  /** Go on with this session (the CLI's `--resume <id>`). */
  resume?: string | undefined;
  /** With `continue` or `resume`: record into a new session that starts with the old conversation; the old file is left as it was. */
  fork?: boolean | undefined;
};

/** An opened session: the recorder to listen with, and the conversation to go on with. */
export type OpenedSession = {
  /** Pass `recorder.listen` as the runs' `onEvent`. */
  recorder: SessionRecorder;
  /** The session that was loaded (`continue`, `resume`), with its metadata and any problems found in its file. */
  loaded: LoadedSession | undefined;
  /** The conversation to go on with (`agent.run(prompt, { history })`), undefined for a new session. */
  history: Message[] | undefined;
};

/**
 * Opens a session for a run: a new one, or an old one loaded and continued (same file) or forked (a new file).
 * Throws a UsageError when there is no session to continue, or no session with the id.
 * @example
 * const { recorder, history } = await openSession(store, { cwd, continue: true });
 * await agent.run(prompt, { history, onEvent: recorder.listen });
 */
export async function openSession(store: SessionStore, options: OpenSessionOptions = {}): Promise<OpenedSession> {
  const { continue: continueNewest, resume, fork, ...rest } = options;
  const cwd = resolve(options.cwd ?? process.cwd());
  if (continueNewest && resume !== undefined) throw new UsageError("openSession: give continue or resume, not both.");
  let loaded: LoadedSession | undefined;
  if (resume !== undefined) loaded = await loadToWrite(store, resume, fork);
  else if (continueNewest) {
    const newest = (await store.list(cwd))[0];
    if (!newest) throw new UsageError(`There is no session to continue in ${cwd}.`);
    loaded = await loadToWrite(store, newest.sessionId, fork);
  } else if (fork) throw new UsageError("openSession: fork needs a session to fork (continue, or resume with its id).");
  const recorder = new SessionRecorder({ ...rest, store, cwd: loaded?.header.cwd ?? cwd, resume: loaded, fork });
  return { recorder, loaded, history: loaded?.messages.slice() };
}

/**
 * Loads a session to go on writing it: locked first (a store that can: a second writer is refused before it reads),
 * and unlocked again if it cannot be loaded. A fork only reads the old session, so it takes no lock on it.
 */
async function loadToWrite(store: SessionStore, sessionId: string, fork: boolean | undefined): Promise<LoadedSession> {
  if (fork) return store.load(sessionId);
  store.lock?.(sessionId);
  try {
    return await store.load(sessionId);
  } catch (error) {
    store.unlock?.(sessionId);
    throw error;
  }
}

/**
 * The interrupted run a session ended with, as `agent.resume(state, decisions)` takes it: when the session's last
 * run stopped for calls that wait for a decision, and nothing came after. Undefined otherwise (then go on with
 * `history`: the engine answers unanswered calls as interrupted).
 */
export function interruptedRunResult(session: LoadedSession): RunResult | undefined {
  if (session.status !== "interrupted" || session.pending.length === 0) return undefined;
  return {
    runId: "",
    status: "interrupted",
    messages: session.messages.slice(),
    steps: [],
    final: "",
    usage: { ...session.usage },
    turns: session.turns,
    pending: session.pending,
  };
}
