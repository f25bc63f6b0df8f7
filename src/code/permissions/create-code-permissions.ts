import { homedir } from "node:os";
import type { CanUseTool, PermissionDecision, Tool, ToolCall } from "../../engine.js";
import { UsageError } from "../../errors.js";
import type { PlanDecision, PlanMode } from "../../index.js";
import type { SettingsInput } from "../settings/load-settings.js";
import type { Workspace } from "../workspace.js";
import { analyzeBashCommand } from "./bash-commands.js";
import { type BashParser, loadBashParser } from "./bash-parser.js";
import { judgeBashCommand, type Sandboxing, shorten } from "./judge-bash.js";
import { judgeToolCall } from "./judge-call.js";
import { createModeState } from "./mode-state.js";
import { isPermissionMode, type PermissionMode, permissionModes } from "./modes.js";
import { parsePermissionRule, type RuleList } from "./parse-rule.js";
import { createRuleSet, type RuleSet } from "./rules.js";
import { type LoadedPermissionSettings, loadPermissionSettings, permissionSettingsFiles } from "./settings.js";
import type { Verdict } from "./verdict.js";
import { createWorkspaceScope, type WorkspaceScope } from "./workspace-scope.js";

/** Settings of {@link createCodePermissions}. */
export type CodePermissionsOptions = {
  /** The workspace the tools use: its root and added directories are where the modes work without rules. */
  workspace: Pick<Workspace, "root" | "directories">;
  /** The mode to start in; wins over every settings file's `defaultMode` (default: theirs, else `default`). */
  mode?: PermissionMode | undefined;
  /** Rules given in code, merged after the settings files' (like Claude Code's `--allowedTools`). */
  rules?: PermissionRuleLists | undefined;
  /**
   * The settings files, read already (`loadSettings`) or to read, least specific first (a missing one is skipped).
   * Default: `~/.minagent/settings.json`, `<root>/.minagent/settings.json`, `<root>/.minagent/settings.local.json`.
   * `[]` reads none.
   */
  settingsFiles?: SettingsInput | undefined;
  /** The home directory for `~/` in rules and the user's settings file (default: the user's). */
  home?: string | undefined;
  /**
   * Asks a person to approve a plan when the model calls ExitPlanMode (the CLI's y/N). Without it, ExitPlanMode in
   * plan mode is an "ask" decision: the run is interrupted with the plan, and resuming with allow approves it.
   */
  approvePlan?: ((plan: string) => PlanDecision | Promise<PlanDecision>) | undefined;
  /**
   * The Bash tool's current directory, absolute (a `cd` in one call moves it for the next): relative paths in
   * shell commands are taken from it. A call's own tool wins when it says where it is (a `BashTool`'s
   * `workingDirectory()`: each subagent has its own shell). Default: the workspace root.
   */
  bashDirectory?: (() => string) | undefined;
  /**
   * What becomes of a Bash call that asks to run outside the OS sandbox (its tool's `sandboxing(args)` says
   * `unconfined`: `dangerouslyDisableSandbox: true`). `ask` (the default): a person is always asked — in every mode,
   * bypassPermissions included, whatever allow rules say; deny rules still deny first, and dontAsk denies it.
   * `judge`: it is judged as a call without a sandbox is (rules and mode), for hosts that let such calls run
   * unattended (the CLI's `-p` with `allowUnsandboxedCommands: true`).
   */
  unsandboxedCalls?: "ask" | "judge" | undefined;
};

/**
 * What the permission check reads of the tool a Bash call goes to, when it has it (a `BashTool`): where its shell
 * is, and whether this call runs in the OS sandbox.
 */
type ShellTool = {
  workingDirectory?: () => string;
  sandboxing?: (args: Record<string, unknown>) => Sandboxing;
};

/** Rules as written, in their three lists: `{ allow: ["Bash(npm test)"], deny: ["Read(./.env)"] }`. */
export type PermissionRuleLists = {
  allow?: readonly string[] | undefined;
  ask?: readonly string[] | undefined;
  deny?: readonly string[] | undefined;
};

/** What-if questions {@link CodePermissions.explain} can answer. */
export type ExplainOptions = {
  /**
   * Judge with these allow rules in place of the ones in force (deny and ask rules, the mode and the directories
   * stay as they are): what a set of rules would decide before it is added, or what some rules allow on their own.
   */
  allowRules?: readonly string[] | undefined;
  /** Judge as if the tool's `needsApproval` held for these arguments: then only rules (or bypassPermissions) allow the call. */
  needsApproval?: boolean | undefined;
};

/** A call as {@link CodePermissions.explain} takes it. */
export type ExplainedCall = Pick<ToolCall, "name" | "arguments">;

