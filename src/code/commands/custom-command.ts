import { UsageError } from "../../errors.js";
import { toOneLine } from "../../text.js";
import { type PathBases, parsePermissionRule, splitRuleList } from "../permissions/index.js";
import { FrontMatterError, parseFrontMatter } from "../subagents/parse-front-matter.js";

/** Where a custom command comes from: the project's folders, or the user's (Claude Code's "(project)" and "(user)"). */
export type CommandScope = "project" | "user";

/**
 * A custom slash command: a Markdown file of `.claude/commands/`, `.minagent/commands/` or the user's same folders,
 * whose body becomes the prompt when a person types `/name arguments`.
 */
export type CustomCommand = {
  /**
   * What follows the slash: the file's name without `.md`, after the folders it is in under `commands/`, joined by
   * `:` (`frontend/component.md` is `frontend:component`). A name without its folders (`/component`) finds it too
   * when no other command has that last part.
   */
  readonly name: string;
  /** The folders under `commands/`, joined by `:` (`frontend`); `""` for a file at the top. */
  readonly namespace: string;
  readonly scope: CommandScope;
  /** The file it was read from (absolute), or where a command given in code says it comes from. */
  readonly source: string;
  /** What it does, for `/help`: the front matter's `description`, else the body's first line. */
  readonly description: string;
  /** The arguments it expects, for `/help` and completion (`argument-hint: [file]`). */
  readonly argumentHint: string | undefined;
  /** Permission rules allowed while the command runs (`allowed-tools: Bash(git diff:*), Read`), checked to parse. */
  readonly allowedTools: readonly string[];
  /**
   * The front matter's `model`, if not `inherit`: the model the command's run is answered by (`haiku`, a Claude id or
   * `provider:model`, mapped to the session's provider as agent files' are), the session's model answering again after.
   */
  readonly model: string | undefined;
  /** Names for the arguments by position (`arguments: [issue, branch]` makes `$issue` the first). */
  readonly argumentNames: readonly string[];
  /** `disable-model-invocation: true` (minagent never lets the model start commands, so it changes nothing yet). */
  readonly disableModelInvocation: boolean;
  /** The prompt, with its placeholders (`$ARGUMENTS`, `$0`), `@file` references and `` !`shell` `` lines. */
  readonly body: string;
};

/** A command file read, and what in it was left out. */
export type ParsedCustomCommand = { command: CustomCommand; warnings: string[] };

/** Where a command file is and what it is called, for {@link parseCustomCommand}. */
export type CustomCommandLocation = {
  name: string;
  namespace?: string | undefined;
  scope: CommandScope;
  /** The file (for messages and the command's `source`). */
  source: string;
  /** Bases for the paths in `allowed-tools` rules (`Read(./docs/**)`, `~/`). */
  bases: PathBases;
};

/** Keys minagent acts on (after `allowed_tools` and `allowedTools` are read as `allowed-tools`, as Claude Code reads them). */
const usedKeys = new Set(["description", "argument-hint", "allowed-tools", "model", "arguments", "disable-model-invocation"]);
/** Keys of Claude Code's that change nothing here and need not: a skill's listing and packaging fields. */
const quietKeys = new Set(["name", "when-to-use", "version", "license", "compatibility", "metadata"]);
/** Claude Code's keys that minagent does not act on yet: the command runs without what they ask for. */
const unsupportedKeys: Readonly<Record<string, string>> = {
  context: "a forked context",
  agent: "a subagent to run in",
  hooks: "hooks of its own",
  effort: "an effort level",
  paths: "path-scoped activation",
  shell: "another shell than bash",
  "disallowed-tools": "tools to leave out",
  "user-invocable": "model-only invocation",
};

/**
 * Reads a command file: optional front matter (YAML between `---` lines) with `description`, `argument-hint`,
 * `allowed-tools` (a comma- or space-separated string, or a list), `model`, `arguments` and
 * `disable-model-invocation`, then the body. Front matter keys may be written kebab-case, snake_case or camelCase.
 * What cannot be used — an unknown key, a key minagent does not act on, a malformed `allowed-tools` rule — is a
 * warning naming the file and the key, and the rest of the file applies (`model` is judged against the session's
 * model when the agent is made: `CommandModels`). Throws a UsageError naming the file (and line) when the front
 * matter is not valid YAML, which makes the whole file unusable.
 */
