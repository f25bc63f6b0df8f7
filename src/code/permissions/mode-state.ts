import { type CanUseTool, isReadOnlyCall, type PermissionDecision, type Tool } from "../../engine.js";
import { type PlanDecision, type PlanMode, planMode } from "../../index.js";
import type { PermissionMode } from "./modes.js";

/** The permission mode, changeable at run time, and plan mode's tools driving it. */
export type ModeState = {
  mode: PermissionMode;
  readonly planMode: PlanMode;
};

const allow: PermissionDecision = Object.freeze({ behavior: "allow" });

/**
 * The permission mode is the one source of truth; plan mode's tools (`planMode()`'s EnterPlanMode and
 * ExitPlanMode, wrapped) are how the model moves it. EnterPlanMode switches the mode to `plan` and remembers the
 * mode before; an approved ExitPlanMode switches back to it. Setting the mode to `plan` (a person's shift-tab)
 * is the same as the model entering; setting another mode leaves plan mode at once, and a later ExitPlanMode just
 * says so. `approvePlan` asks a person in process (the CLI's y/N); without it, the approval is the run's ask
 * decision on ExitPlanMode (resume with allow to approve, deny with feedback to reject).
 */
export function createModeState(
  initial: PermissionMode,
  approvePlan: ((plan: string) => PlanDecision | Promise<PlanDecision>) | undefined,
): ModeState {
  let mode = initial;
  let before: PermissionMode = initial === "plan" ? "default" : initial;
  const approvedPlans: string[] = [];
  const inner = planMode({
    approve: async (plan) => {
      if (mode !== "plan") return true; // the person has already left plan mode
      const decision = approvePlan ? await approvePlan(plan) : true;
      if (typeof decision === "boolean" ? decision : decision.approved) {
        mode = before;
        approvedPlans.push(plan);
      }
      return decision;
    },
  });
  const [enter, exit] = inner.tools as [Tool, Tool];
  const enterPlanMode: Tool = {
    ...enter,
    execute: (args, context) => {
      if (mode === "plan") return "Already in plan mode.";
      before = mode;
      mode = "plan";
      // planMode's own state may still be on from a plan a person left with shift-tab: enter it afresh.
      return inner.active
        ? "Entered plan mode. Explore with read-only tools, then call ExitPlanMode with your plan."
        : enter.execute(args, context);
    },
  };
  const exitPlanMode: Tool = {
    ...exit,
    execute: async (args, context) => {
      if (mode !== "plan") return "Not in plan mode: go ahead without approval.";
      if (!inner.active) await enter.execute({}, context); // the mode was set to plan from outside
      return exit.execute(args, context);
    },
  };
  const check: CanUseTool = (call, { tool }) =>
    mode === "plan" && !isReadOnlyCall(tool, call.arguments)
      ? {
          behavior: "deny",
          message: `"${call.name}" is not allowed in plan mode because it can change things. Finish planning and call ExitPlanMode with your plan.`,
        }
      : allow;
  const state: ModeState = {
    get mode() {
      return mode;
    },
    set mode(next: PermissionMode) {
      if (next === "plan" && mode !== "plan") before = mode;
      mode = next;
    },
    planMode: {
      tools: [enterPlanMode, exitPlanMode],
      check,
      get active() {
        return mode === "plan";
      },
      approvedPlans,
      // Without the check: canUseTool enforces plan mode itself, and lets read-only shell commands run.
      install: (registry) => registry.add(enterPlanMode).add(exitPlanMode),
    },
  };
  return state;
}
