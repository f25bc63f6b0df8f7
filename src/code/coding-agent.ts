import { homedir } from "node:os";
import { join } from "node:path";
import { Agent } from "../core/agent.js";
import type { AgentEventListener } from "../core/events.js";
import type { PrepareTurn } from "../core/loop-types.js";
import type { ApprovalDecision, ApprovalDecisions } from "../core/run-state.js";
import type { Message, Model, RunResult, ToolCall } from "../core/types.js";
import { addUsage, emptyUsage } from "../core/usage.js";
import { UsageError } from "../errors.js";
import type { McpServers } from "../mcp/connect-mcp-servers.js";
import type { DeferTools } from "../mcp/defer-tools.js";
import { resolveModel } from "../models/resolve-model.js";
import type { CanUseTool } from "../tools/permission.js";
import type { Tool } from "../tools/tool.js";
import { ToolRegistry } from "../tools/tool-registry.js";
import {
  type Compactor,
  type CompactorOptions,
  chainPrepareTurns,
  contextWindowOf,
  createCompactor,
  describePermissions,
  describeTodos,
} from "./compaction/index.js";
import { type HookConfiguration, HookRunner, type HookRunReport, type HookSettings } from "./hooks/index.js";
import { withPostToolUseHooks } from "./hooks/with-post-tool-use-hooks.js";
import { withPreToolUseHooks } from "./hooks/with-pre-tool-use-hooks.js";
import { loadProjectMemory, type ProjectMemory, type ProjectMemoryOptions } from "./memory/index.js";
import { type CodePermissions, createCodePermissions, type PermissionMode } from "./permissions/index.js";
import { createSandbox, type Sandbox } from "./sandbox/create-sandbox.js";
import { sandboxOptionsFromRules } from "./sandbox/from-permission-rules.js";
import type { NetworkRequest } from "./sandbox/network-proxy.js";
import { readSandboxSettings, type SandboxSettings } from "./sandbox/sandbox-settings.js";
import { type LoadedSettings, type SettingsInput, settingsLocations, settingsOf } from "./settings/load-settings.js";
import {
  type AgentTool,
  builtInSubagents,
  createAgentTool,
  loadSubagentDefinitions,
  mergeSubagentDefinitions,
  type SubagentBudget,
  type SubagentDefinition,
  type SubagentLimits,
  subagentSystemPrompt,
} from "./subagents/index.js";
import { codingSystemPrompt } from "./system-prompt.js";
import { createBashTool } from "./tools/bash.js";
import { createEditTool } from "./tools/edit.js";
import { createGlobTool } from "./tools/glob.js";
import { createGrepTool } from "./tools/grep.js";
import { createReadTool } from "./tools/read.js";
import { createTodoStore, createTodoWriteTool, type TodoStore } from "./tools/todo-write.js";
import { createWriteTool } from "./tools/write.js";
import { Workspace } from "./workspace.js";

/** A person's answer to a call that needs approval, given while the run waits (the CLI's prompt). */
export type ApprovalRequest = {
  /** The call as the model made it. */
  toolCall: Pick<ToolCall, "id" | "name" | "arguments">;
  /** Why it needs approval, in words a person reads. */
  reason: string | undefined;
  signal: AbortSignal;
};

