import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { JsonLinesSessionStore } from "../../code/sessions/json-lines-session-store.js";
import { describeSessionHolder, SessionInUseError, staleHint } from "../../code/sessions/session-lock.js";
import { SessionRecorder } from "../../code/sessions/session-recorder.js";
import type { LoadedSession } from "../../code/sessions/session-store.js";
import { UsageError } from "../../errors.js";
import type { CodeSession, CodeSessionStore } from "./session-context.js";

/** Settings of {@link createCodeSessionStore}. */
export type CodeSessionStoreOptions = {
  /** The project folder (the workspace root): its sessions are the ones listed and continued. */
  cwd: string;
  /** minagent's data directory (`MINAGENT_HOME`, else `~/.minagent`): sessions go under its `projects/`. */
  directory: string;
  /** The environment whose credential values are never written to a session. */
  env: Record<string, string | undefined>;
  /** The permission mode now, read at each event: a change is recorded (Shift+Tab, plan mode). */
  permissionMode?: (() => string | undefined) | undefined;
};

/**
 * The CLI's sessions on minagent/code's: a `JsonLinesSessionStore` and a `SessionRecorder` per session (written as
 * the run goes, synchronously, secrets scrubbed; docs/sessions.md). `open` only takes a session of this folder.
 *
 * The session written to is locked for this process (the store's lock file, released when the process exits): `open`
 * takes the lock before it loads, and refuses a session another running process writes (its pid, and how to go on:
 * wait, or --fork-session). The CLI writes one session at a time, so opening or creating another releases the last
 * one's lock. A fork (`create({ forkedFrom })`) only reads the old session: it needs no lock.
 */
export function createCodeSessionStore(options: CodeSessionStoreOptions): CodeSessionStore {
  const cwd = resolve(options.cwd);
  const store = new JsonLinesSessionStore({ directory: options.directory });
  const sessionOf = (
    recorder: SessionRecorder,
    loaded: LoadedSession | undefined,
    history: readonly unknown[] | undefined,
    forkedFrom?: string,
  ): CodeSession => {
    const file = store.sessionPath(cwd, recorder.sessionId);
    return {
      id: recorder.sessionId,
      file,
      forkedFrom,
      model: loaded?.model,
      history: (history ?? []) as CodeSession["history"],
      record: recorder.listen,
      // The recorder writes each event's lines before it returns: nothing waits, but a failed write is reported here.
      flush: async () => {
        if (recorder.error !== undefined) throw recorder.error;
      },
      markCheckpoint: (checkpointId) => recorder.markCheckpoint(checkpointId),
      conversationBefore: async (checkpointId) => {
        const found = await store.conversationBefore(recorder.sessionId, checkpointId);
        // A fork whose first lines are not written has no file yet: its checkpoints are all its parent's.
        if (found !== undefined || forkedFrom === undefined || existsSync(file)) return found;
        return store.conversationBefore(forkedFrom, checkpointId);
      },
      rewindConversation: (messages, checkpointId) => recorder.rewindConversation(messages, checkpointId),
      addMessages: (messages) => recorder.recordMessages(messages),
      get name() {
        return recorder.name;
      },
      rename: (name) => recorder.recordName(name),
    };
  };
  const recorderFor = (resume: LoadedSession | undefined, fork: boolean) =>
    new SessionRecorder({
      store,
      cwd,
      resume,
      fork,
      env: options.env,
      permissionMode: options.permissionMode,
      // A failed write stops the recording; `flush` reports it (not a process warning in the middle of the output).
      onError: () => {},
    });
  const load = async (id: string): Promise<LoadedSession> => {
    const loaded = await store.load(id);
    if (resolve(loaded.header.cwd) !== cwd)
      throw new UsageError(`Session ${id} belongs to ${loaded.header.cwd}, not ${cwd}: run there, or with --cwd ${loaded.header.cwd}.`);
    return loaded;
  };
  /** The session this process writes to now: its lock goes when another is opened or created. */
  let current: string | undefined;
  const switchTo = (id: string) => {
    if (current !== undefined && current !== id) store.unlock(current);
    current = id;
  };

  return {
    async create(seed = {}) {
      const loaded = seed.forkedFrom === undefined ? undefined : await load(seed.forkedFrom);
      const recorder = recorderFor(loaded, loaded !== undefined);
      switchTo(recorder.sessionId); // its lock is taken with its first lines
      return sessionOf(recorder, loaded, seed.history ?? loaded?.messages, loaded?.sessionId);
    },
    async open(id) {
      const heldBefore = id === current;
      try {
        store.lock(id);
      } catch (error) {
        throw error instanceof SessionInUseError ? inUse(error) : error;
      }
      let loaded: LoadedSession;
      try {
        loaded = await load(id);
      } catch (error) {
        if (!heldBefore) store.unlock(id);
        throw error;
      }
      switchTo(id);
      return sessionOf(recorderFor(loaded, false), loaded, loaded.messages);
    },
    has: (id) => store.has(cwd, id),
    // The store's summaries, without reading each conversation: --continue stays fast in a folder of big sessions.
    async list() {
      return (await store.list(cwd)).map((summary) => ({
        id: summary.sessionId,
        file: store.sessionPath(cwd, summary.sessionId),
        updatedAt: summary.updatedAt,
        prompts: summary.prompts,
        turns: summary.turns,
        firstPrompt: summary.firstPrompt,
        name: summary.name,
        title: summary.title,
      }));
    },
    async remove(id) {
      const removed = await store.remove(id);
      if (id === current) current = undefined; // removing takes and gives up its lock: this process holds it no more
      return removed;
    },
  };
}

/** The store's refusal in the CLI's words: what to run to go on in a copy. */
function inUse(error: SessionInUseError): SessionInUseError {
  const { sessionId, holder, lockFile } = error;
  return new SessionInUseError(
    sessionId,
    holder,
    lockFile,
    `${describeSessionHolder(sessionId, holder)} Wait for it to end, or go on in a copy of it: minagent code --resume ${sessionId} --fork-session. ${staleHint(holder, lockFile)}`,
  );
}
