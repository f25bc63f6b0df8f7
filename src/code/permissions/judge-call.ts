import { statSync } from "node:fs";
import { isAbsolute, relative, resolve } from "node:path";
import { isReadOnlyCall, type Tool } from "../../engine.js";
import { fileToolNamed } from "./file-tools.js";
import type { PermissionMode } from "./modes.js";
import type { RuleSet } from "./rules.js";
import type { Verdict } from "./verdict.js";
import type { WorkspaceScope } from "./workspace-scope.js";

/** What a decision about a non-shell call needs besides the call. */
export type CallJudgement = {
  mode: PermissionMode;
  rules: RuleSet;
  scope: WorkspaceScope;
  /** The tool, when known: `readOnly` lets default mode run it. */
  tool: Tool | undefined;
  /** Whether ExitPlanMode needs the run's ask (no `approvePlan` was given). */
  plansNeedApproval: boolean;
};

/**
 * Judges a call of any tool but Bash: deny rules, then ask rules, then plan mode (nothing that changes files),
 * then allow rules, then the mode. File tools are judged on their path (`file_path`, `path`, `notebook_path`).
 */
export function judgeToolCall(name: string, args: Record<string, unknown>, judgement: CallJudgement): Verdict {
  const fileTool = fileToolNamed(name);
  if (fileTool) return judgeFileCall(name, args, judgement);
  const { mode, rules, tool } = judgement;
  const subject = `the tool \`${name}\``;
  const denied = rules.findToolRule("deny", name, args);
  if (denied)
    return {
      behavior: "deny",
      rule: denied,
      message: `Permission denied: ${subject} is forbidden by the deny rule \`${denied.text}\` (${denied.source}). Do not try to get around it; take another approach or ask the user.`,
    };
  const asked = rules.findToolRule("ask", name, args);
  if (asked) return { behavior: "ask", rule: asked, reason: `${subject} matches the ask rule \`${asked.text}\` (${asked.source})` };
  const allowed = rules.findToolRule("allow", name, args);
  if (name === "TodoWrite") return { behavior: "allow", reason: "TodoWrite only updates the agent's task list", byMode: true };
  if (name === "EnterPlanMode") {
    if (allowed || mode !== "dontAsk") return { behavior: "allow", reason: "EnterPlanMode changes nothing but the mode", rule: allowed };
    return { behavior: "ask", reason: "EnterPlanMode starts a plan that a person must approve" };
  }
  if (name === "ExitPlanMode") {
    if (mode !== "plan" || !judgement.plansNeedApproval || allowed)
      return { behavior: "allow", reason: "ExitPlanMode proposes the plan", rule: allowed };
    const plan = typeof args.plan === "string" ? args.plan : "";
    return { behavior: "ask", reason: `The agent proposes this plan and leaves plan mode if you approve it:\n\n${plan}` };
  }
  const readOnly = isReadOnlyCall(tool, args);
  // The Agent tool changes nothing itself: each call of its subagent is judged on its own, with these rules and this mode.
  if (name === "Agent" && (readOnly || mode !== "plan"))
    return { behavior: "allow", reason: "the Agent tool's subagent has each of its calls judged", rule: allowed, byMode: !allowed };
  if (mode === "plan" && !readOnly) return { behavior: "ask", reason: `${subject} can change things`, changes: true };
  if (allowed)
    return { behavior: "allow", rule: allowed, reason: `${subject} is allowed by the rule \`${allowed.text}\` (${allowed.source})` };
  if (mode === "bypassPermissions") return { behavior: "allow", reason: "bypassPermissions runs what no deny rule forbids", byMode: true };
  // WebFetch changes nothing here, but what its URL carries leaves the machine: as in Claude Code, a host no rule allows is asked.
  if (name === "WebFetch") return { behavior: "ask", reason: `${webFetchSubject(args)} is not allowed by any WebFetch(domain:…) rule` };
  // Likewise a search's query leaves the machine: Claude Code asks for WebSearch unless a rule allows it.
  if (name === "WebSearch")
    return { behavior: "ask", reason: `a web search for "${String(args.query)}" is not allowed by any WebSearch rule` };
  // An MCP server says for itself whether a tool is read-only: that is not enough to run it without a rule.
  if (mode !== "dontAsk" && readOnly && !name.startsWith("mcp__"))
    return { behavior: "allow", reason: `${subject} is read-only`, byMode: true };
  return { behavior: "ask", reason: `${subject} is not allowed by any rule`, changes: !readOnly };
}

