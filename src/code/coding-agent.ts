import { readFile } from "node:fs/promises";
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
import { permissionSettingsFiles } from "./permissions/settings.js";
import { createSandbox, type Sandbox } from "./sandbox/create-sandbox.js";
import { sandboxOptionsFromRules } from "./sandbox/from-permission-rules.js";
import type { NetworkRequest } from "./sandbox/network-proxy.js";
import { readSandboxSettings, type SandboxSettings } from "./sandbox/sandbox-settings.js";
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
   * Settings files to read for permissions and hooks, least specific first. Default: `~/.minagent/settings.json`,
   * `<root>/.minagent/settings.json`, `<root>/.minagent/settings.local.json`; `[]` reads none.
   */
  settingsFiles?: readonly string[] | undefined;
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

  /** Builds the agent: reads the settings files (permissions and hooks) and prepares the tools. */
  static async create(model: Model, options: CodingAgentOptions): Promise<CodingAgent> {
    if (options?.workspace === undefined)
      throw new UsageError("CodingAgent needs a workspace: the folder it works in, e.g. { workspace: process.cwd() }.");
    const given =
      options.workspace instanceof Workspace
        ? options.workspace
        : new Workspace({ root: options.workspace, additionalDirectories: options.additionalDirectories });
    const home = options.home ?? homedir();
    const settingsFiles = options.settingsFiles ?? permissionSettingsFiles({ root: given.root, home });
    const sandboxSettings = await readSandboxSettings(
      settingsFiles,
      { root: given.root, home },
      typeof options.sandbox === "boolean" ? { enabled: options.sandbox } : options.sandbox,
    );
    const permissions = await createCodePermissions({
      workspace: given,
      mode: options.mode,
      rules: options.rules,
      settingsFiles,
      home,
      unsandboxedCalls: options.unattended && sandboxSettings.allowUnsandboxedCommands === true ? "judge" : "ask",
    });
    // The settings may add directories: the tools must be able to reach what the permissions allow there.
    const workspace =
      options.workspace instanceof Workspace || permissions.directories.every((directory) => given.directories.includes(directory))
        ? given
        : new Workspace({
            root: given.root,
            additionalDirectories: permissions.directories.filter((directory) => directory !== given.root),
          });
    const hooks = new HookRunner({
      sessionId: options.sessionId ?? globalThis.crypto.randomUUID(),
      cwd: workspace.root,
      settings: await readHookSettings(settingsFiles),
      hooks: options.hooks,
      onHookRun: options.onHookRun,
    });
    const userDirectory = options.userDirectory ?? join(home, ".minagent");
    const sandbox = await createSandbox({
      settings: sandboxSettings,
      directories: workspace.directories,
      home,
      userDirectory,
      ...sandboxOptionsFromRules(permissions),
      askNetwork: options.askNetwork,
    });
    const todos = options.todos ?? createTodoStore();
    const registry = new ToolRegistry({ orderEffects: true, timeoutMs: 15 * 60_000 });
    const builtIn = [
      createReadTool(workspace),
      createWriteTool(workspace),
      createEditTool(workspace),
      // A search never shows what a Read deny rule keeps from reading.
      createGlobTool(workspace, { isHidden: permissions.isReadDenied }),
      createGrepTool(workspace, { isHidden: permissions.isReadDenied }),
      createBashTool(workspace, { sandbox }),
      createTodoWriteTool(todos),
      ...permissions.planMode.tools,
      ...(options.tools ?? []),
    ];
    const withHooks = (tool: Tool): Tool => (hooks.hasHooks("PostToolUse", tool.name) ? withPostToolUseHooks(tool, hooks) : tool);
    for (const tool of builtIn) registry.add(withHooks(tool));
    const canUseTool = withPreToolUseHooks(hooks, askWhileWaiting(permissions.canUseTool, options.askPerson));
    const memory: ProjectMemory =
      options.memory === false
        ? { files: [], text: "" }
        : await loadProjectMemory({ root: workspace.root, userDirectory, ...options.memory });
    let subagents: AgentTool | undefined;
    if (options.subagents !== false) {
      const given = options.subagents ?? {};
      const environment = `Workspace: ${workspace.root}. Paths may be relative to it. Date: ${new Date().toISOString().slice(0, 10)}.`;
      subagents = createAgentTool({
        model,
        resolveModel: given.resolveModel ?? ((spec) => resolveModel(spec)),
        definitions: mergeSubagentDefinitions(
          builtInSubagents,
          await loadSubagentDefinitions({ root: workspace.root, userDirectory }),
          given.definitions ?? [],
        ),
        // Plan mode's tools move the session's mode: they stay the main agent's.
        toolNames: registry.names().filter((name) => name !== "EnterPlanMode" && name !== "ExitPlanMode"),
        // A subagent keeps a checklist and a shell of its own (its `cd` must not move the main agent's); the other
        // tools are the session's (PostToolUse hooks included).
        buildTools: (names) =>
          names.map((name) =>
            name === "TodoWrite"
              ? withHooks(createTodoWriteTool(createTodoStore()))
              : name === "Bash"
                ? withHooks(createBashTool(workspace, { sandbox }))
                : (registry.get(name) as Tool),
          ),
        canUseTool,
        // The MCP tools the session has at the time (servers come and go), as the main agent has them.
        sharedTools: options.mcp
          ? () => registry.names().flatMap((name) => (name.startsWith("mcp__") ? (registry.get(name) ?? []) : []))
          : undefined,
        limits: given.limits,
        budget: given.budget,
        registry: { orderEffects: true, timeoutMs: 15 * 60_000 },
        systemPrompt: (definition) => subagentSystemPrompt(definition, [environment, memory.text].filter(Boolean).join("\n\n")),
      });
      registry.add(withHooks(subagents));
    }
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
    const onEvent = options.onEvent;
    const agent = new Agent(model, registry, {
      system: [codingSystemPrompt({ workspace, instructions: options.instructions }), memory.text].filter(Boolean).join("\n\n"),
      maxSteps: options.maxSteps ?? 50,
      canUseTool,
      onEvent: compactor
        ? (event) => {
            compactor.listen(event);
            onEvent?.(event);
          }
        : onEvent,
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

/** With `askPerson`, an "ask" is put to the person while the run waits; without it the run is interrupted. */
function askWhileWaiting(canUseTool: CanUseTool, askPerson: CodingAgentOptions["askPerson"]): CanUseTool {
  if (!askPerson) return canUseTool;
  return async (call, context) => {
    const decision = await canUseTool(call, context);
    if (decision.behavior !== "ask") return decision;
    return askPerson({ toolCall: call, reason: decision.reason, signal: context.signal });
  };
}

/** The `hooks` of each settings file that exists and parses (permissions report malformed files; hooks must not run blind). */
async function readHookSettings(files: readonly string[]): Promise<HookSettings[]> {
  const settings: HookSettings[] = [];
  for (const file of files) {
    let text: string;
    try {
      text = await readFile(file, "utf8");
    } catch {
      continue;
    }
    try {
      settings.push(JSON.parse(text) as HookSettings);
    } catch (error) {
      throw new UsageError(`Settings file ${file} is not valid JSON (${(error as Error).message}); fix it or remove it.`);
    }
  }
  return settings;
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
