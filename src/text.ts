// Text helpers every floor uses (the engine, the coding tools, the CLI): one way to put a value on one line, one
// way to cut a long text. Nothing here imports anything.

/**
 * `text` on one line, for messages and lists: runs of white space (newlines included) become one space, and a line
 * longer than `limit` characters is cut with an ellipsis (which counts in the limit), never inside a surrogate pair.
 */
export function toOneLine(text: string, limit: number): string {
  const line = text.replace(/\s+/g, " ").trim();
  if (line.length <= limit) return line;
  return `${line.slice(0, cutPoint(line, limit - 1))}…`;
}

/**
 * `text` cut to `limit` characters, with a line saying how much was left out of how much; `more` counts characters
 * already left out before it was given (a text cut once upstream). Never cuts inside a surrogate pair.
 */
export function truncate(text: string, limit: number, more = 0): string {
  if (text.length <= limit && more <= 0) return text;
  const end = cutPoint(text, Math.min(limit, text.length));
  const total = text.length + Math.max(more, 0);
  return `${text.slice(0, end)}\n…[truncated ${total - end} of ${total} characters]`;
}

/** `end`, or one less when the character before it is the first half of a surrogate pair. */
function cutPoint(text: string, end: number): number {
  const code = text.charCodeAt(end - 1);
  return code >= 0xd800 && code <= 0xdbff ? end - 1 : end;
}
