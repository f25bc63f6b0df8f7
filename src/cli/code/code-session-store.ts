import { resolve } from "node:path";
import { JsonLinesSessionStore } from "../../code/sessions/json-lines-session-store.js";
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
 */
export function createCodeSessionStore(options: CodeSessionStoreOptions): CodeSessionStore {
  const cwd = resolve(options.cwd);
  const store = new JsonLinesSessionStore({ directory: options.directory });
  const sessionOf = (recorder: SessionRecorder, history: readonly unknown[] | undefined): CodeSession => ({
    id: recorder.sessionId,
    file: store.sessionPath(cwd, recorder.sessionId),
    history: (history ?? []) as CodeSession["history"],
    record: recorder.listen,
    // The recorder writes each event's lines before it returns: nothing waits, but a failed write is reported here.
    flush: async () => {
      if (recorder.error !== undefined) throw recorder.error;
    },
  });
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

  return {
    async create(seed = {}) {
      if (seed.forkedFrom === undefined) return sessionOf(recorderFor(undefined, false), seed.history);
      const loaded = await load(seed.forkedFrom);
      return sessionOf(recorderFor(loaded, true), seed.history ?? loaded.messages);
    },
    async open(id) {
      const loaded = await load(id);
      return sessionOf(recorderFor(loaded, false), loaded.messages);
    },
    // The store's summaries, without reading each conversation: --continue stays fast in a folder of big sessions.
    async list() {
      return (await store.list(cwd)).map((summary) => ({
        id: summary.sessionId,
        file: store.sessionPath(cwd, summary.sessionId),
        updatedAt: summary.updatedAt,
        prompts: summary.prompts,
        turns: summary.turns,
        firstPrompt: summary.firstPrompt,
      }));
    },
  };
}
