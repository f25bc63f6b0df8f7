import { UsageError } from "../../engine.js";

const exactNames = /^[A-Za-z0-9_|, -]+$/;

/**
 * A matcher's test, as Claude Code reads matchers: omitted, `""` or `"*"` matches everything; letters, digits, `_`,
 * `-`, spaces, `,` and `|` only are exact names separated by `|` or `,` (blanks around them ignored: `"Edit, Write"`,
 * `"code-reviewer"`); anything else is a regular expression searched in the name (unanchored, as in Claude Code:
 * write `^…$` to match whole names). An invalid expression throws a UsageError when the hooks are configured, not
 * when a tool is called.
 */
export function compileMatcher(matcher: string | undefined, where: string): (name: string) => boolean {
  if (matcher === undefined || matcher === "" || matcher === "*") return () => true;
  if (typeof matcher !== "string") throw new UsageError(`${where}.matcher must be a string, got ${typeof matcher}.`);
  if (exactNames.test(matcher)) {
    const names = new Set(
      matcher
        .split(/[|,]/)
        .map((name) => name.trim())
        .filter((name) => name !== ""),
    );
    return (name) => names.has(name);
  }
  let pattern: RegExp;
  try {
    pattern = new RegExp(matcher);
  } catch (error) {
    throw new UsageError(`${where}.matcher ${JSON.stringify(matcher)} is not a valid regular expression: ${(error as Error).message}`);
  }
  return (name) => pattern.test(name);
}
