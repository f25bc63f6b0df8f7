import {
  Agent,
  type AgentOptions,
  type ConcludeTurn,
  isOutputFeedback,
  type Message,
  type Model,
  type RunAnswer,
  StepRecorder,
  type Tool,
  type ToolCall,
  type ToolExecutor,
  ToolRegistry,
  type TurnContext,
  type TurnEnd,
  type TurnPlan,
} from "../engine.js";

/** Settings of a PlanAndSolveAgent: an Agent's, plus how planning is asked for. */
export type PlanAndSolveOptions<Output = unknown> = AgentOptions<Output> & {
  /** Times the agent may write a new plan when solving does not converge (default 1). */
  maxReplans?: number | undefined;
  /** The instruction that asks for a plan; it follows the task in the first user message. */
  planPrompt?: string | undefined;
  /** What the model reads once its plan is recorded: the instruction that starts the solving phase. */
  solvePrompt?: string | undefined;
  /** The instruction that asks for a revised plan after a plan's steps ran out without an answer. */
  replanPrompt?: string | undefined;
};

/** The tool the model writes its plan with. */
export const planToolName = "write_plan";

const defaultPlanPrompt =
  "Before doing anything, write a short plan of the steps needed to complete this task with the write_plan tool. Do not carry it out yet.";
const defaultSolvePrompt = "Plan recorded. Now carry out the plan step by step, using the tools, then give the final answer.";
const defaultReplanPrompt =
  "The plan did not lead to an answer within the allowed steps. Write a revised plan with write_plan that takes into account what you have learned. Do not carry it out yet.";

/**
 * Plan-and-Solve (book 5.2), as one run of the plain loop: its first turn offers the model only a `write_plan`
 * tool and makes it call it (`toolChoice`), so the plan arrives as a list, is recorded as `plan` steps, and stays
 * in the context; the following turns solve with the registry's tools. If `maxSteps` solving turns pass without
 * an answer, the model writes a revised plan (`maxReplans`, default 1) and goes on. One run, one trace, one result.
 * A model that cannot be made to call the tool (Anthropic with extended thinking, OpenAI-compatible servers that
 * ignore `tool_choice`) may write its plan as text instead: the text of a planning turn is taken as the plan (each
 * line a `plan` step), the solve prompt follows it as a user message, and the run goes on to solve.
 */
export class PlanAndSolveAgent<Output = unknown> extends Agent<Output> {
  readonly #settings: PlanSettings;

  constructor(model: Model, registry: ToolExecutor, options: PlanAndSolveOptions<Output> = {}) {
    const {
      maxReplans = 1,
      planPrompt = defaultPlanPrompt,
      solvePrompt = defaultSolvePrompt,
      replanPrompt = defaultReplanPrompt,
    } = options;
    const solveSteps = options.maxSteps ?? 8;
    const settings: PlanSettings = { solveSteps, maxReplans, planPrompt, solvePrompt, replanPrompt };
    const tools = withPlanTool(registry, createPlanTool(solvePrompt));
    // The caller's own prepareTurn (compaction, say) shapes the turn first; the plan's turns are decided on its result.
    const theirs = options.prepareTurn;
    const prepareTurn = async (context: TurnContext): Promise<TurnPlan> => {
      const given = (await theirs?.(context)) ?? undefined;
      const plan = planTurn(given?.messages ?? context.messages, settings);
      if (plan === "solve") return { ...given, tools: given?.tools ?? solvingTools(registry) };
      if (plan === "plan") return { ...given, ...planningTurn };
      return { ...given, ...planningTurn, messages: plan.messages };
    };
    // Each plan has its planning turn and its solving turns.
    super(model, tools, { ...options, maxSteps: (solveSteps + 1) * (maxReplans + 1), prepareTurn });
    this.#settings = settings;
  }

  protected override createRecorder(): StepRecorder {
    const settings = this.#settings;
    return new StepRecorder({
      describeCall: recordPlan,
      describeAnswer: (message, sent) => (planTurn(sent, settings) === "plan" ? recordTextPlan(message.content) : undefined),
    });
  }

