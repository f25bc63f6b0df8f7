import {
  Agent,
  type AgentOptions,
  type Model,
  type RunOptions,
  type RunResult,
  type Step,
  type ToolExecutor,
  ToolRegistry,
} from "../engine.js";
import { continueRun, joinRuns, type RunPart } from "./run-parts.js";

/** Settings of a PlanAndSolveAgent: an Agent's, plus how planning is asked for. */
export type PlanAndSolveOptions = AgentOptions & {
  /** Times the agent may write a new plan when solving does not converge (default 1). */
  maxReplans?: number;
  /** The instruction that asks for a plan; it follows the task in the first user message. */
  planPrompt?: string;
  /** The instruction that starts the solving phase, after the plan. */
  solvePrompt?: string;
  /** The instruction that asks for a revised plan after a failed attempt. */
  replanPrompt?: string;
};

const defaultPlanPrompt =
  "Before doing anything, write a short numbered plan (1., 2., …) of the steps needed to complete this task. Do not carry it out yet.";
const defaultSolvePrompt = "Now carry out the plan step by step, using the tools, then give the final answer.";
const defaultReplanPrompt =
  "The plan did not lead to an answer within the allowed steps. Write a revised numbered plan that takes into account what you have learned. Do not carry it out yet.";

/**
 * Plan-and-Solve (book 5.2): one model call writes a numbered plan (no tools are offered), each item is
 * recorded as a `plan` step; then the same loop solves with tools, the plan in context. If solving does not
 * converge, the model may replan (`maxReplans`, default 1) and try again.
 */
export class PlanAndSolveAgent {
  readonly #planner: Agent;
  readonly #solver: Agent;
  readonly #options: PlanAndSolveOptions;

  constructor(model: Model, registry: ToolExecutor, options: PlanAndSolveOptions = {}) {
    this.#options = options;
    this.#planner = new Agent(model, new ToolRegistry(), { ...options, maxSteps: 1 });
    this.#solver = new Agent(model, registry, options);
  }

  /** Plans, then solves; the result holds the whole conversation and every step. */
  async run(input: string, options: RunOptions = {}): Promise<RunResult> {
    const { planPrompt = defaultPlanPrompt, solvePrompt = defaultSolvePrompt, replanPrompt = defaultReplanPrompt } = this.#options;
    const parts: RunPart[] = [recordPlan(await continueRun(this.#planner, `${input}\n\n${planPrompt}`, [], options))];
    for (let replans = 0; ; replans++) {
      const solved = await continueRun(this.#solver, solvePrompt, parts, options);
      parts.push(solved);
      if (solved.result.final !== "" || replans >= (this.#options.maxReplans ?? 1)) break;
      parts.push(recordPlan(await continueRun(this.#planner, replanPrompt, parts, options)));
    }
    return joinRuns(parts);
  }
}

/** Replaces a planning call's `final` step with one `plan` step per plan item. */
function recordPlan({ result, historyLength }: RunPart): RunPart {
  const steps: Step[] = parsePlan(result.final).map((item) => ({ index: 0, kind: "plan", detail: item }));
  return { result: { ...result, steps, final: "" }, historyLength };
}

/** The items of a numbered (or bulleted) plan; the whole text as one item when it has no list. */
export function parsePlan(text: string): string[] {
  const items = text
    .split("\n")
    .map((line) => /^\s*(?:\d+[.)]|[-*•])\s+(.+)$/.exec(line)?.[1]?.trim())
    .filter((item): item is string => item !== undefined && item !== "");
  return items.length > 0 ? items : [text.trim()].filter(Boolean);
}