export function parseCustomCommand(text: string, location: CustomCommandLocation): ParsedCustomCommand {
  const { source } = location;
  const slash = `/${location.name}`;
  const warnings: string[] = [];
  const warn = (key: string, problem: string) => warnings.push(`Custom command ${slash} (${source}): ${key}: ${problem}`);
  const { data, body } = readFrontMatter(text, source);
  const values = new Map<string, unknown>();
  for (const [written, value] of Object.entries(data)) {
    const key = normalizeKey(written);
    if (values.has(key))
      warn(written, `given twice (as "${[...Object.keys(data)].find((other) => normalizeKey(other) === key)}" too); the last one counts`);
    values.set(key, value);
    if (usedKeys.has(key) || quietKeys.has(key)) continue;
    const unsupported = unsupportedKeys[key];
    if (unsupported) warn(written, `minagent does not support ${unsupported} for commands yet; the command runs without it`);
    else warn(written, `an unknown front matter key, ignored (the keys used: ${[...usedKeys].join(", ")}); check its spelling`);
  }
  const textOf = (key: string): string | undefined => {
    const value = values.get(key);
    if (value === undefined) return undefined;
    if (typeof value === "string") return value.trim() === "" ? undefined : value.trim();
    if (Array.isArray(value) && value.every((item) => typeof item === "string")) return value.join(" ").trim() || undefined;
    warn(key, "must be text; ignored");
    return undefined;
  };
  // What `model` comes to depends on the session's model: CodingAgent maps it (CommandModels), and warns there.
  const model = textOf("model");
  const description = textOf("description") ?? firstLine(body);
  return {
    command: {
      name: location.name,
      namespace: location.namespace ?? "",
      scope: location.scope,
      source,
      description,
      argumentHint: textOf("argument-hint"),
      allowedTools: readAllowedTools(values.get("allowed-tools"), location, warn),
      model: model === "inherit" ? undefined : model,
      argumentNames: listOf(values.get("arguments"), "arguments", warn),
      disableModelInvocation: readBoolean(values.get("disable-model-invocation"), warn),
      body,
    },
    warnings,
  };
}

/** The front matter and body; a file without front matter is all body (commands need none). */
function readFrontMatter(text: string, source: string): { data: Record<string, unknown>; body: string } {
  const unmarked = text.replace(/^\uFEFF/, "");
  if (!/^---[ \t]*(?:\r?\n|$)/.test(unmarked)) return { data: {}, body: unmarked.trim() };
  try {
    return parseFrontMatter(quoteArgumentHint(unmarked));
  } catch (error) {
    if (!(error instanceof FrontMatterError)) throw error;
    throw new UsageError(
      `Custom command file ${source}${error.line === undefined ? "" : `, line ${error.line}`}: ${error.message} (skipped: fix its front matter to use it)`,
    );
  }
}

/**
 * Claude Code's own examples write `argument-hint: [pr-number] [priority]` unquoted, which is not YAML (a list
 * followed by more text), and `argument-hint: [message]`, which YAML reads as a list: the hint is text to show, so an
 * unquoted one is quoted before the YAML is read.
 */
function quoteArgumentHint(text: string): string {
  const end = text.search(/\r?\n(?:---|\.\.\.)[ \t]*(?:\r?\n|$)/);
  const head = end === -1 ? text : text.slice(0, end);
  const quoted = head.replace(
    /^(argument[-_]?hint|argumentHint)([ \t]*:[ \t]*)([^\s"'|>#].*?)[ \t]*$/im,
    (_, key: string, separator: string, value: string) => `${key}${separator}${JSON.stringify(value)}`,
  );
  return end === -1 ? quoted : quoted + text.slice(end);
}

/** `allowed_tools`, `allowedTools` and `Allowed-Tools` are `allowed-tools`; `when_to_use` is `when-to-use`. */
function normalizeKey(key: string): string {
  return key
    .trim()
    .replace(/([a-z0-9])([A-Z])/g, "$1-$2")
    .replace(/_/g, "-")
    .toLowerCase();
}

/** The body's first line that says something, without Markdown heading marks, for `/help`. */
function firstLine(body: string): string {
  const line = body
    .split(/\r?\n/)
    .map((text) => text.replace(/^#+\s*/, "").trim())
    .find((text) => text !== "");
  return line === undefined ? "" : toOneLine(line, 100);
}

function readAllowedTools(
  value: unknown,
  location: CustomCommandLocation,
  warn: (key: string, problem: string) => void,
): readonly string[] {
  const rules = listOf(value, "allowed-tools", warn, splitRuleList);
  const kept: string[] = [];
  for (const rule of rules) {
    try {
      parsePermissionRule(rule, "allow", location.source, location.bases);
      kept.push(rule);
    } catch (error) {
      warn("allowed-tools", `${(error as Error).message} This rule is left out; the command asks for what it would have allowed.`);
    }
  }
  return kept;
}

/** A list, or a string of items separated by commas or whitespace. */
function listOf(
  value: unknown,
  key: string,
  warn: (key: string, problem: string) => void,
  split: (text: string) => string[] = (text) => text.split(/[\s,]+/),
): string[] {
  if (value === undefined) return [];
  const items =
    typeof value === "string"
      ? split(value)
      : Array.isArray(value)
        ? value.flatMap((item) => (typeof item === "string" ? split(item) : []))
        : undefined;
  if (items === undefined) {
    warn(key, "must be text or a list of text; ignored");
    return [];
  }
  return items.map((item) => item.trim()).filter((item) => item !== "");
}

/** Claude Code's booleans: `true`, `yes`, `on`, `1` and their opposites, in any case. */
function readBoolean(value: unknown, warn: (key: string, problem: string) => void): boolean {
  if (value === undefined) return false;
  const text = typeof value === "string" ? value.trim().toLowerCase() : "";
  if (["true", "yes", "on", "1"].includes(text)) return true;
  if (["false", "no", "off", "0", ""].includes(text)) return false;
  warn("disable-model-invocation", `${JSON.stringify(value)} is not true or false; read as false`);
  return false;
}
