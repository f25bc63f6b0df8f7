export {
  type AgentTool,
  type AgentToolOptions,
  agentToolName,
  createAgentTool,
  type SubagentSummary,
  subagentSystemPrompt,
} from "./create-agent-tool.js";
export {
  describeProjectAgentHooks,
  loadSubagentDefinitions,
  mergeSubagentDefinitions,
  type SubagentDirectoriesOptions,
  subagentDirectories,
} from "./load-subagent-definitions.js";
export {
  type ModelFamily,
  modelAliases,
  type SessionModel,
  type SubagentModelChoice,
  subagentModelSpec,
} from "./model-aliases.js";
export {
  type FrontMatterDocument,
  FrontMatterError,
  type FrontMatterMap,
  type FrontMatterValue,
  parseFrontMatter,
} from "./parse-front-matter.js";
export { asReadOnlyTool, isReadOnlyBashCommand, readOnlyBashCheck } from "./read-only-bash.js";
export { createSpendingGuard, type SpendingGuard, type SubagentBudget, SubagentLimitError } from "./subagent-budget.js";
export {
  builtInSubagents,
  exploreSubagent,
  generalPurposeSubagent,
  type ParseSubagentOptions,
  parseSubagentDefinition,
  type SubagentDefinition,
} from "./subagent-definition.js";
export {
  createSubagentSlots,
  defaultSubagentLimits,
  readSubagentLimits,
  type SubagentLimits,
  type SubagentSlots,
} from "./subagent-limits.js";
export { type SubagentPermissionParts, subagentCanUseTool } from "./subagent-permissions.js";