/** Settings of a {@link CodingAgent}. */
export type CodingAgentOptions = {
  /** The folder the agent works in (or a Workspace): no tool touches a file outside it, or outside `additionalDirectories`. */
  workspace: string | Workspace;
  /** More folders the tools may use. */
  additionalDirectories?: readonly string[] | undefined;
  /** The permission mode to start in (default: the settings files', else `default`). */
  mode?: PermissionMode | undefined;
  /** Permission rules given in code, after the settings files' (`Bash(npm test)`, `Edit(src/**)`, …). */
  rules?: { allow?: readonly string[] | undefined; ask?: readonly string[] | undefined; deny?: readonly string[] | undefined } | undefined;
  /**
   * The settings files for permissions, hooks and the sandbox, least specific first: read already (`loadSettings`,
   * as the CLI does once per session) or paths to read. Default: `settings.json` in `userDirectory`, then
   * `<root>/.minagent/settings.json` and `<root>/.minagent/settings.local.json`; `[]` reads none.
   */
  settingsFiles?: SettingsInput | undefined;
  /** Hooks in code, run after the settings files' hooks. */
  hooks?: HookConfiguration | undefined;
  /**
   * Asked, while the run waits, for a call the permissions would ask about. Without it such a call ends the run
   * `interrupted`, to be decided and resumed later (`resume`), in this process or another.
   */
  askPerson?: ((request: ApprovalRequest) => ApprovalDecision | Promise<ApprovalDecision>) | undefined;
  /** More tools (MCP tools, your own), beside the built-in ones. */
  tools?: readonly Tool[] | undefined;
  /** Text added to the built-in system prompt (project conventions, the person's instructions). */
  instructions?: string | undefined;
  /** Model calls allowed per run (default 50). */
  maxSteps?: number | undefined;
  /** Receives every event of every run. */
  onEvent?: AgentEventListener | undefined;
  /** Told of every hook that ran (for logs, or to warn that one failed open). */
  onHookRun?: ((report: HookRunReport) => void) | undefined;
  /** Shapes each turn (compaction, project memory). */
  prepareTurn?: PrepareTurn | undefined;
  /**
   * MCP servers whose tools the agent offers, from `connectMcpServers` (`minagent/mcp`). The registry is brought up
   * to date before every turn, as servers become ready and change their tool lists; permission rules
   * (`mcp__github__*`, `mcp__github__create_issue`) and hooks apply to their calls as to any other. The agent does not
   * close them: whoever connected them does.
   */
  mcp?: McpServers | undefined;
  /**
   * Hold MCP tools back until the model loads them with `ToolSearch` (their names are listed; their schemas are sent
   * once loaded): `true`, `false`, or `{ aboveTokens }`. Default: when their schemas would take more than a tenth of
   * the model's context window on every call (loading costs a turn, worth it only for big schemas).
   */
  deferMcpTools?: DeferTools | undefined;
  /** The session's id, sent to hooks (default: a random one). */
  sessionId?: string | undefined;
  /** The checklist TodoWrite keeps (default: a new one; read it as `agent.todos.todos`). */
  todos?: TodoStore | undefined;
  /** The home directory for `~` in rules and the user's settings file (default: the user's). */
  home?: string | undefined;
  /** The user's minagent folder, holding memory files and `agents/` (default `<home>/.minagent`; the CLI passes MINAGENT_HOME's). */
  userDirectory?: string | undefined;
  /**
   * Project memory (AGENTS.md, MINAGENT.md) loaded into the system prompt: where the working directory is and how much
   * of a file to keep; `false` reads none. Default: the user's and the project's files, from the root down to the root.
   */
  memory?: false | Pick<ProjectMemoryOptions, "cwd" | "maxFileCharacters"> | undefined;
  /**
   * Compaction of long sessions (docs/compaction.md), on by default: `false` turns it off; otherwise createCompactor's
   * options (the model, memory, permission state and todo list are the agent's).
   */
  compaction?: false | Omit<CompactorOptions, "model" | "memory" | "permissions" | "todos"> | undefined;
  /**
   * The OS sandbox every Bash command runs in (docs/code.md, "The sandbox"): `true` or `false` over the settings files'
   * `sandbox.enabled`, or a `sandbox` object in Claude Code's shape merged after theirs. Default: the settings files'
   * `sandbox`, and on wherever it can run (Linux with bubblewrap). `agent.sandbox.status` says whether commands really
   * run confined, and why not.
   */
  sandbox?: boolean | SandboxSettings | undefined;
  /**
   * Asked when a sandboxed command wants a host that no `sandbox.network.allowedDomains` entry or `WebFetch(domain:…)`
   * allow rule allows (the CLI asks a person); `true` allows it for the rest of the session. Without it such a host is
   * refused.
   */
  askNetwork?: ((request: NetworkRequest) => boolean | Promise<boolean>) | undefined;
  /**
   * No person answers this agent's asks (`minagent code -p`): a call asking to run outside the sandbox is refused,
   * unless the settings' `sandbox.allowUnsandboxedCommands` is `true` — then it is judged by rules and the mode as an
   * unsandboxed call. With a person, such a call is always asked.
   */
  unattended?: boolean | undefined;
  /** Subagents (the Agent tool); `false` leaves the tool out. */
  subagents?:
    | false
    | {
        /** More types, after the built-in ones and the files' (a type of the same name replaces theirs). */
        definitions?: readonly SubagentDefinition[] | undefined;
        limits?: Partial<SubagentLimits> | undefined;
        /** The session's budget (the CLI's --max-budget-usd). */
        budget?: SubagentBudget | undefined;
        /** Makes a definition's model (default: minagent's resolveModel). */
        resolveModel?: ((spec: string) => Model | Promise<Model>) | undefined;
      }
    | undefined;
};

