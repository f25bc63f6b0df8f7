import { UsageError } from "../../errors.js";
import { toOneLine } from "../../text.js";
import type { CodeOptions, CodeSession, CodeSessionStore, CodeSessionSummary } from "./session-context.js";

/**
 * The session a `minagent code` invocation writes to: the folder's newest (`--continue`), the one named
 * (`--resume <id>`, or `--resume <name>`: the one session of the folder given that name with /rename), a new copy of either (`--fork-session`: the old file is only read, so a session another process
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
  } else if (typeof options.resume === "string") id = await findSessionId(store, options.resume, options.cwd);
  else if (options.resume === true && options.print)
    throw new UsageError(
      `--resume needs a session id with -p (or use --continue for the newest).${recent(await store.list(), options.cwd)}`,
    );
  if (id === undefined) return store.create();
  return options.forkSession ? store.create({ forkedFrom: id }) : store.open(id);
}

/**
 * The id `--resume` (or `/resume`) names: the session with that id, else the one session of the folder with that
 * name (the same letters, case aside); an unknown word is left as an id, for `open` to say there is none. Throws a
 * UsageError listing them when several sessions have the name.
 */
export async function findSessionId(store: CodeSessionStore, given: string, cwd: string): Promise<string> {
  if (await store.has?.(given)) return given;
  const sessions = await store.list();
  if (sessions.some((session) => session.id === given)) return given;
  const wanted = given.trim().toLowerCase();
  const named = sessions.filter((session) => session.name?.trim().toLowerCase() === wanted);
  if (named.length === 1) return (named[0] as CodeSessionSummary).id;
  if (named.length > 1)
    throw new UsageError(`${named.length} sessions in ${cwd} are named "${given.trim()}"; give its id:\n${named.map(describe).join("\n")}`);
  return given;
}

function describe(session: CodeSessionSummary): string {
  return `  ${session.id}  ${session.updatedAt}  ${toOneLine(session.title ?? "(no prompt)", 60)}`;
}

function recent(sessions: readonly CodeSessionSummary[], cwd: string): string {
  if (sessions.length === 0) return ` There are no sessions in ${cwd} yet.`;
  return ` Recent sessions in ${cwd}:\n${sessions.slice(0, 5).map(describe).join("\n")}`;
}
