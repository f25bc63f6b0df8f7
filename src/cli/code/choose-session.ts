import { UsageError } from "../../errors.js";
import { toOneLine } from "../../text.js";
import type { CodeOptions, CodeSession, CodeSessionStore, CodeSessionSummary } from "./session-context.js";

/**
 * The session a `minagent code` invocation writes to: the folder's newest (`--continue`), the one named
 * (`--resume <id>`), a new copy of either (`--fork-session`: the old file is only read, so a session another process
 * is writing can be forked), or a new one. Going on with a session takes its lock: one another running process
 * writes is refused, naming that process. `--resume` without an id needs a person to choose: the interactive UI gets
 * a new session and the list; `-p` is refused with the folder's recent sessions.
 */
export async function chooseSession(store: CodeSessionStore, options: CodeOptions): Promise<CodeSession> {
  let id: string | undefined;
  if (options.continue) {
    const [newest] = await store.list();
    if (!newest)
      throw new UsageError(`--continue: there is no session to continue in ${options.cwd}. Start one with minagent code -p "…".`);
    id = newest.id;
  } else if (typeof options.resume === "string") id = options.resume;
  else if (options.resume === true && options.print)
    throw new UsageError(
      `--resume needs a session id with -p (or use --continue for the newest).${recent(await store.list(), options.cwd)}`,
    );
  if (id === undefined) return store.create();
  return options.forkSession ? store.create({ forkedFrom: id }) : store.open(id);
}

function recent(sessions: readonly CodeSessionSummary[], cwd: string): string {
  if (sessions.length === 0) return ` There are no sessions in ${cwd} yet.`;
  const lines = sessions.slice(0, 5).map((session) => {
    return `  ${session.id}  ${session.updatedAt}  ${toOneLine(session.firstPrompt ?? "", 60)}`;
  });
  return ` Recent sessions in ${cwd}:\n${lines.join("\n")}`;
}
