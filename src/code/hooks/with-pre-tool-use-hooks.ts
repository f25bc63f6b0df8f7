import type { CanUseTool, PermissionContext, PermissionDecision, ToolCall } from "../../engine.js";
import type { HookRunner, PreToolUseOutcome } from "./hook-runner.js";
import { askReason } from "./hooked-permission-check.js";

/** Settings of {@link withPreToolUseHooks}. */
export type PreToolUseHooksOptions = {
  /**
   * What becomes of a call a hook allowed and `inner` would ask about: Claude Code's hook `allow` skips the mode's
   * prompt but not an ask rule, which only the rules can tell apart (CodingAgent judges it as if an allow rule named
   * the tool: `hookAllowedJudge(permissions)`). Without it, `inner`'s ask stands.
   */
  judgeAllowed?:
    | ((call: Pick<ToolCall, "id" | "name" | "arguments">, context: PermissionContext) => PermissionDecision | Promise<PermissionDecision>)
    | undefined;
};

/**
 * A permission check that runs the PreToolUse hooks first, then `inner` (the agent's own rules, a prompt):
 * - a hook's `deny` stands, and the model reads its reason; `inner` is not asked;
 * - a hook's `ask` asks (the run is interrupted; the reason says what the hooks would rewrite, if anything);
 * - otherwise `inner` decides, on the call as the hooks rewrote it (`updatedInput`); where it would ask and a hook
 *   allowed, `options.judgeAllowed` decides instead (so a hook's allow skips the mode's prompt, never a deny rule).
 * Without `inner`, a hook's `allow` allows (a tool's `needsApproval` included, as a hook's approval skips Claude
 * Code's prompt), and no decision keeps the engine's default: `needsApproval` asks, anything else runs.
 * Rewritten arguments are validated again against the tool's schema before the tool runs. CodingAgent composes
 * more (PermissionRequest and PermissionDenied hooks, the person): see `createHookedPermissionCheck`.
 * @example new Agent(model, registry, { canUseTool: withPreToolUseHooks(hooks, permissionRules) })
 */
export function withPreToolUseHooks(hooks: HookRunner, inner?: CanUseTool, options: PreToolUseHooksOptions = {}): CanUseTool {
  return async (call, context) => {
    const outcome = await hooks.runPreToolUseHooks(call, context.signal);
    if (outcome.decision === "deny") return { behavior: "deny", message: outcome.reason ?? "A PreToolUse hook blocked this call." };
    if (outcome.decision === "ask") return { behavior: "ask", reason: askReason(outcome.reason, outcome) };
    if (inner) {
      const judged = outcome.rewritten ? { ...call, arguments: outcome.arguments } : call;
      let decision = await inner(judged, context);
      if (decision?.behavior === "ask" && outcome.decision === "allow" && options.judgeAllowed)
        decision = await options.judgeAllowed(judged, context);
      return decision?.behavior === "allow" && decision.arguments === undefined && outcome.rewritten
        ? { behavior: "allow", arguments: outcome.arguments }
        : decision;
    }
    if (outcome.decision !== "allow" && context.needsApproval) return { behavior: "ask", reason: askReason(undefined, outcome) };
    return allow(outcome);
  };
}

function allow(outcome: PreToolUseOutcome): PermissionDecision {
  return outcome.rewritten ? { behavior: "allow", arguments: outcome.arguments } : { behavior: "allow" };
}
