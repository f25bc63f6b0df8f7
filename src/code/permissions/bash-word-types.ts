/**
 * The words of a shell command as the permission check reads them. They live apart from the walk (bash-commands.ts)
 * so that the modules it uses — bash-words.ts, command-kinds.ts, command-runners.ts, command-wrappers.ts — can take
 * these types without importing the walk back.
 */

/** One word of a command. */
export type BashWord = {
  /** As written: `"$HOME/x"`, `'a b'`, `src/*.ts`. */
  text: string;
  /** What it is once quotes and escapes are removed; undefined when an expansion decides it (`$X`, `$(…)`, `~`, `{a,b}`). */
  value: string | undefined;
  /** Whether it holds an unquoted `*`, `?` or `[`: the shell may replace it with file names. */
  glob: boolean;
};

/** `NAME=value` before a command, on its own, or after `env`. */
export type BashAssignment = { name: string; value: string | undefined; text: string };