/** Options of one {@link CodingAgent} run. */
export type CodingRunOptions = {
  /** The conversation so far (a loaded session's messages): the run continues it. */
  history?: readonly Message[] | undefined;
  /** Aborts the run (Esc, Ctrl-C). */
  signal?: AbortSignal | undefined;
  /** Receives this run's events (and its child runs'). */
  onEvent?: AgentEventListener | undefined;
  /** Ask the model to stream, so listeners get text deltas as they arrive. */
  stream?: boolean | undefined;
};

/**
 * How a {@link CodingAgent} run ends: the engine's result, or `status: "blocked"` when a UserPromptSubmit hook
 * blocked the prompt (nothing was sent to the model; `messages` is the history as given, `blocked` the hook's reason).
 */
export type CodingRunResult = Omit<RunResult, "status"> & {
  status: RunResult["status"] | "blocked";
  /** The UserPromptSubmit hook's reason, when it blocked the prompt. */
  blocked?: string | undefined;
};

/**
 * Claude Code's capabilities on minagent's loop, for any model: the built-in coding tools (Read, Write, Edit, Glob,
 * Grep, Bash, TodoWrite, and Plan Mode's two) over one workspace, the permission system (modes and rules from
 * settings files and code, compound shell commands split by a real parser) as the agent's `canUseTool`, and hooks
 * (PreToolUse in the permission decision, PostToolUse around every tool, UserPromptSubmit, Stop and SessionStart
 * around each run). The loop is the plain Agent's; effects run in the order the model gave.
 * @example
 * const agent = await CodingAgent.create(model, { workspace: process.cwd(), askPerson: askOnTerminal });
 * const result = await agent.run("The tests in test/math.test.js fail; fix the code.");
 */
export class CodingAgent {
  readonly agent: Agent;
  readonly workspace: Workspace;
  readonly registry: ToolRegistry;
  readonly permissions: CodePermissions;
  readonly hooks: HookRunner;
  /** The checklist the model keeps with TodoWrite. */
  readonly todos: TodoStore;
  /** The memory files in the system prompt (`/memory`; a compactor's `memory: () => agent.memory.text`). */
  readonly memory: ProjectMemory;
  /** The Agent tool (`/agents`: `agent.subagents?.subagents()`), unless subagents are off. */
  readonly subagents: AgentTool | undefined;
  /** The compactor (`/compact [focus]`: `agent.compactor?.compactNow(focus)`), unless compaction is off. */
  readonly compactor: Compactor | undefined;
  /** The MCP servers whose tools the agent offers (`/mcp`: `agent.mcp?.status()`), if any. */
  readonly mcp: McpServers | undefined;
  /** The OS sandbox Bash commands run in; `sandbox.status.enabled` says whether they really do. */
  readonly sandbox: Sandbox;
  #sessionContext: Promise<string | undefined> | undefined;