/** "a WebFetch of `host`", or of the URL as written when it is not one. */
function webFetchSubject(args: Record<string, unknown>): string {
  const url = typeof args.url === "string" && URL.canParse(args.url) ? new URL(args.url) : undefined;
  return `a WebFetch of \`${url ? url.host : String(args.url)}\``;
}

function judgeFileCall(name: string, args: Record<string, unknown>, { mode, rules, scope }: CallJudgement): Verdict {
  const fileTool = fileToolNamed(name);
  if (!fileTool) throw new Error(`${name} is not a file tool`);
  const edits = fileTool.access === "edit";
  const written = args[fileTool.pathField] ?? (fileTool.searches ? "." : undefined);
  if (typeof written !== "string" || written === "")
    return { behavior: "ask", reason: `${name} was called without a path to judge`, changes: edits };
  const paths = [scope.resolve(written)];
  // Glob({ pattern: "../../etc/*" }) searches where its pattern leads, not only under `path`.
  if (name === "Glob" && typeof args.pattern === "string" && escapes(args.pattern))
    paths.push(resolve(paths[0] as string, staticPart(args.pattern)));
  // The Workspace follows symbolic links: a rule matching where one leads applies too (`notes.txt -> secrets/key`).
  // (A dangling link is judged as written; acceptEdits' on-disk check asks for it.)
  const subjectPath = paths[paths.length - 1] as string;
  for (const path of [...paths]) {
    const real = scope.followLinks(path);
    if (real !== undefined && !paths.includes(real)) paths.push(real);
  }
  const shown = (path: string) => {
    const inside = relative(scope.root, path);
    return inside === "" ? "." : inside.startsWith("..") || isAbsolute(inside) ? path : inside;
  };
  const subject = `${name} of \`${shown(subjectPath)}\``;
  for (const list of ["deny", "ask"] as const) {
    for (const path of paths) {
      const rule = rules.findPathRule(list, name, path, fileTool.searches);
      if (!rule) continue;
      if (list === "ask") return { behavior: "ask", rule, reason: `${subject} matches the ask rule \`${rule.text}\` (${rule.source})` };
      return {
        behavior: "deny",
        rule,
        message: `Permission denied: ${name} of \`${shown(path)}\` is forbidden by the deny rule \`${rule.text}\` (${rule.source}). Do not try to get around it; take another approach or ask the user.`,
      };
    }
  }
  if (mode === "plan" && edits) return { behavior: "ask", reason: `${subject} changes files`, changes: true };
  // A file with another hard link may be that file outside the workspace (`ln ~/.ssh/config notes`): like a symbolic
  // link leading out, no rule or mode but bypassPermissions decides it unasked.
  if (mode !== "bypassPermissions" && !fileTool.searches && paths.some(hasOtherLinks))
    return {
      behavior: "ask",
      reason: `${subject} is a file with more than one hard link; its other name may be outside the workspace`,
      changes: edits,
    };
  let byMode = false;
  for (const path of paths) {
    if (rules.findPathRule("allow", name, path, fileTool.searches)) continue;
    if (mode === "bypassPermissions") {
      byMode = true;
      continue;
    }
    const why = mode === "dontAsk" ? "is not allowed by any rule" : modeRefusal(path, edits, mode, scope);
    if (why !== undefined) return { behavior: "ask", reason: `${name} of \`${shown(path)}\` ${why}`, changes: edits };
    byMode = true;
  }
  return { behavior: "allow", reason: byMode ? `${subject} is allowed in ${mode} mode` : `${subject} is allowed by a rule`, byMode };
}

function hasOtherLinks(path: string): boolean {
  const stats = statSync(path, { throwIfNoEntry: false });
  return stats?.isFile() === true && stats.nlink > 1;
}

function modeRefusal(path: string, edits: boolean, mode: PermissionMode, scope: WorkspaceScope): string | undefined {
  if (!scope.contains(path)) return "is outside the workspace";
  if (!edits) return undefined;
  if (mode !== "acceptEdits") return `needs approval in ${mode} mode`;
  if (scope.isProtected(path)) return "is in a protected directory";
  if (!scope.containsOnDisk(path, true)) return "is in a protected directory or outside the workspace once symbolic links are followed";
  return undefined;
}

function escapes(pattern: string): boolean {
  return isAbsolute(pattern) || pattern.split(/[\\/]/).includes("..");
}

/** The directories a glob pattern starts with, before its first wildcard. */
function staticPart(pattern: string): string {
  const segments = pattern.split("/");
  const wild = segments.findIndex((segment) => /[*?[{]/.test(segment));
  return (wild === -1 ? segments.slice(0, -1) : segments.slice(0, wild)).join("/") || ".";
}
