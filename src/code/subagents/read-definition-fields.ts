// The keys of an agent file beyond name and description, each read as Claude Code reads it: a problem that would
// make the subagent do more than its file says (a misspelt permission mode, hooks that cannot run) is an error that
// skips the file; one that only leaves something out is a warning, and the rest of the file applies.
import { UsageError } from "../../errors.js";
import { HookRunner } from "../hooks/index.js";
import { isPermissionMode, type PermissionMode, permissionModes } from "../permissions/modes.js";
import { splitRuleList } from "../permissions/parse-rule.js";
import type { FrontMatterValue } from "./parse-front-matter.js";

/** Says a problem of one key: `fail` throws (the file is skipped), `warn` tells and goes on. */
export type FieldProblems = {
  fail: (problem: string, key?: string) => UsageError;
  warn: (problem: string, key?: string) => void;
};

/** The tools a `tools` (or `disallowedTools`) entry list names, and the subagent types `Agent(a, b)` allows. */
export type ToolEntries = { names: string[]; agentTypes: string[] | undefined };

/** Claude Code's name of the Agent tool before it was renamed (`Task`, `Task(type)`), still accepted. */
const agentAliases = new Set(["Agent", "Task"]);
const toolNamePattern = /^[A-Za-z0-9_-]{1,64}$/;
/** A whole MCP server in a tool list: `mcp__github__*` (as in permission rules) or `mcp__github`. */
const mcpServerPattern = /^mcp__[A-Za-z0-9_-]+?(?:__\*)?$/;
const serverNamePattern = /^[A-Za-z0-9_.-]{1,64}$/;

/**
 * `tools: Read, Grep, Agent(explorer, tester)` (commas outside parentheses) or a YAML list. `Task` is `Agent`, and
 * `Agent(…)` names the types its own Agent tool may start. Another entry with parentheses (`Bash(git *)`) is left
 * out with a warning: a subagent's tools are names, and permission rules limit what they do. Absent or empty
 * text: undefined (every tool); `[]`: none.
 */
export function readToolEntries(value: FrontMatterValue | undefined, key: string, problems: FieldProblems): ToolEntries | undefined {
  if (value === undefined || value === "") return undefined;
  if (!Array.isArray(value) && typeof value !== "string")
    throw problems.fail(`\`${key}\` must be a comma-separated list of tool names or a YAML list, not a map`, key);
  const entries = Array.isArray(value) ? value : splitRuleList(value);
  const names: string[] = [];
  let agentTypes: string[] | undefined;
  for (const item of entries) {
    if (typeof item !== "string") throw problems.fail(`\`${key}\` holds an entry that is not a tool name`, key);
    const entry = item.trim();
    if (entry === "") continue;
    const call = /^([A-Za-z0-9_-]+)\s*\((.*)\)$/s.exec(entry);
    if (call && agentAliases.has(call[1] as string)) {
      names.push("Agent");
      const types = (call[2] as string)
        .split(",")
        .map((type) => type.trim())
        .filter((type) => type !== "");
      agentTypes = [...(agentTypes ?? []), ...types];
    } else if (call || entry.includes("(")) {
      problems.warn(
        `the ${key} entry "${entry}" is left out: a subagent's tools are names (give "${call?.[1] ?? entry}" and limit what it may do with permission rules)`,
        key,
      );
    } else if (agentAliases.has(entry)) names.push("Agent");
    else if (toolNamePattern.test(entry) || mcpServerPattern.test(entry)) names.push(entry);
    else problems.warn(`the ${key} entry "${entry}" is not a tool name, and is left out`, key);
  }
  return { names: [...new Set(names)], agentTypes: agentTypes && [...new Set(agentTypes)] };
}

/**
 * `permissionMode`: one of the five modes. Claude Code's `auto` (its classifier) minagent does not have: a
 * warning, and the session's mode applies. Anything else is an error, since a misspelt `plan` would let the
 * subagent change what its author meant it only to read.
 */
export function readPermissionMode(value: FrontMatterValue | undefined, problems: FieldProblems): PermissionMode | undefined {
  if (value === undefined || value === "") return undefined;
  if (typeof value !== "string") throw problems.fail("`permissionMode` must be text", "permissionMode");
  const mode = value.trim();
  if (mode === "auto") {
    problems.warn(
      "`permissionMode: auto` (Claude Code's classifier) does not exist in minagent: the session's mode applies",
      "permissionMode",
    );
    return undefined;
  }
  if (!isPermissionMode(mode))
    throw problems.fail(`\`permissionMode\` is "${mode}"; it must be one of ${permissionModes.join(", ")}`, "permissionMode");
  return mode;
}

/** The hook events an agent file's `hooks` run while its subagent runs; `SubagentStop` is the same as `Stop` there. */
export const subagentHookEvents: readonly string[] = Object.freeze(["PreToolUse", "PostToolUse", "Stop"]);

