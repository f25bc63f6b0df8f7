import { resolve } from "node:path";
import { analyzeBashCommand } from "../permissions/bash-commands.js";
import { loadBashParser } from "../permissions/bash-parser.js";
import { fileToolNamed } from "../permissions/file-tools.js";
import { type PermissionRule, parsePermissionRule } from "../permissions/parse-rule.js";
import type { PathBases } from "../permissions/path-pattern.js";
import { createRuleSet, type RuleSet } from "../permissions/rules.js";

/** A hook's `if`, compiled: whether a tool call is one the hook runs for. */
export type HookCondition = {
  /** The rule as written. */
  readonly text: string;
  matches(call: { toolName: string; toolInput: Record<string, unknown> }): boolean | Promise<boolean>;
};

/**
 * Compiles a hook's `if` — one permission rule in Claude Code's syntax — with the permission module's parser, so
 * that `if` and the permission rules read a rule the same way. Throws the parser's UsageError for a malformed rule.
 */
export function compileHookCondition(text: string, source: string, bases: PathBases): HookCondition {
  const rule = parsePermissionRule(text, "allow", source, bases);
  const rules = createRuleSet({ allow: [rule], ask: [], deny: [] });
  return {
    text: rule.text,
    matches: ({ toolName, toolInput }) =>
      toolName === "Bash" && rule.tool === "Bash" ? bashMatches(rule, rules, toolInput) : callMatches(rules, toolName, toolInput, bases),
  };
}

function callMatches(rules: RuleSet, toolName: string, args: Record<string, unknown>, bases: PathBases): boolean {
  const fileTool = fileToolNamed(toolName);
  if (!fileTool) return rules.findToolRule("allow", toolName, args) !== undefined;
  const written = args[fileTool.pathField] ?? (fileTool.searches ? "." : undefined);
  // A call without a path a rule could match: only a rule naming the whole tool covers it.
  if (typeof written !== "string" || written === "") return rules.findToolRule("allow", toolName, args) !== undefined;
  return rules.findPathRule("allow", toolName, resolve(bases.root, written), fileTool.searches) !== undefined;
}

/**
 * A Bash rule matches a command line when it matches the line, or any of its simple commands (lists, pipelines,
 * `$(…)` and backticks included) with leading `VAR=value` assignments taken off, as Claude Code's `if` does. A line
 * the parser cannot read runs the hook anyway: `if` only saves starting a hook, it guards nothing.
 */
async function bashMatches(rule: PermissionRule, rules: RuleSet, args: Record<string, unknown>): Promise<boolean> {
  if (rule.target.kind === "tool") return true;
  const command = typeof args.command === "string" ? args.command : "";
  // The permission module's parser, loaded once per process; if it cannot load, the hook runs.
  const parser = await loadBashParser().catch(() => undefined);
  if (!parser) return true;
  const analysis = analyzeBashCommand(parser, command);
  if (analysis.unjudgeable !== undefined) return true;
  if (rules.findCommandRule("allow", [analysis.text]) !== undefined) return true;
  return analysis.commands.some(
    (part) => part.unjudgeable !== undefined || rules.findCommandRule("allow", [part.written, part.text, part.unquoted]) !== undefined,
  );
}
