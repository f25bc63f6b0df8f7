// The public API: the engine (src/engine.ts) and the reasoning patterns built on it.
export * from "./engine.js";
export { PlanAndSolveAgent, type PlanAndSolveOptions, planToolName } from "./patterns/plan-and-solve.js";
export { type PlanDecision, type PlanMode, type PlanModeOptions, planMode } from "./patterns/plan-mode.js";
export { ReActAgent } from "./patterns/react.js";
export {
  type Evaluation,
  type LlmJudgeOptions,
  llmJudge,
  ReflexionAgent,
  type ReflexionOptions,
  type ReflexionResult,
} from "./patterns/reflexion.js";
