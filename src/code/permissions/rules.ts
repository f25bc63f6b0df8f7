import { domainPatternMatches, hostOfUrl, portOfUrl } from "../web/domain-pattern.js";
import { type FileAccess, ruleCoversAccess, ruleCoversTool } from "./file-tools.js";
import type { PermissionRule, RuleList } from "./parse-rule.js";

/** The three lists of rules, with the lookups a decision makes. */
export type RuleSet = {
  readonly allow: readonly PermissionRule[];
  readonly ask: readonly PermissionRule[];
  readonly deny: readonly PermissionRule[];
  /**
   * The first rule of `list` that matches a call of `tool`: `Tool`, `Tool(*)`, `mcp__server`, and with `args`, a rule
   * naming the call's argument (`Agent(Explore)` for `{ subagent_type: "Explore" }`) or its URL's host
   * (`WebFetch(domain:example.com)` for `{ url: "https://example.com/…" }`).
   */
  findToolRule(list: RuleList, tool: string, args?: Readonly<Record<string, unknown>>): PermissionRule | undefined;
  /**
   * The first rule of `list` for the file tool `tool` that matches `path` (absolute): `Read(…)` for readers,
   * `Edit(…)` for editors, or the tool's own. For a search (`directory`), a pattern matches the directory or
   * what is inside it (`Read(./secrets/**)` matches a Grep of `secrets`).
   */
  findPathRule(list: RuleList, tool: string, path: string, directory: boolean): PermissionRule | undefined;
  /**
   * The first rule of `list` that covers a shell command reading or writing `path`: `Read(…)`, or `Edit(…)`/`Write(…)`.
   * An operand may be a directory the command reads or changes as a whole (`grep -r x secrets`, `rm -rf secrets`): then
   * (`directory`) a pattern matches what is inside it too.
   */
  findAccessRule(list: RuleList, access: FileAccess, path: string, directory: boolean): PermissionRule | undefined;
  /** The first `Bash` rule of `list` matching any of `forms` (a command's normalized texts). */
  findCommandRule(list: RuleList, forms: readonly string[]): PermissionRule | undefined;
};

/** Builds the lookups over already parsed rules. */
export function createRuleSet(rules: {
  allow: readonly PermissionRule[];
  ask: readonly PermissionRule[];
  deny: readonly PermissionRule[];
}): RuleSet {
  const lists = { allow: rules.allow, ask: rules.ask, deny: rules.deny };
  return {
    ...lists,
    findToolRule: (list, tool, args) =>
      lists[list].find((rule) => {
        const target = rule.target;
        if (target.kind === "tool") return ruleCoversTool(rule.tool, tool);
        if (target.kind === "argument") return ruleCoversTool(rule.tool, tool) && argumentMatches(args?.[target.field], target);
        if (target.kind === "domain") return ruleCoversTool(rule.tool, tool) && urlMatches(args?.url, target.domain);
        return target.kind === "server" && tool.startsWith(target.prefix);
      }),
    findPathRule: (list, tool, path, directory) =>
      lists[list].find((rule) => {
        if (!ruleCoversTool(rule.tool, tool)) return false;
        if (rule.target.kind === "tool") return true;
        if (rule.target.kind !== "path") return false;
        return directory ? rule.target.pattern.matchesDirectory(path) : rule.target.pattern.matches(path);
      }),
    findAccessRule: (list, access, path, directory) =>
      lists[list].find((rule) => {
        if (!ruleCoversAccess(rule.tool, access)) return false;
        if (rule.target.kind === "tool") return true;
        if (rule.target.kind !== "path") return false;
        return directory ? rule.target.pattern.matchesDirectory(path) : rule.target.pattern.matches(path);
      }),
    findCommandRule: (list, forms) =>
      lists[list].find((rule) => {
        if (rule.tool !== "Bash") return false;
        if (rule.target.kind === "tool") return true;
        const target = rule.target;
        return target.kind === "command" && forms.some((form) => target.matches(form));
      }),
  };
}

/** Whether a call's naming argument is the rule's value (or, for a rule ending in `*`, that value and its arguments). */
function argumentMatches(given: unknown, target: { value: string; withArguments?: boolean | undefined }): boolean {
  if (typeof given !== "string") return false;
  const value = given.trim();
  if (value === target.value) return true;
  return target.withArguments === true && (value.startsWith(`${target.value} `) || value.startsWith(`${target.value}:`));
}

/** Whether a call's `url` argument is a URL whose host (and port) the rule's domain covers. */
function urlMatches(given: unknown, domain: string): boolean {
  if (typeof given !== "string" || !URL.canParse(given)) return false;
  const url = new URL(given);
  return domainPatternMatches(domain, hostOfUrl(url), portOfUrl(url));
}
