// How a saved session is titled in every list of them (the interactive /resume, `minagent code --resume`'s
// messages, the ACP server's session/list, the trace viewer): one rule, here below every floor that lists them.
// Nothing here but text: it imports only text.ts.
import { toOneLine } from "./text.js";

/**
 * Whether a user message is worth titling a session by: it has words, and it is not one of the notes minagent
 * writes as the person's turn, a whole message in brackets (`[Request interrupted by user]`, a hook's error).
 */
export function isTitlePrompt(content: string): boolean {
  const text = content.trim();
  return text !== "" && !/^\[[^\]\n]*\]$/.test(text);
}

/** What a session is titled by: the name the person gave it, and its first prompt worth a title ({@link isTitlePrompt}). */
export type SessionTitleSource = {
  /** The last name given (`/rename <name>`), if any. */
  name?: string | undefined;
  /** The first prompt worth a title, if any. */
  firstPrompt?: string | undefined;
};

/**
 * A session's title: the name given with `/rename` wins, else its first prompt; on one line (runs of white space
 * become one space), cut to `limit` characters with an ellipsis. Undefined when it has neither.
 */
export function sessionTitle(session: SessionTitleSource, limit = Number.POSITIVE_INFINITY): string | undefined {
  for (const text of [session.name, session.firstPrompt]) {
    const line = text === undefined ? "" : toOneLine(text, limit);
    if (line !== "") return line;
  }
  return undefined;
}