/** Why a call would be allowed, asked or denied. */
export type PermissionExplanation = {
  /** What `canUseTool` returns for the call now. */
  decision: PermissionDecision;
  /** The mode it was decided in. */
  mode: PermissionMode;
  /** The rule that decided, if a rule did. */
  rule: { text: string; list: RuleList; source: string } | undefined;
  /** Why, in words a person reads. */
  reason: string;
  /** For Bash: every simple command the line holds, as written. */
  commands?: readonly string[] | undefined;
};

/** Claude Code's permission system over a workspace: a `canUseTool` for the Agent, and its mode. */
export type CodePermissions = {
  /** Pass it to the Agent (`new Agent(model, registry, { canUseTool })`). */
  readonly canUseTool: CanUseTool;
  /** The current mode; set it at run time (the CLI's shift-tab). The model's EnterPlanMode / ExitPlanMode move it too. */
  mode: PermissionMode;
  /** Plan mode's tools driving `mode` (`permissions.planMode.install(registry)` adds EnterPlanMode and ExitPlanMode). */
  readonly planMode: PlanMode;
  /** The merged rules and settings, with the file each rule came from. */
  readonly settings: LoadedPermissionSettings;
  /** The directories the modes work in: the workspace's, and the settings' `additionalDirectories`. */
  readonly directories: readonly string[];
  /**
   * The decision for `call` now, and why. Pass the tool when you have it (its `readOnly` counts). `options` asks
   * what would be decided with other allow rules, or if the tool asked for approval.
   */
  explain(call: ExplainedCall, tool?: Tool | undefined, options?: ExplainOptions | undefined): Promise<PermissionExplanation>;
  /**
   * Adds rules from now on, as if a settings file named `source` held them (a host's "don't ask again" rules:
   * `addRules({ allow: ["Bash(npm test)"] }, "this session")`). They are judged with the others by the same order
   * — a deny or ask rule anywhere still beats them — and listed in `settings.rules` with their source; a rule
   * already there from the same source is not added twice. The OS sandbox's walls are made from the rules when it
   * starts: rules added later are enforced by the permission check alone. Throws a UsageError naming `source` for
   * a malformed rule, and then adds none. With `settingsFile`, `source` is the path of a settings file the rules
   * were just written to (a person's "always allow", saved to settings.local.json): it is listed in
   * `settings.files` from then on, as a file read at the start is, and the rules are listed as its own.
   */
  addRules(rules: PermissionRuleLists, source: string, options?: { settingsFile?: boolean | undefined }): void;
  /** Whether a `Read(…)` deny rule covers `path` (for search tools, to leave such files out of their results). */
  isReadDenied(path: string): boolean;
};

/**
 * Builds Claude Code's permission system: rules from the settings files and from code (`Tool`, `Tool(specifier)`
 * in three lists; deny, then ask, then allow, then the mode decides), five modes, and shell commands split with
 * a real parser so that every part of a compound command must be allowed on its own. Throws a UsageError naming
 * the file and the rule for malformed settings.
 * @example
 * const permissions = await createCodePermissions({ workspace, rules: { allow: ["Bash(npm test)"] } });
 * const agent = new Agent(model, permissions.planMode.install(registry), { canUseTool: permissions.canUseTool });
 */
