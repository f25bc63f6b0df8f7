import { type CanUseTool, isReadOnlyCall, type Tool, type ToolRegistry } from "../engine.js";

const allow = Object.freeze({ behavior: "allow" as const });

/** A person's answer to a proposed plan: approve it, or reject it with feedback the model will read. */
export type PlanDecision = boolean | { approved: boolean; feedback?: string | undefined };

/** Settings of plan mode. */
export type PlanModeOptions = {
  /** Asked when the model calls ExitPlanMode; only an approved plan leaves plan mode. The CLI asks the person y/n. */
  approve: (plan: string) => PlanDecision | Promise<PlanDecision>;
  /** Start in plan mode instead of waiting for the model to call EnterPlanMode (default false). */
  startInPlanMode?: boolean | undefined;
};

/** Plan mode's tools, its permission check, and its state. */
export type PlanMode = {
  /** EnterPlanMode and ExitPlanMode. */
  readonly tools: readonly Tool[];
  /** Denies tools that are not read-only while planning; add it with `registry.addCheck`. */
  readonly check: CanUseTool;
  /** Whether the agent is planning now. */
  readonly active: boolean;
  /** The approved plans, in order. */
  readonly approvedPlans: readonly string[];
  /** Adds the tools and the check to `registry`; returns it. */
  install(registry: ToolRegistry): ToolRegistry;
};

/**
 * Claude Code's plan mode as two tools and a permission check (the `canUseTool` seam, on the registry); the engine
 * does not change. While planning, a call to a tool that is not `readOnly` is denied with an observation telling the model to
 * finish its plan; ExitPlanMode({ plan }) passes the plan to `approve`, and only an approved plan ends planning.
 * @example
 * const registry = planMode({ approve: (plan) => askPerson(plan), startInPlanMode: true }).install(new ToolRegistry().add(readFile).add(writeFile));
 */
export function planMode(options: PlanModeOptions): PlanMode {
  let active = options.startInPlanMode ?? false;
  const approvedPlans: string[] = [];
  const enter: Tool = {
    name: "EnterPlanMode",
    description:
      "Enter plan mode before a change that needs thought: explore with read-only tools, then propose a plan with ExitPlanMode. Tools that change things are blocked until the plan is approved.",
    compileOnFirstCall: true,
    parameters: { type: "object", properties: {} },
    readOnly: true,
    execute: () => {
      if (active) return "Already in plan mode.";
      active = true;
      return "Entered plan mode. Explore with read-only tools, then call ExitPlanMode with your plan.";
    },
  };
  const exit: Tool = {
    name: "ExitPlanMode",
    description:
      "Propose your plan to the user for approval. If approved, plan mode ends and you can carry it out; if not, revise it using the feedback.",
    compileOnFirstCall: true,
    parameters: {
      type: "object",
      properties: { plan: { type: "string", description: "The plan, as concise numbered steps." } },
      required: ["plan"],
    },
    readOnly: true,
    execute: async ({ plan }) => {
      if (!active) return "Not in plan mode: go ahead without approval.";
      const decision = await options.approve(plan as string);
      const { approved, feedback } = typeof decision === "boolean" ? { approved: decision, feedback: undefined } : decision;
      if (!approved)
        return `The user rejected the plan. Their feedback: ${feedback || "(none given)"}\nRevise the plan and call ExitPlanMode again.`;
      active = false;
      approvedPlans.push(plan as string);
      return "The user approved the plan. Plan mode is over: carry it out now.";
    },
  };
  const check: CanUseTool = (call, { tool }) =>
    active && !isReadOnlyCall(tool, call.arguments)
      ? {
          behavior: "deny",
          message: `"${call.name}" is not allowed in plan mode because it can change things. Finish planning with read-only tools and call ExitPlanMode with your plan; once it is approved you can use "${call.name}".`,
        }
      : allow;
  return {
    tools: [enter, exit],
    check,
    get active() {
      return active;
    },
    approvedPlans,
    install: (registry) => registry.add(enter).add(exit).addCheck(check),
  };
}
