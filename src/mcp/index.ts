// `minagent/mcp`: any Model Context Protocol server's tools on minagent's loop. The MCP SDK
// (@modelcontextprotocol/sdk, an optional peer dependency) is loaded when the first server starts.
export { type McpAuthorizationRequest, McpLoginRequiredError } from "./auth/mcp-oauth-provider.js";
export type {
  McpElicitationHandler,
  McpElicitationRequest,
  McpElicitationResult,
  McpElicitationValue,
  McpRoot,
  McpSamplingContent,
  McpSamplingHandler,
  McpSamplingMessage,
  McpSamplingRequest,
  McpSamplingResult,
} from "./client-features.js";
export {
  isRemoteServer,
  type McpConfig,
  type McpOAuthConfig,
  type McpRemoteServerConfig,
  type McpServerConfig,
  type McpStdioServerConfig,
  type ResolvedMcpServer,
  resolveMcpConfig,
  type VariableSource,
} from "./config.js";
export { connectMcpServers } from "./connect-mcp-servers.js";
export { convertMcpSamplingMessages, createMcpSampler, type McpSamplerOptions, mapStopReasonToMcp } from "./create-mcp-sampler.js";
export { type DeferTools, loadedToolNames, ToolDeferral, toolSearchName } from "./defer-tools.js";
export {
  describeArguments,
  describePromptMessages,
  type McpPrompt,
  type McpPromptArgument,
  type McpPromptMessage,
  mcpPromptCommand,
  parsePromptArguments,
} from "./mcp-prompts.js";
export { describeResourceContents, type McpResource, type McpResourceContents, type McpResourceTemplate } from "./mcp-resources.js";
export type { McpSandbox } from "./mcp-sandbox.js";
export type { McpProgress, McpServerState, McpToolAnnotations, McpToolDefinition } from "./mcp-server-types.js";
export type {
  ConnectMcpServersOptions,
  McpAuthOptions,
  McpServerStatus,
  McpServers,
  McpTool,
  McpTurnOptions,
} from "./mcp-servers.js";
export { type McpConfigFile, readMcpConfigFiles } from "./read-mcp-config-files.js";
export { type AttachedResources, attachResourceMentions, type MentionSource } from "./resource-mentions.js";
export { listResourcesToolName, readResourceToolName } from "./resource-tools.js";
export { type McpLogLevel, type McpLogMessage, type McpToolProgress, mcpLogLevels } from "./server-features.js";
export { mcpToolName } from "./tool-names.js";
export { describeMcpToolResult, type McpContentBlock, type McpToolResult } from "./tool-result.js";