export async function createCodePermissions(options: CodePermissionsOptions): Promise<CodePermissions> {
  if (options.mode !== undefined && !isPermissionMode(options.mode)) throw invalidMode(options.mode, "options.mode");
  const unsandboxedCalls = options.unsandboxedCalls ?? "ask";
  if (unsandboxedCalls !== "ask" && unsandboxedCalls !== "judge")
    throw new UsageError(`options.unsandboxedCalls is ${shorten(JSON.stringify(unsandboxedCalls) ?? "")}; it must be "ask" or "judge".`);
  const home = options.home ?? homedir();
  const root = options.workspace.root;
  const files = options.settingsFiles ?? permissionSettingsFiles({ root, home });
  const bases = { root, home };
  const settings = await loadPermissionSettings(files, bases, options.rules);
  let rules = createRuleSet(settings.rules);
  const scope = createWorkspaceScope(root, [...options.workspace.directories, ...settings.additionalDirectories]);
  const state = createModeState(options.mode ?? settings.defaultMode ?? "default", options.approvePlan);
  let parser: BashParser | undefined;

  const explainNow = (
    call: ExplainedCall,
    tool: Tool | undefined,
    needsApproval: boolean,
    bash: BashParser | undefined,
    rules: RuleSet,
  ): PermissionExplanation => {
    const mode = state.mode;
    const args = call.arguments;
    let commands: string[] | undefined;
    let verdict: Verdict;
    if (call.name === "Bash" && bash) {
      const command = typeof args.command === "string" ? args.command : "";
      const analysis = analyzeBashCommand(bash, command);
      commands = analysis.commands.map((part) => part.text);
      const shell = tool as ShellTool | undefined;
      const directory = scope.resolve(shell?.workingDirectory?.() ?? options.bashDirectory?.() ?? root);
      const sandboxing = readSandboxing(shell, args, unsandboxedCalls);
      verdict = judgeBashCommand(analysis, { mode, rules, scope, directory, sandboxing });
    } else verdict = judgeToolCall(call.name, args, { mode, rules, scope, tool, plansNeedApproval: !options.approvePlan });
    return { ...conclude(verdict, mode, needsApproval), commands };
  };
  const explain = async (call: ExplainedCall, tool: Tool | undefined, needsApproval: boolean, ruleSet: RuleSet) => {
    if (call.name === "Bash") parser ??= await loadBashParser();
    return explainNow(call, tool, needsApproval, parser, ruleSet);
  };
  const withAllowRules = (allow: readonly string[]): RuleSet =>
    createRuleSet({ ...settings.rules, allow: allow.map((text) => parsePermissionRule(text, "allow", "explain options", bases)) });

  return {
    // Decided synchronously, except for the first Bash call, which waits for the shell parser to load.
    canUseTool: (call, { tool, needsApproval }) =>
      call.name === "Bash" && !parser
        ? explain(call, tool, needsApproval, rules).then((explanation) => explanation.decision)
        : explainNow(call, tool, needsApproval, parser, rules).decision,
    get mode() {
      return state.mode;
    },
    set mode(next: PermissionMode) {
      if (!isPermissionMode(next)) throw invalidMode(next, "mode");
      state.mode = next;
    },
    planMode: state.planMode,
    settings,
    directories: scope.directories,
    explain: (call, tool, what) =>
      explain(call, tool, what?.needsApproval === true, what?.allowRules ? withAllowRules(what.allowRules) : rules),
    addRules: (added, source, how) => {
      const parsed = ruleLists.flatMap((list) => (added[list] ?? []).map((text) => parsePermissionRule(text, list, source, bases)));
      for (const rule of parsed) {
        const list = settings.rules[rule.list];
        if (!list.some((held) => held.text === rule.text && held.source === source)) list.push(rule);
      }
      if (how?.settingsFile && !settings.files.includes(source)) settings.files.push(source);
      rules = createRuleSet(settings.rules);
    },
    isReadDenied: (path) => isReadDenied(rules, scope, path),
  };
}

const ruleLists: readonly RuleList[] = ["allow", "ask", "deny"];

/** The mode's last word on a verdict: dontAsk denies what it would ask, plan denies what would change things. */
function conclude(verdict: Verdict, mode: PermissionMode, needsApproval: boolean): Omit<PermissionExplanation, "commands"> {
  const rule = verdict.rule && { text: verdict.rule.text, list: verdict.rule.list, source: verdict.rule.source };
  if (verdict.behavior === "deny") return { decision: { behavior: "deny", message: verdict.message }, mode, rule, reason: verdict.message };
  if (verdict.behavior === "allow") {
    if (!(verdict.byMode && needsApproval && mode !== "bypassPermissions"))
      return { decision: { behavior: "allow" }, mode, rule, reason: verdict.reason };
    verdict = { behavior: "ask", reason: `${verdict.reason}, but the tool asks for approval of these arguments` };
  }
  if (mode === "plan" && verdict.changes) {
    const message = `Permission denied: ${verdict.reason}, which plan mode does not allow. Finish planning with read-only tools and call ExitPlanMode with your plan; once it is approved you can go ahead.`;
    return { decision: { behavior: "deny", message }, mode, rule, reason: message };
  }
  if (mode === "dontAsk") {
    const message = `Permission denied: ${verdict.reason}, and dontAsk mode denies whatever no allow rule allows.`;
    return { decision: { behavior: "deny", message }, mode, rule, reason: message };
  }
  return { decision: { behavior: "ask", reason: verdict.reason }, mode, rule, reason: verdict.reason };
}

/** Where the tool says this call runs; an unconfined call is judged as unsandboxed when the host says so. */
function readSandboxing(shell: ShellTool | undefined, args: Record<string, unknown>, unsandboxedCalls: "ask" | "judge"): Sandboxing {
  const sandboxing = shell?.sandboxing?.(args);
  if (sandboxing === "confined") return "confined";
  // Anything else a tool might say is no sandbox: judged as today, never auto-allowed.
  if (sandboxing === "unconfined") return unsandboxedCalls === "judge" ? "off" : "unconfined";
  return "off";
}

function isReadDenied(rules: RuleSet, scope: WorkspaceScope, path: string): boolean {
  return rules.findPathRule("deny", "Read", scope.resolve(path), false) !== undefined;
}

function invalidMode(mode: unknown, where: string): UsageError {
  return new UsageError(`${where} is ${shorten(JSON.stringify(mode) ?? String(mode))}; it must be one of ${permissionModes.join(", ")}.`);
}
