import type { CanUseTool, PermissionDecision } from "../../engine.js";
import { toText } from "../../text.js";
import type { HookRunner, PreToolUseOutcome } from "./hook-runner.js";

/**
 * A permission check that runs the PreToolUse hooks first, then `inner` (the agent's own rules, a prompt):
 * - a hook's `deny` stands, and the model reads its reason; `inner` is not asked;
 * - a hook's `ask` asks (the run is interrupted; the reason says what the hooks would rewrite, if anything);
 * - otherwise `inner` decides, on the call as the hooks rewrote it (`updatedInput`): a hook's `allow` never
 *   overrides `inner`, so hooks can only add refusals and rewrites to the rules of record.
 * Without `inner`, a hook's `allow` allows (a tool's `needsApproval` included, as a hook's approval skips Claude
 * Code's prompt), and no decision keeps the engine's default: `needsApproval` asks, anything else runs.
 * Rewritten arguments are validated again against the tool's schema before the tool runs.
 * @example new Agent(model, registry, { canUseTool: withPreToolUseHooks(hooks, permissionRules) })
 */
export function withPreToolUseHooks(hooks: HookRunner, inner?: CanUseTool): CanUseTool {
  return async (call, context) => {
    const outcome = await hooks.runPreToolUseHooks(call, context.signal);
    if (outcome.decision === "deny") return { behavior: "deny", message: outcome.reason ?? "A PreToolUse hook blocked this call." };
    if (outcome.decision === "ask") return { behavior: "ask", reason: askReason(outcome.reason, outcome) };
    if (inner) {
      const decision = await inner(outcome.rewritten ? { ...call, arguments: outcome.arguments } : call, context);
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

/**
 * An "ask" cannot carry arguments: the person decides on the call as the model made it. When hooks rewrote it,
 * the reason shows the rewrite, so the person can allow it with those arguments (`{ behavior: "allow", arguments }`).
 */
function askReason(reason: string | undefined, outcome: PreToolUseOutcome): string | undefined {
  if (!outcome.rewritten) return reason;
  const proposal = `The PreToolUse hooks would run it with these arguments: ${toText(outcome.arguments).slice(0, 2_000)}`;
  return reason === undefined ? proposal : `${reason}\n${proposal}`;
}