  private constructor(parts: {
    agent: Agent;
    workspace: Workspace;
    registry: ToolRegistry;
    permissions: CodePermissions;
    hooks: HookRunner;
    todos: TodoStore;
    memory: ProjectMemory;
    subagents: AgentTool | undefined;
    compactor: Compactor | undefined;
    mcp: McpServers | undefined;
    sandbox: Sandbox;
  }) {
    this.agent = parts.agent;
    this.workspace = parts.workspace;
    this.registry = parts.registry;
    this.permissions = parts.permissions;
    this.hooks = parts.hooks;
    this.todos = parts.todos;
    this.memory = parts.memory;
    this.subagents = parts.subagents;
    this.compactor = parts.compactor;
    this.mcp = parts.mcp;
    this.sandbox = parts.sandbox;
  }

  /** Ends what the agent keeps running between calls: the sandbox's network namespace and proxy, its temporary folder. */
  async close(): Promise<void> {
    await this.sandbox.close();
  }

  /**
   * Builds the agent, step by step: the settings (read once), the permissions and the folders they open, the sandbox,
   * the hooks, the tools, project memory, subagents, compaction, and the engine's Agent over them.
   */
  static async create(model: Model, options: CodingAgentOptions): Promise<CodingAgent> {
    if (options?.workspace === undefined)
      throw new UsageError("CodingAgent needs a workspace: the folder it works in, e.g. { workspace: process.cwd() }.");
    const given =
      options.workspace instanceof Workspace
        ? options.workspace
        : new Workspace({ root: options.workspace, additionalDirectories: options.additionalDirectories });
    const home = options.home ?? homedir();
    // One folder of the user's for everything: settings, memory, agents, and what the sandbox keeps read-only.
    const userDirectory = options.userDirectory ?? join(home, ".minagent");
    const settings = await settingsOf(options.settingsFiles ?? settingsLocations({ root: given.root, userDirectory }));
    const { permissions, workspace, sandbox } = await createBoundaries(given, settings, { ...options, home, userDirectory });
    const hooks = new HookRunner({
      sessionId: options.sessionId ?? globalThis.crypto.randomUUID(),
      cwd: workspace.root,
      settings: settings.files.map((file) => file.settings as HookSettings),
      hooks: options.hooks,
      onHookRun: options.onHookRun,
    });
    const withHooks = (tool: Tool): Tool => (hooks.hasHooks("PostToolUse", tool.name) ? withPostToolUseHooks(tool, hooks) : tool);
    const todos = options.todos ?? createTodoStore();
    const registry = new ToolRegistry(registryOptions);
    for (const tool of builtInTools(workspace, permissions, sandbox, todos)) registry.add(withHooks(tool));
    for (const tool of options.tools ?? []) registry.add(withHooks(tool));
    const canUseTool = withPreToolUseHooks(hooks, askWhileWaiting(permissions.canUseTool, options.askPerson));
    const memory: ProjectMemory =
      options.memory === false
        ? { files: [], text: "" }
        : await loadProjectMemory({ root: workspace.root, userDirectory, ...options.memory });
    const subagents =
      options.subagents === false
        ? undefined
        : await createSubagents(model, options, {
            workspace,
            userDirectory,
            registry,
            sandbox,
            permissions,
            canUseTool,
            memory,
            withHooks,
          });
    if (subagents) registry.add(withHooks(subagents));
    const compactor =
      options.compaction === false
        ? undefined
        : createCompactor({
            model,
            ...options.compaction,
            memory: () => memory.text || undefined,
            permissions: () => describePermissions(permissions),
            todos: () => describeTodos(todos.todos),
          });
    const agent = new Agent(model, registry, {
      system: [codingSystemPrompt({ workspace, instructions: options.instructions }), memory.text].filter(Boolean).join("\n\n"),
      maxSteps: options.maxSteps ?? 50,
      canUseTool,
      onEvent: listenWith(compactor, options.onEvent),
      // MCP tools first, so that the compactor measures the tools that will be sent.
      prepareTurn:
        options.mcp || compactor
          ? chainPrepareTurns(
              options.mcp?.prepareTurn(registry, {
                wrap: withHooks,
                deferTools: options.deferMcpTools ?? { aboveTokens: Math.round(contextWindowOf(model.modelId) / 10) },
              }),
              options.prepareTurn,
              compactor,
            )
          : options.prepareTurn,
    });
    return new CodingAgent({
      agent,
      workspace,
      registry,
      permissions,
      hooks,
      todos,
      memory,
      subagents,
      compactor,
      mcp: options.mcp,
      sandbox,
    });
  }

