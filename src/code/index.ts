// `minagent/code`: Claude Code's capabilities on minagent's loop — the coding tools over a workspace, the
// permission system, hooks, and the CodingAgent that composes them. Explicit named exports only.
export { type ApprovalRequest, CodingAgent, type CodingAgentOptions, type CodingRunOptions, type CodingRunResult } from "./coding-agent.js";
export {
  type Compactor,
  type CompactorOptions,
  ContextMeter,
  chainPrepareTurns,
  charactersPerToken,
  contextWindowOf,
  createCompactor,
  defaultContextWindow,
  describePermissions,
  describeTodos,
  estimateMessageTokens,
  estimateTextTokens,
  isCompactionMessage,
  knownContextWindows,
  type PinnedState,
} from "./compaction/index.js";
export {
  type CommandHook,
  type FunctionHook,
  type HookConfiguration,
  type HookEventName,
  type HookFunction,
  type HookInputs,
  type HookMatcher,
  type HookResults,
  HookRunner,
  type HookRunnerOptions,
  type HookRunReport,
  type HookSettings,
  hookEventNames,
  withPostToolUseHooks,
  withPreToolUseHooks,
} from "./hooks/index.js";
export {
  formatProjectMemory,
  listMemoryFiles,
  loadProjectMemory,
  type MemoryFile,
  type MemoryFileSummary,
  memoryFileNames,
  type ProjectMemory,
  type ProjectMemoryOptions,
} from "./memory/index.js";
export {
  type CodePermissions,
  type CodePermissionsOptions,
  createCodePermissions,
  type ExplainedCall,
  isPermissionMode,
  nextPermissionMode,
  type PermissionExplanation,
  type PermissionMode,
  type PermissionSettings,
  parsePermissionRule,
  permissionModes,
  permissionSettingsFiles,
} from "./permissions/index.js";
export {
  createSandbox,
  type NetworkDecision,
  type NetworkRequest,
  type ReadDenial,
  type ResolvedSandboxSettings,
  readSandboxSettings,
  type Sandbox,
  type SandboxOptions,
  type SandboxSettings,
  type SandboxStatus,
  startNetworkProxy,
} from "./sandbox/index.js";
export {
  checkSessionId,
  createSessionScrubber,
  defaultDataDirectory,
  interruptedRunResult,
  JsonLinesSessionStore,
  type JsonLinesSessionStoreOptions,
  type LoadedSession,
  type OpenedSession,
  type OpenSessionOptions,
  openSession,
  readSession,
  type SessionEntry,
  SessionFileError,
  type SessionHeader,
  SessionInUseError,
  type SessionLine,
  type SessionLockHolder,
  SessionRecorder,
  type SessionRecorderOptions,
  type SessionStatus,
  type SessionStore,
  type SessionSummary,
  sessionFormatVersion,
} from "./sessions/index.js";
export {
  type AgentTool,
  type AgentToolOptions,
  builtInSubagents,
  createAgentTool,
  defaultSubagentLimits,
  exploreSubagent,
  generalPurposeSubagent,
  isReadOnlyBashCommand,
  loadSubagentDefinitions,
  mergeSubagentDefinitions,
  parseSubagentDefinition,
  type SubagentBudget,
  type SubagentDefinition,
  type SubagentLimits,
  type SubagentSummary,
  subagentSystemPrompt,
} from "./subagents/index.js";
export { codingSystemPrompt } from "./system-prompt.js";
export { type BashTool, type BashToolOptions, createBashTool } from "./tools/bash.js";
export { createEditTool } from "./tools/edit.js";
export { createGlobTool, type GlobToolOptions } from "./tools/glob.js";
export { createGrepTool, type GrepToolOptions } from "./tools/grep.js";
export { createReadTool, type ReadToolOptions } from "./tools/read.js";
export {
  createTodoStore,
  createTodoWriteTool,
  type Todo,
  type TodoStatus,
  type TodoStore,
  type TodoStoreOptions,
} from "./tools/todo-write.js";
export { createWriteTool } from "./tools/write.js";
export { type FileVersion, Workspace, type WorkspaceOptions } from "./workspace.js";
