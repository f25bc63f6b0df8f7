import type { PrepareTurn, TurnContext, TurnPlan } from "../../engine.js";

/**
 * One `prepareTurn` made of several, run in order: each sees the conversation as the ones before it left it, and
 * its `tools` and `toolChoice`, when it gives them, replace theirs. Put the compactor after what adds to the
 * conversation (project memory), so that it measures what is sent.
 * @example new Agent(model, registry, { prepareTurn: chainPrepareTurns(options.prepareTurn, compactor) })
 */
export function chainPrepareTurns(...steps: readonly (PrepareTurn | undefined)[]): PrepareTurn {
  const present = steps.filter((step) => step !== undefined);
  return async (context: TurnContext) => {
    let plan: TurnPlan | undefined;
    for (const step of present) {
      const next = await step(plan?.messages ? { ...context, messages: plan.messages } : context);
      if (next) plan = { ...plan, ...definedFields(next) };
    }
    return plan;
  };
}

function definedFields(plan: TurnPlan): TurnPlan {
  return Object.fromEntries(Object.entries(plan).filter(([, value]) => value !== undefined)) as TurnPlan;
}