  /**
   * Runs one prompt: the UserPromptSubmit hooks first (they may block it or add context), the SessionStart hooks'
   * context before the first prompt of a conversation, then the loop; when it completes, the Stop hooks may send
   * the agent back to work (at most `maxStopContinuations` times in a row).
   */
  async run(prompt: string, options: CodingRunOptions = {}): Promise<CodingRunResult> {
    const submitted = await this.hooks.runUserPromptSubmitHooks(prompt, options.signal);
    if ("blocked" in submitted && submitted.blocked !== undefined) return blockedResult(submitted.blocked, options.history);
    const sessionContext = options.history?.length ? undefined : await this.#startSession(options.signal);
    const input = sessionContext
      ? `${sessionContext}\n\n${(submitted as { input: string }).input}`
      : (submitted as { input: string }).input;
    return this.#untilStopped(await this.agent.run(input, options), options);
  }

  /** Goes on with an interrupted run once its pending calls are decided (see `Agent.resume`); Stop hooks apply as in {@link run}. */
  async resume(
    state: RunResult | string,
    decisions: ApprovalDecisions,
    options: Omit<CodingRunOptions, "history"> = {},
  ): Promise<CodingRunResult> {
    return this.#untilStopped(await this.agent.resume(state, decisions, options), options);
  }

  /** Runs the Stop hooks after a completed run; each continuation goes on with the conversation, and the result covers them all. */
  async #untilStopped(first: RunResult, options: Omit<CodingRunOptions, "history">): Promise<RunResult> {
    let result = first;
    for (let continuations = 0; result.status === "completed"; continuations++) {
      const verdict = await this.hooks.runStopHooks(result, { continuations, signal: options.signal });
      if (!verdict) break;
      const next = await this.agent.run(verdict.continue, { ...options, history: result.messages });
      const usage = emptyUsage();
      addUsage(usage, result.usage);
      addUsage(usage, next.usage);
      const steps = [...result.steps, ...next.steps.map((step) => ({ ...step, index: step.index + result.turns }))];
      result = { ...next, usage, steps, turns: result.turns + next.turns };
    }
    return result;
  }

  #startSession(signal: AbortSignal | undefined): Promise<string | undefined> {
    this.#sessionContext ??= this.hooks.runSessionStartHooks({ signal }).then((outcome) => {
      if (outcome.blocked) throw new UsageError(`A SessionStart hook blocked the session: ${outcome.blocked}`);
      return outcome.context;
    });
    // A start that failed (aborted, blocked) is tried again by the next conversation, not remembered.
    this.#sessionContext.catch(() => {
      this.#sessionContext = undefined;
    });
    return this.#sessionContext;
  }
}

/** Every registry of the agent's (and its subagents'): effects in the model's order, a long timeout for builds and tests. */
const registryOptions = { orderEffects: true, timeoutMs: 15 * 60_000 };

/**
 * What the agent may do and where: the permissions (modes, rules, the folders the settings add), the workspace the
 * tools get (widened to those folders), and the OS sandbox Bash commands run in (the same folders and rules).
 */
