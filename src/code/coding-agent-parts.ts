// The steps CodingAgent.create takes, each a function of its own: the boundaries (permissions, workspace, sandbox),
// the built-in tools, the subagents, and the listener the compactor sits in.
import { type AgentEventListener, type CanUseTool, type Model, resolveModel, type Tool, type ToolRegistry } from "../engine.js";
import type { CodingAgentOptions } from "./coding-agent-options.js";
import type { Compactor } from "./compaction/index.js";
import type { HookRunner } from "./hooks/index.js";
import type { ProjectMemory } from "./memory/index.js";
import { type CodePermissions, createCodePermissions } from "./permissions/index.js";
import { createSandbox, type Sandbox } from "./sandbox/create-sandbox.js";
import { sandboxOptionsFromRules } from "./sandbox/from-permission-rules.js";
import { readSandboxSettings } from "./sandbox/sandbox-settings.js";
import type { LoadedSettings } from "./settings/load-settings.js";
import { createSkillTool, loadSkills, type Skill } from "./skills/index.js";
import {
  type AgentTool,
  builtInSubagents,
  createAgentTool,
  loadSubagentDefinitions,
  mergeSubagentDefinitions,
  subagentSystemPrompt,
} from "./subagents/index.js";
import { createBashTool } from "./tools/bash.js";
import { createEditTool } from "./tools/edit.js";
import { createGlobTool } from "./tools/glob.js";
import { createGrepTool } from "./tools/grep.js";
import { createNotebookEditTool } from "./tools/notebook-edit.js";
import { createReadTool } from "./tools/read.js";
import { createTodoStore, createTodoWriteTool, type TodoStore } from "./tools/todo-write.js";
import { webFetchTools } from "./tools/web-fetch.js";
import { webSearchTools } from "./tools/web-search.js";
import { createWriteTool } from "./tools/write.js";
import { Workspace } from "./workspace.js";

/**
 * Every registry of the agent's (and its subagents'): effects in the model's order, a long timeout for builds and
 * tests, and results up to 110,000 characters, above Read's budget (about 25,000 tokens), so Read says where to go on.
 */
export const registryOptions = { orderEffects: true, timeoutMs: 15 * 60_000, maxResultLength: 110_000 };

/**
 * What the agent may do and where: the permissions (modes, rules, the folders the settings add), the workspace the
 * tools get (widened to those folders), and the OS sandbox Bash commands run in (the same folders and rules).
 */
export async function createBoundaries(
  given: Workspace,
  settings: LoadedSettings,
  options: CodingAgentOptions & { home: string; userDirectory: string },
): Promise<{ permissions: CodePermissions; workspace: Workspace; sandbox: Sandbox }> {
  const { home, userDirectory } = options;
  const sandboxSettings = await readSandboxSettings(
    settings,
    { root: given.root, home },
    typeof options.sandbox === "boolean" ? { enabled: options.sandbox } : options.sandbox,
  );
  const permissions = await createCodePermissions({
    workspace: given,
    mode: options.mode,
    rules: options.rules,
    settingsFiles: settings,
    home,
    unsandboxedCalls: options.unattended && sandboxSettings.allowUnsandboxedCommands === true ? "judge" : "ask",
  });
  // The settings may add directories: the tools must be able to reach what the permissions allow there.
  const workspace =
    options.workspace instanceof Workspace || permissions.directories.every((directory) => given.directories.includes(directory))
      ? given
      : new Workspace({ root: given.root, additionalDirectories: permissions.directories.filter((directory) => directory !== given.root) });
  const sandbox = await createSandbox({
    settings: sandboxSettings,
    directories: workspace.directories,
    home,
    userDirectory,
    ...sandboxOptionsFromRules(permissions),
    askNetwork: options.askNetwork,
  });
  return { permissions, workspace, sandbox };
}

/**
 * The built-in coding tools over one workspace; `env` is the Bash commands' environment (default: the Bash tool's);
 * `webFetch` sets WebFetch up (`false`: no WebFetch); `webSearch` WebSearch, which searches through `model`'s provider.
 */
export function builtInTools(
  workspace: Workspace,
  permissions: CodePermissions,
  sandbox: Sandbox,
  todos: TodoStore,
  env?: Readonly<Record<string, string | undefined>> | undefined,
  webFetch?: CodingAgentOptions["webFetch"],
  webSearch?: { model: Model; options: CodingAgentOptions["webSearch"] },
): Tool[] {
  return [
    createReadTool(workspace),
    createWriteTool(workspace),
    createEditTool(workspace),
    createNotebookEditTool(workspace),
    // A search never shows what a Read deny rule keeps from reading.
    createGlobTool(workspace, { isHidden: permissions.isReadDenied }),
    createGrepTool(workspace, { isHidden: permissions.isReadDenied }),
    createBashTool(workspace, { sandbox, env }),
    createTodoWriteTool(todos),
    ...webFetchTools(webFetch, permissions),
    ...webSearchTools(webSearch?.options, webSearch?.model),
    ...permissions.planMode.tools,
  ];
}

/**
 * The skills of the user's folders and the project's, and the Skill tool over them (none without skills, so that a
 * project without any pays nothing); the folders that cannot be used are warnings.
 */
