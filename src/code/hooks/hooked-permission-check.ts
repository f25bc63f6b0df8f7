import type { ApprovalDecision, CanUseTool, PermissionContext, PermissionDecision, ToolCall } from "../../engine.js";
import { toText } from "../../text.js";
import type { CodePermissions } from "../permissions/index.js";
import type { HookRunner, PreToolUseOutcome } from "./hook-runner.js";

type Call = Pick<ToolCall, "id" | "name" | "arguments">;

/** What {@link createHookedPermissionCheck} composes. */
export type HookedPermissionCheckOptions = {
  hooks: HookRunner;
  /** The rules and the mode: `canUseTool`, and `explain` to judge a call a hook allowed and to tell a mode's denial from a rule's. */
  permissions: Pick<CodePermissions, "canUseTool" | "explain" | "settings">;
  /** Asks a person (the CLI's prompt, or `-p`'s denial); without it an ask interrupts the run. */
  askPerson?:
    | ((request: { toolCall: Call; reason: string | undefined; signal: AbortSignal }) => ApprovalDecision | Promise<ApprovalDecision>)
    | undefined;
  /** No person answers `askPerson` (`-p`): its denials are the mode's, and PermissionDenied hooks hear of them. */
  unattended?: boolean | undefined;
};

/**
 * CodingAgent's permission check: Claude Code's order of hooks and rules around one call.
 * 1. PreToolUse hooks: a deny stands; their rewrite is what is judged and run.
 * 2. The permission rules and the mode. A deny stands (a deny by the mode — dontAsk, plan mode — is heard by
 *    PermissionDenied hooks, which may tell the model it may retry). A hook's `ask` asks even what the rules allow.
 *    A hook's `allow` skips the mode's prompt: the call is judged as if an allow rule named its tool, so deny and ask
 *    rules, plan mode, and what no rule allows unasked (a command leaving the sandbox, a file with other hard links)
 *    still hold.
 * 3. An ask goes to the PermissionRequest hooks, whose allow or deny answers instead of the person (an allow is
 *    judged again as in 2, with its `updatedInput`); then to the person (`askPerson`); without one, the run is
 *    interrupted. With nobody to ask (`unattended`), the person's denial is the mode's, and PermissionDenied hooks hear of it.
 */
export function createHookedPermissionCheck(options: HookedPermissionCheckOptions): CanUseTool {
  const { hooks, permissions, askPerson, unattended } = options;
  const judgeAllowed = hookAllowedJudge(permissions);

  const denied = async (call: Call, context: PermissionContext, message: string, byRule: boolean): Promise<PermissionDecision> => {
    if (byRule || !hooks.hasHooks("PermissionDenied", call.name)) return { behavior: "deny", message };
    const { retry } = await hooks.runPermissionDeniedHooks(
      { toolName: call.name, toolInput: call.arguments, toolUseId: call.id, reason: message },
      context.signal,
    );
    return { behavior: "deny", message: retry ? `${message}\nA PermissionDenied hook says you may retry this call.` : message };
  };
  const deniedByRule = async (call: Call, context: PermissionContext) =>
    (await permissions.explain(call, context.tool, { needsApproval: context.needsApproval })).rule?.list === "deny";

  const ask = async (call: Call, reason: string | undefined, context: PermissionContext, pre: PreToolUseOutcome) => {
    const request = hooks.hasHooks("PermissionRequest", call.name)
      ? await hooks.runPermissionRequestHooks({ toolName: call.name, toolInput: call.arguments }, context.signal)
      : {};
    if (request.decision === "deny")
      return { behavior: "deny" as const, message: request.reason ?? "A PermissionRequest hook denied this call." };
    let target = call;
    if (request.decision === "allow") {
      target = request.updatedInput ? { ...call, arguments: request.updatedInput } : call;
      const rejudged = await judgeAllowed(target, context);
      if (rejudged.behavior === "deny") return rejudged;
      if (rejudged.behavior === "allow") return withArguments(rejudged, target, call, pre);
      reason = rejudged.reason ?? reason;
    }
    if (!askPerson) return { behavior: "ask" as const, reason: askReason(reason, pre) };
    const answer = await askPerson({ toolCall: target, reason, signal: context.signal });
    if (answer.behavior === "deny" && unattended) return denied(target, context, answer.message, false);
    return answer.behavior === "allow" ? withArguments(answer, target, call, pre) : answer;
  };

  return async (call, context) => {
    const pre = await hooks.runPreToolUseHooks(call, context.signal);
    if (pre.decision === "deny") return { behavior: "deny", message: pre.reason ?? "A PreToolUse hook blocked this call." };
    const current = pre.rewritten ? { ...call, arguments: pre.arguments } : call;
    let decision = await permissions.canUseTool(current, context);
    if (decision.behavior === "ask" && pre.decision === "allow") decision = await judgeAllowed(current, context);
    if (decision.behavior === "deny")
      return denied(
        current,
        context,
        decision.message,
        hooks.hasHooks("PermissionDenied", call.name) && (await deniedByRule(current, context)),
      );
    if (pre.decision === "ask") return ask(current, pre.reason, context, pre);
    if (decision.behavior === "ask") return ask(current, decision.reason, context, pre);
    return withArguments(decision, current, call, pre);
  };
}

/**
 * How a call a hook allowed is judged: as if an allow rule named its tool (beside the allow rules in force), so
 * that deny and ask rules, plan mode and the checks no rule overrides still decide, and `needsApproval` does not.
 */
export function hookAllowedJudge(permissions: Pick<CodePermissions, "explain" | "settings">) {
  return async (call: Call, context: Pick<PermissionContext, "tool" | "needsApproval">): Promise<PermissionDecision> => {
    const allowRules = [...permissions.settings.rules.allow.map((rule) => rule.text), call.name];
    return (await permissions.explain(call, context.tool, { needsApproval: context.needsApproval, allowRules })).decision;
  };
}

/** An allow runs the arguments that were judged: the hooks' rewrite (or a PermissionRequest hook's), not the model's. */
function withArguments(
  decision: Extract<PermissionDecision, { behavior: "allow" }>,
  target: Call,
  call: Call,
  pre: PreToolUseOutcome,
): PermissionDecision {
  if (decision.arguments !== undefined) return decision;
  if (target !== call) return { behavior: "allow", arguments: target.arguments };
  return pre.rewritten ? { behavior: "allow", arguments: pre.arguments } : decision;
}

/**
 * An "ask" cannot carry arguments: the person decides on the call as the model made it. When hooks rewrote it,
 * the reason shows the rewrite, so the person can allow it with those arguments (`{ behavior: "allow", arguments }`).
 */
export function askReason(reason: string | undefined, outcome: Pick<PreToolUseOutcome, "rewritten" | "arguments">): string | undefined {
  if (!outcome.rewritten) return reason;
  const proposal = `The PreToolUse hooks would run it with these arguments: ${toText(outcome.arguments).slice(0, 2_000)}`;
  return reason === undefined ? proposal : `${reason}\n${proposal}`;
}