async function createBoundaries(
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

/** The built-in coding tools over one workspace. */
function builtInTools(workspace: Workspace, permissions: CodePermissions, sandbox: Sandbox, todos: TodoStore): Tool[] {
  return [
    createReadTool(workspace),
    createWriteTool(workspace),
    createEditTool(workspace),
    // A search never shows what a Read deny rule keeps from reading.
    createGlobTool(workspace, { isHidden: permissions.isReadDenied }),
    createGrepTool(workspace, { isHidden: permissions.isReadDenied }),
    createBashTool(workspace, { sandbox }),
    createTodoWriteTool(todos),
    ...permissions.planMode.tools,
  ];
}

/** The parts of the agent its subagents share or copy. */
type SubagentParts = {
  workspace: Workspace;
  userDirectory: string;
  registry: ToolRegistry;
  sandbox: Sandbox;
  permissions: CodePermissions;
  canUseTool: CanUseTool;
  memory: ProjectMemory;
  withHooks: (tool: Tool) => Tool;
};

/** The Agent tool: the built-in subagents, the user's and the project's agent files, and those given in code. */
async function createSubagents(model: Model, options: CodingAgentOptions, parts: SubagentParts): Promise<AgentTool> {
  const { workspace, registry, sandbox, withHooks } = parts;
  const given = options.subagents || {};
  const environment = `Workspace: ${workspace.root}. Paths may be relative to it. Date: ${new Date().toISOString().slice(0, 10)}.`;
  // Plan mode's tools move the session's mode: they stay the main agent's.
  const mainOnly = new Set(parts.permissions.planMode.tools.map((tool) => tool.name));
  // A subagent keeps a checklist and a shell of its own (its `cd` must not move the main agent's); the other tools
  // are the session's (PostToolUse hooks included).
  const ownCopies: Record<string, () => Tool> = {
    [createTodoWriteTool(createTodoStore()).name]: () => createTodoWriteTool(createTodoStore()),
    [createBashTool(workspace, { sandbox }).name]: () => createBashTool(workspace, { sandbox }),
  };
  return createAgentTool({
    model,
    resolveModel: given.resolveModel ?? ((spec) => resolveModel(spec)),
    definitions: mergeSubagentDefinitions(
      builtInSubagents,
      await loadSubagentDefinitions({ root: workspace.root, userDirectory: parts.userDirectory }),
      given.definitions ?? [],
    ),
    toolNames: registry.names().filter((name) => !mainOnly.has(name)),
    buildTools: (names) => names.map((name) => withHooksIfCopied(name, ownCopies, withHooks) ?? (registry.get(name) as Tool)),
    canUseTool: parts.canUseTool,
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
function listenWith(compactor: Compactor | undefined, onEvent: AgentEventListener | undefined): AgentEventListener | undefined {
  if (!compactor) return onEvent;
  return (event) => {
    compactor.listen(event);
    onEvent?.(event);
  };
}

/** With `askPerson`, an "ask" is put to the person while the run waits; without it the run is interrupted. */
function askWhileWaiting(canUseTool: CanUseTool, askPerson: CodingAgentOptions["askPerson"]): CanUseTool {
  if (!askPerson) return canUseTool;
  return async (call, context) => {
    const decision = await canUseTool(call, context);
    if (decision.behavior !== "ask") return decision;
    return askPerson({ toolCall: call, reason: decision.reason, signal: context.signal });
  };
}

function blockedResult(reason: string, history: readonly Message[] | undefined): CodingRunResult {
  return {
    // A run of its own (a hook decided it), so that traces and sessions can tell it from others.
    runId: `run_${globalThis.crypto.randomUUID()}`,
    status: "blocked",
    messages: [...(history ?? [])],
    steps: [],
    final: "",
    usage: emptyUsage(),
    turns: 0,
    pending: [],
    blocked: reason,
  };
}