export async function createSkills(
  options: CodingAgentOptions,
  parts: Pick<SubagentParts, "warn" | "claudeDirectory" | "workspace" | "userDirectory" | "permissions">,
): Promise<{ skills: readonly Skill[]; tool: Tool | undefined }> {
  if (options.skills === false) return { skills: [], tool: undefined };
  const { skills, warnings } = await loadSkills({
    root: parts.workspace.root,
    userDirectory: parts.userDirectory,
    claudeDirectory: parts.claudeDirectory,
  });
  for (const warning of warnings) parts.warn(warning);
  if (!skills.some((skill) => skill.modelInvocable)) return { skills, tool: undefined };
  const tool = createSkillTool(skills, {
    isReadDenied: (path) => parts.permissions.isReadDenied(path),
    maxListingCharacters: options.skills?.maxListingCharacters,
    onWarning: parts.warn,
  });
  return { skills, tool };
}

/** The parts of the agent its subagents share or copy. */
export type SubagentParts = {
  /** The Bash commands' environment (the settings' `env` on top of the default), as the agent's own Bash tool has it. */
  env?: Readonly<Record<string, string | undefined>> | undefined;
  /** Where to say what was skipped (agent files that cannot be used, tools a definition names that there are not). */
  warn: (message: string) => void;
  claudeDirectory: string | undefined;
  workspace: Workspace;
  userDirectory: string;
  registry: ToolRegistry;
  sandbox: Sandbox;
  permissions: CodePermissions;
  canUseTool: CanUseTool;
  memory: ProjectMemory;
  withHooks: (tool: Tool) => Tool;
  /** The session's hooks: SubagentStart and SubagentStop run around each subagent; agent files' hooks share its id. */
  hooks?: HookRunner | undefined;
};

/** The Agent tool: the built-in subagents, the user's and the project's agent files, and those given in code. */
export async function createSubagents(model: Model, options: CodingAgentOptions, parts: SubagentParts): Promise<AgentTool> {
  const { workspace, registry, sandbox, withHooks } = parts;
  const given = options.subagents || {};
  const environment = `Workspace: ${workspace.root}. Paths may be relative to it. Date: ${new Date().toISOString().slice(0, 10)}.`;
  // Plan mode's tools move the session's mode: they stay the main agent's.
  const mainOnly = new Set(parts.permissions.planMode.tools.map((tool) => tool.name));
  // A subagent keeps a checklist and a shell of its own (its `cd` must not move the main agent's); the other tools
  // are the session's (PostToolUse hooks included).
  const ownCopies: Record<string, () => Tool> = {
    [createTodoWriteTool(createTodoStore()).name]: () => createTodoWriteTool(createTodoStore()),
    [createBashTool(workspace, { sandbox }).name]: () => createBashTool(workspace, { sandbox, env: parts.env }),
  };
  return createAgentTool({
    model,
    resolveModel: given.resolveModel ?? ((spec) => resolveModel(spec)),
    definitions: mergeSubagentDefinitions(
      builtInSubagents,
      await loadSubagentDefinitions({
        root: workspace.root,
        userDirectory: parts.userDirectory,
        claudeDirectory: parts.claudeDirectory,
        onSkipped: parts.warn,
        onWarning: parts.warn,
        projectHooks: given.projectHooks,
      }),
      given.definitions ?? [],
    ),
    toolNames: registry.names().filter((name) => !mainOnly.has(name)),
    onWarning: parts.warn,
    buildTools: (names) => names.map((name) => withHooksIfCopied(name, ownCopies, withHooks) ?? (registry.get(name) as Tool)),
    canUseTool: parts.canUseTool,
    // An agent file's permissionMode narrows the session's: dontAsk needs the decision no person has answered yet.
    judgeCall: async (call, context) =>
      (await parts.permissions.explain(call, context.tool, { needsApproval: context.needsApproval })).decision,
    sessionMode: () => parts.permissions.mode,
    sessionHooks: parts.hooks,
    hooks: {
      sessionId: parts.hooks?.sessionId ?? options.sessionId ?? globalThis.crypto.randomUUID(),
      cwd: workspace.root,
      onHookRun: options.onHookRun,
    },
    mcpServerNames: () => options.mcp?.status().map((server) => server.name) ?? [],
    // The MCP tools the session has at the time (servers come and go), as the main agent has them.
    sharedTools: options.mcp
      ? () => registry.names().flatMap((name) => (name.startsWith("mcp__") ? (registry.get(name) ?? []) : []))
      : undefined,
    limits: given.limits,
    budget: given.budget,
    registry: registryOptions,
    systemPrompt: (definition) => subagentSystemPrompt(definition, [environment, parts.memory.text].filter(Boolean).join("\n\n")),
  });
}

function withHooksIfCopied(name: string, copies: Record<string, () => Tool>, withHooks: (tool: Tool) => Tool): Tool | undefined {
  const copy = copies[name];
  return copy ? withHooks(copy()) : undefined;
}

/** The agent's listener: the compactor measures every event before the caller hears it. */
export function listenWith(compactor: Compactor | undefined, onEvent: AgentEventListener | undefined): AgentEventListener | undefined {
  if (!compactor) return onEvent;
  return (event) => {
    compactor.listen(event);
    onEvent?.(event);
  };
}