  /** The text of a planning turn is the plan (the model wrote it instead of calling the tool): solving follows. */
  protected override concludeTurn(end: TurnEnd, conclude: ConcludeTurn): RunAnswer | undefined | Promise<RunAnswer | undefined> {
    const { message, messages } = end;
    const wrotePlan = !message.toolCalls?.length && message.content.trim() !== "";
    if (!wrotePlan || planTurn(messages.slice(0, -1), this.#settings) !== "plan") return conclude(end);
    messages.push({ role: "user", content: this.#settings.solvePrompt });
    return undefined;
  }
}

const planningTurn: TurnPlan = { tools: [planToolName], toolChoice: { name: planToolName } };

type PlanSettings = { solveSteps: number; maxReplans: number; planPrompt: string; solvePrompt: string; replanPrompt: string };

/**
 * What this turn is, read from the conversation alone (so concurrent and resumed runs need no state of their
 * own): the first planning turn (the plan prompt joins the task), a replanning turn (the replan prompt is
 * appended once the last plan's solving turns ran out, while replans remain), or a solving turn. A plan is a
 * write_plan call, or a planning turn's text followed by the solve prompt; the task is the last user message
 * that is none of the pattern's prompts nor the engine's reply to a wrong answer (an output schema's).
 */
function planTurn(messages: readonly Message[], settings: PlanSettings): "plan" | "solve" | { messages: Message[] } {
  const isUser = (message: Message) => message.role === "user";
  const isPrompt = (message: Message | undefined, prompt: string) => message?.role === "user" && message.content === prompt;
  const task = messages.findLastIndex(
    (message) =>
      isUser(message) &&
      !isPrompt(message, settings.replanPrompt) &&
      !isPrompt(message, settings.solvePrompt) &&
      !isOutputFeedback(message),
  );
  const isPlan = (message: Message, index: number) =>
    message.toolCalls?.some(isPlanCall) ||
    (message.role === "assistant" && !message.toolCalls?.length && isPrompt(messages[index + 1], settings.solvePrompt));
  const plans = messages.flatMap((message, index) => (index > task && isPlan(message, index) ? [index] : []));
  const lastPlan = plans.at(-1);
  if (lastPlan === undefined) {
    // The model was asked and has not planned yet (a model that cannot be made to call a tool): ask once, not again.
    if (messages[task]?.content.endsWith(settings.planPrompt)) return "plan";
    const asked = messages.slice();
    const taskMessage = asked[task];
    if (taskMessage) asked[task] = { ...taskMessage, content: `${taskMessage.content}\n\n${settings.planPrompt}` };
    return { messages: asked };
  }
  // The replan prompt waits for its plan.
  if (messages.findLastIndex((message) => isPrompt(message, settings.replanPrompt)) > lastPlan) return "plan";
  const solvingTurns = messages.slice(lastPlan + 1).filter((message) => message.role === "assistant").length;
  if (solvingTurns < settings.solveSteps || plans.length > settings.maxReplans) return "solve";
  return { messages: [...messages, { role: "user", content: settings.replanPrompt }] };
}

function isPlanCall(call: ToolCall): boolean {
  return call.name === planToolName;
}

function createPlanTool(solvePrompt: string): Tool {
  return {
    name: planToolName,
    description: "Record your plan: the steps that will complete the task, in order, each a short sentence.",
    parameters: {
      type: "object",
      properties: { steps: { type: "array", items: { type: "string" }, minItems: 1, description: "The plan's steps, in order." } },
      required: ["steps"],
    },
    readOnly: true,
    execute: () => solvePrompt,
  };
}

/** The registry's tools and the plan tool, which only the pattern's own registry holds. */
function withPlanTool(registry: ToolExecutor, planTool: Tool): ToolExecutor {
  const own = new ToolRegistry().add(planTool);
  let cached: { from: unknown; schemas: ReturnType<ToolExecutor["schemas"]> } | undefined;
  return {
    schemas: () => {
      const theirs = registry.schemas();
      if (cached?.from !== theirs) cached = { from: theirs, schemas: [...own.schemas(), ...theirs] };
      return cached.schemas;
    },
    execute: (call, options) => (call.name === planToolName ? own : registry).execute(call, options),
    runsAlone: registry.runsAlone && ((call) => call.name !== planToolName && (registry.runsAlone?.(call) ?? false)),
  };
}

/** Solving turns offer every tool but the plan tool. */
function solvingTools(registry: ToolExecutor): string[] {
  return registry.schemas().map((schema) => schema.name);
}

/** A plan written as text: a `plan` step per line, list markers dropped (the whole text when it has no lines). */
function recordTextPlan(text: string): { kind: string; detail: string }[] {
  const lines = text
    .split("\n")
    .map((line) => line.replace(/^\s*(?:[-*•]|\d+[.)])\s+/, "").trim())
    .filter((line) => line !== "");
  return (lines.length > 0 ? lines : [text]).map((detail) => ({ kind: "plan", detail }));
}

/** A write_plan call is recorded as one `plan` step per plan item. */
function recordPlan(call: ToolCall): { kind: string; detail: string }[] | undefined {
  if (!isPlanCall(call)) return undefined;
  const steps = call.arguments.steps;
  return Array.isArray(steps) ? steps.map((step) => ({ kind: "plan", detail: String(step) })) : undefined;
}
