import { UsageError } from "../../errors.js";
import type { PermissionMode } from "../permissions/modes.js";
import { FrontMatterError, type FrontMatterValue, parseFrontMatter } from "./parse-front-matter.js";
import {
  type FieldProblems,
  readColor,
  readHooks,
  readMaxTurns,
  readMcpServers,
  readPermissionMode,
  readToolEntries,
  warnOfOtherKeys,
} from "./read-definition-fields.js";

/** A kind of subagent the Agent tool can start (`subagent_type`): built in, or a Markdown file's. */
export type SubagentDefinition = {
  /** What the model calls it by (`subagent_type`): letters, digits, `_` and `-`. */
  name: string;
  /** When to use it: the parent model reads this in the Agent tool's description. */
  description: string;
  /**
   * The tools it may use, by name (`mcp__github__*` or `mcp__github` for all of a server's); absent: every tool
   * subagents may have (the Agent tool included, below the depth limit).
   */
  tools?: readonly string[] | undefined;
  /** Tools taken away from those it would have (Claude Code's `disallowedTools`), after `tools`. */
  disallowedTools?: readonly string[] | undefined;
  /** The types its own Agent tool may start (`Agent(explorer, tester)` among its tools); absent: every type. */
  agentTypes?: readonly string[] | undefined;
  /**
   * Its model: Claude Code's aliases `sonnet`, `opus`, `haiku`, a Claude model id (`claude-sonnet-4-5`), both mapped
   * to the session's provider (`subagentModelSpec`), or a model string for the host's `resolveModel`
   * (`anthropic:claude-haiku-4-5`); absent or `inherit`: the parent's model.
   */
  model?: string | undefined;
  /**
   * The permission mode its calls are judged in. It can only narrow the session's: `plan` denies what may change
   * things, `dontAsk` denies what would be asked; `default`, `acceptEdits` and `bypassPermissions` never loosen the
   * session's mode, which then applies (README, "permissionMode").
   */
  permissionMode?: PermissionMode | undefined;
  /**
   * Hooks that run while it runs, beside the session's, in Claude Code's settings shape:
   * `{ PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "./check.sh" }] }] }`. Its `Stop` hooks
   * run when it is about to answer (Claude Code's SubagentStop).
   */
  hooks?: Readonly<Record<string, unknown>> | undefined;
  /** Names of the session's MCP servers whose tools it gets, beside its `tools`. */
  mcpServers?: readonly string[] | undefined;
  /** Its colour where a terminal names it (Claude Code's `color`: blue, green…). */
  color?: string | undefined;
  /** Model calls it may make (Claude Code's `maxTurns`); the Agent tool's `maxSteps` limit still caps it. */
  maxTurns?: number | undefined;
  /**
   * Only reads (minagent's addition to the format): its Bash runs read-only commands only, a tool that is not read-only
   * may not be among its `tools`, and subagents it starts are read-only ones. Such a subagent runs concurrently with
   * other read-only calls.
   */
  readOnly?: boolean | undefined;
  /** Its system prompt (a file's body). */
  prompt: string;
  /** Where it is defined: `built-in`, or the file's path. */
  source: string;
};

/** Settings of {@link parseSubagentDefinition}. */
export type ParseSubagentOptions = {
  /**
   * Told of what is left out while the rest of the file applies, one line each, naming the file and the key: an
   * unknown key, a Claude Code key minagent does not support, a tool entry that is not a name. Without it, they are
   * not said.
   */
  onWarning?: ((message: string) => void) | undefined;
};

/** Claude Code's read-only explorer: searches and reads, and reports what it found. */
export const exploreSubagent: SubagentDefinition = Object.freeze({
  name: "Explore",
  description:
    "A fast, read-only agent for exploring the code: it finds files, searches contents, reads and reports what it found, and cannot change anything. Use it for questions that take several searches (where is X handled? how does Y work? which files use Z?); say how thorough it should be.",
  tools: Object.freeze(["Read", "Grep", "Glob", "Bash"]),
  readOnly: true,
  prompt: [
    "You explore a code repository to answer a question, with read-only tools: Glob finds files by name, Grep searches their contents, Read reads them, and Bash runs read-only shell commands only (ls, cat, head, wc…). You cannot change anything.",
    "Search broadly first, then read what matters. Be as thorough as the request asks, and no more.",
    "Your final message is the only thing the agent that asked will see: answer its question directly, with the file paths (and line numbers) that support the answer, and say what you could not find.",
  ].join("\n"),
  source: "built-in",
});

