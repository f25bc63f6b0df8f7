import type { BashWord } from "./bash-word-types.js";

/**
 * What the modes know about shell commands. Everything else is judged by rules alone.
 *
 * Read-only commands run without a rule in default, acceptEdits and plan modes when every path they name lies
 * inside the workspace (and no Read rule denies or asks for it). Left out on purpose, because some use of them
 * writes or runs code: sort (-o), uniq (an output operand), tree (-o), file (-C), xxd (-r), find (-exec, -delete),
 * rg (--pre), less/more (shell escapes), git (hooks and config can run programs), sed (w, e).
 */
export const readOnlyCommands: ReadonlySet<string> = new Set([
  "cat",
  "cd",
  "cmp",
  "cut",
  "diff",
  "du",
  "egrep",
  "fgrep",
  "grep",
  "head",
  "ls",
  "md5sum",
  "nl",
  "pushd",
  "readlink",
  "realpath",
  "sha1sum",
  "sha256sum",
  "stat",
  "tac",
  "tail",
  "wc",
]);

/** Read-only commands whose operands are not paths (nothing to check). */
export const commandsWithoutPaths: ReadonlySet<string> = new Set([
  ":",
  "basename",
  "dirname",
  "echo",
  "false",
  "id",
  "popd",
  "printf",
  "pwd",
  "true",
  "type",
  "uname",
  "which",
  "whoami",
]);

/**
 * The file-system commands acceptEdits mode runs without a rule (Claude Code's list, without sed, whose scripts can
 * write files and run commands): every operand must lie inside the workspace, outside `.git`, `.minagent`,
 * `.vscode` and `.idea`, and must not be the workspace root or an added directory itself.
 */
export const fileSystemCommands: ReadonlySet<string> = new Set(["cp", "mkdir", "mv", "rm", "rmdir", "touch"]);

/**
 * What a simple command is to the modes, told by the words that run (prefix assignments and wrappers taken off):
 * `read`, a read-only command whose operands are paths to judge (`cat`, `ls`, `grep`…); `print`, a read-only command
 * whose operands are not paths (`echo`, `pwd`, `command -v`), or no command at all (`FOO=1` alone); `files`, one of
 * {@link fileSystemCommands}; `other`, anything else, builtins that assign variables included (`read X`, `printf -v X`).
 * The judge (judge-bash.ts) and the read-only subagents' check both ask this.
 */
export function commandKind(runs: readonly BashWord[]): "read" | "print" | "files" | "other" {
  const name = runs[0]?.value;
  // A first word only known when it runs (`$CMD`) is a command this check cannot name.
  if (name === undefined) return runs.length === 0 ? "print" : "other";
  if (findUnsafeAssignment(runs) !== undefined) return "other";
  const lookup = name === "command" && (runs[1]?.value === "-v" || runs[1]?.value === "-V");
  if (commandsWithoutPaths.has(name) || lookup) return "print";
  return readOnlyCommands.has(name) ? "read" : fileSystemCommands.has(name) ? "files" : "other";
}

/** Commands that change the shell's directory: relative paths after them cannot be judged. */
export const directoryCommands: ReadonlySet<string> = new Set(["cd", "popd", "pushd"]);

/** Directories acceptEdits never writes without asking: repository state and editor and agent configuration. */
export const protectedDirectories: ReadonlySet<string> = new Set([".git", ".minagent", ".claude", ".vscode", ".idea"]);

/**
 * Variables that only tune output, locale or logging. `NODE_ENV=test npm test` matches `Bash(npm test)` when
 * every prefix assignment is one of these, with a plain value; anything else (PATH, LD_PRELOAD, NODE_OPTIONS,
 * GIT_*, PAGER…) can change what runs, so an allow rule must name it: `Bash(NODE_OPTIONS=… npm test)`.
 */
export const safeVariables: ReadonlySet<string> = new Set([
  "CI",
  "COLUMNS",
  "DEBUG",
  "FORCE_COLOR",
  "LANG",
  "LANGUAGE",
  "LC_ALL",
  "LINES",
  "NODE_ENV",
  "NODE_NO_WARNINGS",
  "NO_COLOR",
  "PYTHONDONTWRITEBYTECODE",
  "PYTHONUNBUFFERED",
  "RUST_BACKTRACE",
  "RUST_LOG",
  "TERM",
  "TZ",
]);

/** A plain value for a safe variable: no brackets, quotes or expansions that arithmetic could evaluate later. */
export const safeValue = /^[A-Za-z0-9_.,:/@%+=-]*$/;

/** Whether an assignment to `name` of `value` (undefined: not a plain word) changes nothing that matters. */
export function isSafeAssignment(name: string, value: string | undefined): boolean {
  return value !== undefined && (safeVariables.has(name) || name.startsWith("LC_")) && safeValue.test(value);
}

/** Builtins that assign the variables their operands name (`read`, `mapfile`…), with or without other arguments. */
const assigningBuiltins: ReadonlySet<string> = new Set(["read", "mapfile", "readarray", "let"]);
/** Builtins that assign variables when given arguments (`declare X=1`); alone they only list them. */
const declaringBuiltins: ReadonlySet<string> = new Set(["declare", "typeset", "export", "local", "readonly"]);

/**
 * The variable a command assigns that is not a safe one (`printf -v PATH …`, `read X`, `declare X=1`, `let x=1`),
 * or undefined: such a command is an assignment, which can change what later commands run.
 */
export function findUnsafeAssignment(words: readonly BashWord[]): string | undefined {
  const name = words[0]?.value;
  if (name === undefined) return undefined;
  if (assigningBuiltins.has(name)) return `${name} assigns variables`;
  if (declaringBuiltins.has(name)) return words.length > 1 ? `${name} assigns variables` : undefined;
  if (name !== "printf" || words.length < 2) return undefined;
  // printf's only option is -v, and it comes first: the first operand decides.
  const option = words[1]?.value;
  if (option === undefined) return "printf's options are only known when it runs";
  if (option === "--" || !option.startsWith("-v")) return undefined;
  const variable = option === "-v" ? words[2]?.value : option.slice(2);
  const safe = variable !== undefined && (safeVariables.has(variable) || /^LC_[A-Z_]+$/.test(variable));
  return safe ? undefined : `printf -v assigns ${variable ?? "a variable only known when it runs"}`;
}
