/**
 * Splits what follows a command's name into arguments as Claude Code does, shell-style: whitespace separates them,
 * `"double"` and `'single'` quotes group words and are removed, a backslash outside single quotes keeps the next
 * character as it is. An unclosed quote takes the rest of the line, rather than refusing it.
 * @example splitCommandArguments(`Button "a form" 'x y'`) // ["Button", "a form", "x y"]
 */
export function splitCommandArguments(text: string): string[] {
  const found: string[] = [];
  let current = "";
  let started = false;
  let quote: '"' | "'" | undefined;
  for (let index = 0; index < text.length; index++) {
    const character = text[index] as string;
    if (quote === "'") {
      if (character === "'") quote = undefined;
      else current += character;
    } else if (character === "\\" && index + 1 < text.length) {
      const next = text[++index] as string;
      // Inside double quotes only the characters the shell escapes there lose their backslash.
      current += quote === '"' && !/["\\$`]/.test(next) ? `\\${next}` : next;
      started = true;
    } else if (quote === '"') {
      if (character === '"') quote = undefined;
      else current += character;
    } else if (character === '"' || character === "'") {
      quote = character;
      started = true;
    } else if (/\s/.test(character)) {
      if (started) found.push(current);
      current = "";
      started = false;
    } else {
      current += character;
      started = true;
    }
  }
  if (started) found.push(current);
  return found;
}

/** Whether a command's text names its arguments anywhere: `$ARGUMENTS`, `$ARGUMENTS[N]`, `$N` or a declared `$name`. */
export function usesArguments(text: string, argumentNames: readonly string[] = []): boolean {
  return placeholderPattern(argumentNames).test(text);
}

/**
 * Puts the arguments into a command's text, as Claude Code's commands and skills read them:
 *
 * - `$ARGUMENTS` is everything after the command's name, as typed (quotes included), trimmed;
 * - `$ARGUMENTS[N]` and its shorthand `$N` are the argument at index N, **counted from 0** (`$0` is the first,
 *   `$1` the second: Claude Code's current rule, for `.claude/commands/` files too), split as
 *   {@link splitCommandArguments} splits them; one with no argument stays as written (`$2` when two were given);
 * - `$name` is the argument at the position of `name` in the front matter's `arguments` list, empty when missing;
 * - one backslash right before a placeholder keeps it literal (`\$1.00`); two backslashes stay, and it expands.
 *
 * Nothing else that starts with `$` changes (`$HOME`, `$PATH` in a shell line stay for the shell).
 */
export function substituteArguments(text: string, args: string, argumentNames: readonly string[] = []): string {
  const whole = args.trim();
  const values = splitCommandArguments(whole);
  const named = new Map(argumentNames.map((name, index) => [name, values[index] ?? ""]));
  return text.replace(
    placeholderPattern(argumentNames, "g"),
    (match, slashes: string, token: string, bracketed?: string, digits?: string) => {
      if (slashes.length === 1) return match.slice(1);
      let value: string | undefined;
      if (token === "ARGUMENTS") value = whole;
      else if (bracketed !== undefined || digits !== undefined) value = values[Number(bracketed ?? digits)];
      else value = named.get(token);
      return value === undefined ? match : `${slashes}${value}`;
    },
  );
}

/**
 * `$ARGUMENTS[N]`, `$ARGUMENTS`, `$N` and the declared names (longest first, so that `$old-name` wins over `$old`),
 * each with the backslashes right before it.
 */
function placeholderPattern(argumentNames: readonly string[], flags = ""): RegExp {
  const names = [...argumentNames]
    .filter((name) => name !== "" && name !== "ARGUMENTS" && !/^\d+$/.test(name))
    .sort((a, b) => b.length - a.length)
    .map((name) => name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  const alternatives = ["ARGUMENTS\\[(\\d+)\\]", "ARGUMENTS(?![A-Za-z0-9_])", "(\\d+)", ...names.map((name) => `${name}(?![A-Za-z0-9_])`)];
  return new RegExp(`(\\\\*)\\$(${alternatives.join("|")})`, flags);
}