/** Claude Code's general-purpose subagent: the parent's tools, for a self-contained task. */
export const generalPurposeSubagent: SubagentDefinition = Object.freeze({
  name: "general-purpose",
  description:
    "An agent with the same tools as you, for a self-contained task of several steps (research across many files, or a change) whose details you do not need in your own context. It starts with nothing but your prompt: give it everything it needs to know.",
  prompt: [
    "You are a subagent: another agent gave you a task. Do it completely with your tools, then stop.",
    "Your final message is the only thing that agent will see: report what you did or found, with the file paths that matter, what you changed, and anything left undone or uncertain.",
  ].join("\n"),
  source: "built-in",
});

/** The built-in subagents: general-purpose (the default type) and Explore. */
export const builtInSubagents: readonly SubagentDefinition[] = Object.freeze([generalPurposeSubagent, exploreSubagent]);

const namePattern = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

/**
 * Reads a subagent's Markdown file, as Claude Code writes them: front matter with `name` and `description`
 * (required), `tools` and `disallowedTools` (a comma-separated string or a list), `model`, `permissionMode`,
 * `maxTurns`, `hooks`, `mcpServers`, `color`, and minagent's `readOnly` (`true` or `false`); then the system prompt
 * as the body. What only leaves something out (an unknown key, Claude Code's `skills`, a tool entry with a
 * specifier) is told to `onWarning`; what would make the subagent do more than its file says throws a UsageError
 * naming `source` (the file) and, when it can, the line.
 */
export function parseSubagentDefinition(text: string, source: string, options: ParseSubagentOptions = {}): SubagentDefinition {
  const where = (line: number | undefined) => `Subagent definition ${source}${line === undefined ? "" : `, line ${line}`}`;
  let document: ReturnType<typeof parseFrontMatter>;
  try {
    document = parseFrontMatter(text);
  } catch (error) {
    if (error instanceof FrontMatterError) throw new UsageError(`${where(error.line)}: ${error.message}. Fix the file or remove it.`);
    throw error;
  }
  const { data, values, lines, body } = document;
  const problems: FieldProblems = {
    fail: (problem, key) => new UsageError(`${where(key === undefined ? undefined : lines[key])}: ${problem}. Fix the file or remove it.`),
    warn: (problem, key) => options.onWarning?.(`${where(key === undefined ? undefined : lines[key])}: ${problem}.`),
  };
  const textOf = (key: string): string | undefined => {
    const value: FrontMatterValue | undefined = data[key];
    if (value !== undefined && typeof value !== "string")
      throw problems.fail(`\`${key}\` must be text, not a ${Array.isArray(value) ? "list" : "map"}`, key);
    return value === undefined || value.trim() === "" ? undefined : value.trim();
  };
  const name = textOf("name");
  if (name === undefined) throw problems.fail("the front matter has no `name`");
  if (!namePattern.test(name)) throw problems.fail(`the name "${name}" is invalid: use letters, digits, "_" and "-" (at most 64)`, "name");
  const description = textOf("description");
  if (description === undefined)
    throw problems.fail("the front matter has no `description` (the parent model reads it to choose a subagent)");
  if (body === "") throw problems.fail("the body, the subagent's system prompt, is empty");
  const readOnly = textOf("readOnly");
  if (readOnly !== undefined && readOnly !== "true" && readOnly !== "false")
    throw problems.fail(`\`readOnly\` must be true or false, not "${readOnly}"`, "readOnly");
  const model = textOf("model");
  const tools = readToolEntries(data.tools, "tools", problems);
  const disallowed = readToolEntries(data.disallowedTools, "disallowedTools", problems);
  const permissionMode = readPermissionMode(data.permissionMode, problems);
  const hooks = readHooks(values.hooks, problems);
  const mcpServers = readMcpServers(data.mcpServers, problems);
  const maxTurns = readMaxTurns(data.maxTurns, problems);
  const color = readColor(data.color, problems);
  warnOfOtherKeys(Object.keys(data), problems);
  return {
    name,
    description,
    ...(tools !== undefined && { tools: tools.names }),
    ...(tools?.agentTypes !== undefined && { agentTypes: tools.agentTypes }),
    ...(disallowed !== undefined && disallowed.names.length > 0 && { disallowedTools: disallowed.names }),
    ...(model !== undefined && model !== "inherit" && { model }),
    ...(permissionMode !== undefined && { permissionMode }),
    ...(hooks !== undefined && { hooks }),
    ...(mcpServers !== undefined && { mcpServers }),
    ...(maxTurns !== undefined && { maxTurns }),
    ...(color !== undefined && { color }),
    ...(readOnly === "true" && { readOnly: true }),
    prompt: body,
    source,
  };
}
