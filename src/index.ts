export { Agent, type AgentOptions, type RunOptions } from "./core/agent.js";
export type { AgentStream } from "./core/event-stream.js";
export type { AgentEvent, AgentEventListener, LoopEvent, ToolResult } from "./core/events.js";
export { runLoop } from "./core/loop.js";
export type { LoopOptions, LoopOutcome, ToolExecutor } from "./core/loop-types.js";
export { formatAction, StepRecorder, type StepRecorderOptions } from "./core/step-recorder.js";
export type {
  JsonSchema,
  Message,
  Model,
  ModelCallOptions,
  ModelResponse,
  ModelStreamEvent,
  ReasoningPart,
  RunResult,
  Step,
  StepKind,
  StopReason,
  ToolCall,
  ToolSchema,
  Usage,
} from "./core/types.js";
export { addUsage, emptyUsage } from "./core/usage.js";
export { AbortError, MinagentError, ToolError, UsageError } from "./errors.js";
export { FakeModel, type FakeModelRequest, type FakeModelScriptItem } from "./models/fake-model.js";
export { ProviderError, type ProviderErrorDetails } from "./models/provider-error.js";
export { type ModelSpec, modelSpecSyntax, parseModelSpec, type ResolveModelOptions, resolveModel } from "./models/resolve-model.js";
export { type RetryEvent, type RetryOptions, withRetry } from "./models/with-retry.js";
// Patterns import the engine from this file (its public API); ReActAgent extends Agent, so core/ must come first.
export { PlanAndSolveAgent, type PlanAndSolveOptions, parsePlan } from "./patterns/plan-and-solve.js";
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
export {
  defineTool,
  type StandardToolSchema,
  type Tool,
  type ToolArguments,
  type ToolContext,
  type ToolParameters,
} from "./tools/tool.js";
export {
  type PermissionCheck,
  type ToolCallOptions,
  ToolRegistry,
  type ToolRegistryOptions,
} from "./tools/tool-registry.js";
