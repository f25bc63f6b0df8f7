// The engine's public API: everything but the patterns. Patterns are built from this file alone, and
// src/index.ts re-exports it beside them, so nothing depends on the order of export lines.
export { Agent, type AgentOptions, type RunOptions } from "./core/agent.js";
export { conversationOf, type RunError } from "./core/conversation-so-far.js";
export type { AgentStream } from "./core/event-stream.js";
export type { AgentEvent, AgentEventListener, LoopEvent, PendingDecision, ToolOutcome, ToolResult } from "./core/events.js";
export { isOutputFeedback } from "./core/final-answer.js";
export { runLoop } from "./core/loop.js";
export type {
  ConcludeTurn,
  LoopOptions,
  LoopOutcome,
  PrepareTurn,
  RunAnswer,
  ToolExecuteOptions,
  ToolExecutor,
  TurnContext,
  TurnEnd,
  TurnPlan,
} from "./core/loop-types.js";
export { OpenTurn, toolResultMessage } from "./core/open-turn.js";
export { finalAnswerName, type OutputSchema } from "./core/output-contract.js";
export { combineSignals, RunContext, type RunContextOptions, type RunParent } from "./core/run-context.js";
export { type ApprovalDecision, type ApprovalDecisions, checkDecisions, closeUnansweredCalls } from "./core/run-state.js";
export { formatAction, StepRecorder, type StepRecorderOptions } from "./core/step-recorder.js";
export type {
  ContentPart,
  ImageMediaType,
  JsonSchema,
  Message,
  Model,
  ModelCallOptions,
  ModelResponse,
  ModelStreamEvent,
  PendingToolCall,
  ReasoningPart,
  ResponseFormat,
  RunResult,
  RunStatus,
  Step,
  StepKind,
  StopReason,
  ToolCall,
  ToolChoice,
  ToolSchema,
  Usage,
} from "./core/types.js";
export { addUsage, emptyUsage } from "./core/usage.js";
export { AbortError, MinagentError, OutputValidationError, ToolError, UsageError } from "./errors.js";
export { imageMediaTypeOf, maxImageBytes, maxImagesPerResult } from "./media-type.js";
export { FakeModel, type FakeModelOptions, type FakeModelRequest, type FakeModelScriptItem } from "./models/fake-model.js";
export { ProviderError, type ProviderErrorDetails, type ProviderErrorKind } from "./models/provider-error.js";
export {
  describeApiKeyVariables,
  findApiKey,
  type ModelProvider,
  type ModelSpec,
  modelSpecSyntax,
  parseModelSpec,
  type ResolveModelOptions,
  resolveModel,
} from "./models/resolve-model.js";
export {
  filterWebSearchResults,
  searchesWeb,
  type WebSearchModel,
  type WebSearchOptions,
  type WebSearchOutcome,
  type WebSearchResult,
} from "./models/web-search.js";
export { type RetryEvent, type RetryOptions, withRetry } from "./models/with-retry.js";
export type { CanUseTool, PermissionContext, PermissionDecision } from "./tools/permission.js";
export {
  defineTool,
  isReadOnlyCall,
  isToolOutput,
  type StandardToolSchema,
  type Tool,
  type ToolArguments,
  type ToolContext,
  type ToolOutput,
  type ToolParameters,
  toolOutput,
} from "./tools/tool.js";
export { ToolRegistry, type ToolRegistryOptions } from "./tools/tool-registry.js";

// For minagent/mcp and minagent/dbos, which import the engine through this file only (checkDecisions above is theirs too).
export { checkToolParameters } from "./tools/tool-schema.js";
export { createSecretScrubber, type ScrubOptions, type SecretScrubber } from "./trace/scrub-secrets.js";