/**
 * `hooks`, in Claude Code's settings shape (`PreToolUse: [{ matcher, hooks: [{ type: command, command }] }]`), typed
 * by YAML's core schema (`timeout: 30` is a number). An agent file's `Stop` (or `SubagentStop`) hooks run when its
 * subagent is about to answer. Other events never happen inside a subagent: a warning each. Hooks that cannot run
 * (a missing command, an unknown type, a bad matcher) are an error, checked by the HookRunner itself: a guard that
 * silently never runs is worse than no subagent.
 */
export function readHooks(value: unknown, problems: FieldProblems): Record<string, unknown> | undefined {
  if (value === undefined || value === null || value === "") return undefined;
  if (typeof value !== "object" || Array.isArray(value))
    throw problems.fail("`hooks` must be a map of hook events (PreToolUse, PostToolUse, Stop) to lists of matchers", "hooks");
  const hooks: Record<string, unknown> = {};
  for (const [event, groups] of Object.entries(value)) {
    const name = event === "SubagentStop" ? "Stop" : event;
    if (!subagentHookEvents.includes(name)) {
      problems.warn(
        `\`hooks.${event}\` never runs inside a subagent, and is ignored (an agent file runs PreToolUse, PostToolUse and Stop)`,
        "hooks",
      );
      continue;
    }
    hooks[name] = [...(Array.isArray(hooks[name]) ? (hooks[name] as unknown[]) : []), ...(Array.isArray(groups) ? groups : [groups])];
  }
  if (Object.keys(hooks).length === 0) return undefined;
  try {
    new HookRunner({ sessionId: "agent-file-check", cwd: process.cwd(), settings: { hooks } });
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    throw problems.fail(`its hooks cannot run: ${error.message.replaceAll("settings[0].hooks", "hooks").replace(/\.$/, "")}`, "hooks");
  }
  return hooks;
}

/**
 * `mcpServers`: names of the session's MCP servers (a YAML list or a comma list), whose tools the subagent gets.
 * An inline server definition (a map) is a warning: minagent starts servers from `.mcp.json` only.
 */
export function readMcpServers(value: FrontMatterValue | undefined, problems: FieldProblems): string[] | undefined {
  if (value === undefined || value === "") return undefined;
  const items = typeof value === "string" ? value.split(",") : Array.isArray(value) ? value : [value];
  const names: string[] = [];
  for (const item of items) {
    if (typeof item !== "string") {
      const inline = Object.keys(item as object).join(", ");
      problems.warn(
        `the inline MCP server definition${inline ? ` "${inline}"` : ""} in \`mcpServers\` is not supported by minagent and is ignored: configure the server in .mcp.json and name it here`,
        "mcpServers",
      );
      continue;
    }
    const name = item.trim();
    if (name === "") continue;
    if (serverNamePattern.test(name)) names.push(name);
    else problems.warn(`\`mcpServers\` names "${name}", which is not an MCP server name; it is ignored`, "mcpServers");
  }
  return names.length === 0 ? undefined : [...new Set(names)];
}

/** `maxTurns`: a positive whole number of model calls; anything else is a warning, and the session's limit applies. */
export function readMaxTurns(value: FrontMatterValue | undefined, problems: FieldProblems): number | undefined {
  if (value === undefined || value === "") return undefined;
  const turns = typeof value === "string" && /^\d+$/.test(value.trim()) ? Number(value.trim()) : Number.NaN;
  if (Number.isSafeInteger(turns) && turns > 0) return turns;
  problems.warn("`maxTurns` must be a positive whole number; it is ignored", "maxTurns");
  return undefined;
}

/** `color`: a colour name for the terminal (Claude Code's `/agents` offers red, blue, green, yellow, purple, orange, pink, cyan). */
export function readColor(value: FrontMatterValue | undefined, problems: FieldProblems): string | undefined {
  if (value === undefined || value === "") return undefined;
  if (typeof value === "string" && /^[A-Za-z-]{1,32}$/.test(value.trim())) return value.trim().toLowerCase();
  problems.warn("`color` must be a colour name such as blue; it is ignored", "color");
  return undefined;
}

/** The keys of Claude Code's agent files that minagent reads (and `readOnly`, its own). */
export const agentFileKeys: readonly string[] = Object.freeze([
  "name",
  "description",
  "tools",
  "disallowedTools",
  "model",
  "permissionMode",
  "maxTurns",
  "hooks",
  "mcpServers",
  "color",
  "readOnly",
]);

/** Keys of Claude Code's agent files that minagent does not act on. */
const unsupportedClaudeKeys = new Set(["skills", "memory", "background", "isolation", "effort", "initialPrompt"]);

/** One warning for each key that is not read: Claude Code's that minagent lacks, and unknown ones (a typo, say). */
export function warnOfOtherKeys(keys: readonly string[], problems: FieldProblems): void {
  for (const key of keys) {
    if (agentFileKeys.includes(key)) continue;
    if (unsupportedClaudeKeys.has(key)) problems.warn(`\`${key}\` (a Claude Code key) is not supported by minagent, and is ignored`, key);
    else problems.warn(`unknown key \`${key}\` is ignored (agent files take ${agentFileKeys.join(", ")})`, key);
  }
}
