import { realpath } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";
import {
  Agent,
  type ApprovalDecisions,
  addUsage,
  conversationOf,
  emptyUsage,
  type Message,
  type Model,
  type RunResult,
  resolveModel,
  type Tool,
  ToolRegistry,
  UsageError,
} from "../engine.js";
import { attachResourceMentions, type McpServers } from "../mcp/index.js";
import { type Checkpoint, Checkpoints, fingerprintOf, readCheckpointSettings, withCheckpoints } from "./checkpoints/index.js";
import type {
  CodingAgentOptions,
  CodingRewindOptions,
  CodingRewindOutcome,
  CodingRunOptions,
  CodingRunResult,
  CommandRunOptions,
} from "./coding-agent-options.js";
import { builtInTools, createBoundaries, createSkills, createSubagents, listenWith, registryOptions } from "./coding-agent-parts.js";
import {
  allowedToolsSource,
  attachFileMentions,
  CommandModels,
  type CustomCommand,
  type CustomCommands,
  createCommandTools,
  createMentionReader,
  customCommandSet,
  describeCommandNames,
  type ExpandedCommand,
  expandCustomCommand,
  type FileMentions,
  loadCustomCommands,
  withAllowRules,
} from "./commands/index.js";
import {
  type Compactor,
  chainPrepareTurns,
  contextWindowOf,
  createCompactor,
  describePermissions,
  describeTodos,
} from "./compaction/index.js";
import { createSessionSampler } from "./create-session-sampler.js";
import { Diagnostics, readLanguageServerSettings, withDiagnostics } from "./diagnostics/index.js";
import { HookTranscript } from "./hooks/hook-transcript.js";
import { createHookedPermissionCheck } from "./hooks/hooked-permission-check.js";
import { HookRunner, type HookSettings, type SessionEndReason, type SessionStartSource } from "./hooks/index.js";
import { PostToolBatchStop, postToolBatchStep } from "./hooks/post-tool-batch-step.js";
import { withPostToolUseHooks } from "./hooks/with-post-tool-use-hooks.js";
import { loadProjectMemory, type ProjectMemory } from "./memory/index.js";
import type { CodePermissions } from "./permissions/index.js";
import type { Sandbox } from "./sandbox/create-sandbox.js";
import { type LoadedSettings, settingsLocations, settingsOf } from "./settings/load-settings.js";
import { hooksDisabled, settingsEnvironment } from "./settings/session-settings.js";
import type { Skill } from "./skills/index.js";
import type { AgentTool } from "./subagents/index.js";
import { SwitchableModel } from "./switchable-model.js";
import { codingSystemPrompt } from "./system-prompt.js";
import { withoutCredentials } from "./tools/bash.js";
import { createTodoStore, type TodoStore } from "./tools/todo-write.js";
import { Workspace } from "./workspace.js";

export type {
  ApprovalRequest,
  CodingAgentCheckpoints,
  CodingAgentDiagnostics,
  CodingAgentOptions,
  CodingRewindOptions,
  CodingRewindOutcome,
  CodingRunOptions,
  CodingRunResult,
  CommandRunOptions,
} from "./coding-agent-options.js";

/**
 * Claude Code's capabilities on minagent's loop, for any model: the built-in coding tools (Read, Write, Edit, Glob,
 * Grep, Bash, TodoWrite, WebFetch, and Plan Mode's two) over one workspace, the permission system (modes and rules from
 * settings files and code, compound shell commands split by a real parser) as the agent's `canUseTool`, and hooks
 * (Claude Code's events: PreToolUse, PermissionRequest and PermissionDenied in the permission decision, PostToolUse
 * and PostToolUseFailure around every tool, PostToolBatch between turns, PreCompact and PostCompact around a
 * compaction, UserPromptSubmit, Stop and SessionStart around each run, SessionEnd from {@link end}; `transcript_path`
 * is a file the agent keeps). The loop is the plain Agent's; effects run in the order the model gave.
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
  /** The skills found (the Skill tool offers those the model may load), for `/skills`. */
  readonly skills: readonly Skill[];
  /** The custom slash commands (`.claude/commands/*.md` and the rest): `list`, `find(name)`; run one with {@link runCommand}. */
  readonly commands: CustomCommands;
  /** The compactor (`/compact [focus]`: `agent.compactor?.compactNow(focus)`), unless compaction is off. */
  readonly compactor: Compactor | undefined;
  /** The MCP servers whose tools the agent offers (`/mcp`: `agent.mcp?.status()`), if any. */
  readonly mcp: McpServers | undefined;
  /** The OS sandbox Bash commands run in; `sandbox.status.enabled` says whether they really do. */
  readonly sandbox: Sandbox;
  /**
   * The session's checkpoints (the `checkpoints` option; `checkpoints.enabled: false` in settings turns them off):
   * the list `/rewind` shows, and the store {@link rewind} restores from. Undefined without them.
   */
  readonly checkpoints: Checkpoints | undefined;
  /** The language servers whose new errors follow each edit (the `diagnostics` option), unless off. */
  readonly diagnostics: Diagnostics | undefined;
  /** Conversations a rewind replaced in this process, by the rewind's checkpoint id: what undoing it brings back. */
  readonly #replaced = new Map<string, readonly Message[]>();
  /** Set by runCommand: its checkpoint is made before the command's shell lines run, not again by run. */
  #checkpointMade = false;
  /** Set by runCommand: its prompt's `@path` files are in it already, so run does not look for mentions again. */
  #commandExpanded = false;
  /**
   * What was left out so that the session could start, one line each: agent files that cannot be used, tools an
   * agent file names that there are not. The CLI prints them.
   */
  readonly warnings: readonly string[];
  #sessionContext: Promise<string | undefined> | undefined;
  /** The source of the next SessionStart: `startup`, or `clear` after `end("clear")`. */
  #nextSource: SessionStartSource = "startup";
  /** True once `end` ran, until a run starts the next session. */
  #ended = false;
  readonly #transcript: HookTranscript;
  readonly #commandModels: CommandModels;
  readonly #sessionModel: SwitchableModel;
  /** Whether the project's own commands' `allowed-tools` count (the folder is trusted). */
  readonly #projectCommandRules: boolean;

  private constructor(parts: {
    agent: Agent;
    workspace: Workspace;
    registry: ToolRegistry;
    permissions: CodePermissions;
    hooks: HookRunner;
    todos: TodoStore;
    memory: ProjectMemory;
    subagents: AgentTool | undefined;
    skills: readonly Skill[];
    commands: CustomCommands;
    compactor: Compactor | undefined;
    mcp: McpServers | undefined;
    sandbox: Sandbox;
    checkpoints: Checkpoints | undefined;
    diagnostics: Diagnostics | undefined;
    warnings: readonly string[];
    transcript: HookTranscript;
    commandModels: CommandModels;
    sessionModel: SwitchableModel;
    projectCommandRules: boolean;
  }) {
    this.agent = parts.agent;
    this.workspace = parts.workspace;
    this.registry = parts.registry;
    this.permissions = parts.permissions;
    this.hooks = parts.hooks;
    this.todos = parts.todos;
    this.memory = parts.memory;
    this.subagents = parts.subagents;
    this.skills = parts.skills;
    this.commands = parts.commands;
    this.compactor = parts.compactor;
    this.mcp = parts.mcp;
    this.sandbox = parts.sandbox;
    this.checkpoints = parts.checkpoints;
    this.diagnostics = parts.diagnostics;
    this.warnings = parts.warnings;
    this.#transcript = parts.transcript;
    this.#commandModels = parts.commandModels;
    this.#sessionModel = parts.sessionModel;
    this.#projectCommandRules = parts.projectCommandRules;
  }

  /** The session's model now: the one given to {@link create}, or the last {@link setModel}'s. */
  get model(): Model {
    return this.#sessionModel.current;
  }

  /**
   * Switches the session to `model` (the CLI's `/model`): the next run is answered by it, and so are compaction
   * (measured against its context window from the next turn), subagents whose model is `inherit`, and MCP sampling.
   * A custom command's `model` still answers its own run, and is mapped to the new model's provider. Call it
   * between runs; a run under way goes on with the model it started with for its next calls as well, except that its
   * `run-start` already named the old one. WebSearch keeps the first model (only it can search, on its provider's
   * side); agent files naming a model (`sonnet`) keep the mapping made when the agent was created.
   */
  setModel(model: Model): void {
    this.#sessionModel.replace(model);
  }

  /**
   * Ends what the agent keeps running between calls: the language servers, the sandbox's network namespace and proxy,
   * its temporary folder, the hooks' transcript file. It runs no hook: call {@link end} first when the session ends.
   */
  async close(): Promise<void> {
    await this.checkpoints?.flush();
    await this.diagnostics?.close();
    await this.sandbox.close();
    await this.#transcript.remove();
  }

  /**
   * Ends the session for the hooks: runs the SessionEnd hooks with `reason` (Claude Code's: `clear` for /clear,
   * `resume` for switching to another session, `prompt_input_exit` when the person leaves at the prompt, `other`,
   * as at the end of a `-p` run), once per session. The next run starts a new one: its SessionStart hooks run
   * again, with source `clear` after `end("clear")` (else `startup`, or `resume` when it goes on with a
   * conversation). Never rejects: a hook that fails is reported to `onHookRun`.
   */
  async end(reason: SessionEndReason, options: { signal?: AbortSignal | undefined } = {}): Promise<void> {
    if (this.#ended) return;
    this.#ended = true;
    this.#sessionContext = undefined;
    this.#nextSource = reason === "clear" ? "clear" : "startup";
    await this.hooks.runSessionEndHooks({ reason, signal: options.signal }).catch(() => {});
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
    // Claude Code's folder of the user's: its settings.json and CLAUDE.md count as the user's too.
    const claudeDirectory = options.claudeDirectory === false ? undefined : (options.claudeDirectory ?? join(home, ".claude"));
    const warnings: string[] = [];
    const settings = await settingsOf(options.settingsFiles ?? settingsLocations({ root: given.root, userDirectory, claudeDirectory }));
    const { permissions, workspace, sandbox } = await createBoundaries(given, settings, { ...options, home, userDirectory });
    // The settings' `env` reaches every command the agent starts, Bash's and hooks', as in Claude Code.
    const environment = settingsEnvironment(settings);
    warnings.push(...permissions.settings.warnings, ...environment.warnings);
    const commandEnv = Object.keys(environment.env).length === 0 ? undefined : environment.env;
    const sessionId = options.sessionId ?? globalThis.crypto.randomUUID();
    // The conversation as a file for hooks (transcript_path): written only when a hook is about to run.
    const transcript = new HookTranscript({ sessionId, cwd: workspace.root });
    const hooks = new HookRunner({
      sessionId,
      cwd: workspace.root,
      home,
      // `disableAllHooks` turns off the settings files' hooks; hooks given in code are the program's own and still run.
      settingsFiles: hooksDisabled(settings)
        ? []
        : settings.files.map((file) => ({ path: file.path, settings: file.settings as HookSettings })),
      ...(commandEnv && { env: { ...process.env, ...commandEnv } }),
      hooks: options.hooks,
      onHookRun: options.onHookRun,
      transcriptPath: () => transcript.sync(),
      permissionMode: () => permissions.mode,
    });
    warnings.push(...hooks.warnings);
    const checkpoints = await openCheckpoints(options, settings, workspace, sessionId, warnings);
    const diagnostics = await openDiagnostics(options, settings, workspace, warnings);
    // Checkpoints outside the hooks: a PostToolUse hook that formats the file changes what the rewind restores from.
    const withHooks = (tool: Tool): Tool => {
      const hooked =
        hooks.hasHooks("PostToolUse", tool.name) || hooks.hasHooks("PostToolUseFailure", tool.name)
          ? withPostToolUseHooks(tool, hooks)
          : tool;
      const diagnosed = diagnostics ? withDiagnostics(hooked, diagnostics, (path) => realPathOf(workspace, path)) : hooked;
      const recorded = checkpoints ? withCheckpoints(diagnosed, checkpoints, (path) => realPathOf(workspace, path)) : diagnosed;
      return options.onToolRun ? withRunNotice(recorded, options.onToolRun) : recorded;
    };
    const todos = options.todos ?? createTodoStore();
    const registry = new ToolRegistry(registryOptions);
    const bashEnv = commandEnv && { ...withoutCredentials(process.env), GIT_EDITOR: "true", ...commandEnv };
    // The session's model, which setModel replaces; WebSearch keeps the first one, whose provider searches (searchWeb).
    const sessionModel = new SwitchableModel(model);
    const webSearch = { model, options: options.webSearch };
    for (const tool of builtInTools(workspace, permissions, sandbox, todos, bashEnv, options.webFetch, webSearch))
      registry.add(withHooks(tool));
    for (const tool of options.tools ?? []) registry.add(withHooks(tool));
    // Before the subagents, so that their tools include Skill; a Skill tool given in `tools` is kept instead.
    const skills = await createSkills(options, {
      warn: (message) => warnings.push(message),
      claudeDirectory,
      workspace,
      userDirectory,
      permissions,
    });
    if (skills.tool && !registry.get(skills.tool.name)) registry.add(withHooks(skills.tool));
    const canUseTool = createHookedPermissionCheck({ hooks, permissions, askPerson: options.askPerson, unattended: options.unattended });
    const memory: ProjectMemory =
      options.memory === false
        ? { files: [], text: "", warnings: [] }
        : await loadProjectMemory({
            root: workspace.root,
            userDirectory,
            claudeDirectory,
            home,
            isReadDenied: (path) => permissions.isReadDenied(path),
            ...options.memory,
          });
    warnings.push(...memory.warnings);
    const subagents =
      options.subagents === false
        ? undefined
        : await createSubagents(sessionModel, options, {
            warn: (message) => warnings.push(message),
            env: bashEnv,
            claudeDirectory,
            workspace,
            userDirectory,
            registry,
            sandbox,
            permissions,
            canUseTool,
            memory,
            withHooks,
            // SubagentStart and SubagentStop run around each subagent; agent files' hooks share the session's id.
            hooks,
          });
    if (subagents) registry.add(withHooks(subagents));
    const commands = await loadCommands(options, { root: workspace.root, home, userDirectory, claudeDirectory });
    warnings.push(...commands.warnings);
    // A command's `model` answers its run: the Agent is given a model that stands for it then, the session's otherwise.
    // It is made as agent files' models are (the host's resolveModel). Compaction, subagents' `inherit` and MCP's
    // sampling keep the session's model: `sessionModel`, which setModel replaces.
    const commandModels = new CommandModels(
      sessionModel,
      commands.list,
      (options.subagents || undefined)?.resolveModel ?? ((spec) => resolveModel(spec)),
    );
    warnings.push(...commandModels.warnings);
    const compactor =
      options.compaction === false
        ? undefined
        : createCompactor({
            model: sessionModel,
            ...options.compaction,
            memory: () => memory.text || undefined,
            permissions: () => describePermissions(permissions),
            todos: () => describeTodos(todos.todos),
            beforeCompact: ({ trigger, focus, signal }) => hooks.runPreCompactHooks({ trigger, customInstructions: focus, signal }),
            afterCompact: ({ trigger, summary, signal }) => hooks.runPostCompactHooks({ trigger, compactSummary: summary ?? "", signal }),
          });
    const batchHooks = hooks.hasHooks("PostToolBatch") ? postToolBatchStep(hooks) : undefined;
    const listen = listenWith(compactor, options.onEvent);
    const agent = new Agent(commandModels.model, registry, {
      system: [codingSystemPrompt({ workspace, instructions: options.instructions }), memory.text].filter(Boolean).join("\n\n"),
      maxSteps: options.maxSteps ?? 50,
      ...(options.output !== undefined && { output: options.output }),
      canUseTool,
      onEvent: (event) => {
        transcript.listen(event);
        listen?.(event);
      },
      // MCP tools first, so that the compactor measures the tools that will be sent.
      prepareTurn:
        options.mcp || compactor || batchHooks
          ? chainPrepareTurns(
              options.mcp?.prepareTurn(registry, {
                wrap: withHooks,
                deferTools: options.deferMcpTools ?? { aboveTokens: Math.round(contextWindowOf(model.modelId) / 10) },
              }),
              options.prepareTurn,
              batchHooks,
              compactor,
            )
          : options.prepareTurn,
    });
    if (options.mcp) connectMcpToSession(options.mcp, sessionModel, permissions, options);
    return new CodingAgent({
      agent,
      workspace,
      registry,
      permissions,
      hooks,
      todos,
      memory,
      subagents,
      skills: skills.skills,
      commands,
      compactor,
      mcp: options.mcp,
      sandbox,
      checkpoints,
      diagnostics,
      warnings,
      transcript,
      commandModels,
      sessionModel,
      projectCommandRules: (options.commands || undefined)?.projectAllowedTools !== false,
    });
  }

  /**
   * Runs one prompt: the UserPromptSubmit hooks first (they may block it or add context), the SessionStart hooks'
   * context before the first prompt of a conversation, then the loop; when it completes, the Stop hooks may send
   * the agent back to work (at most `maxStopContinuations` times in a row).
   */
  async run(prompt: string, options: CodingRunOptions = {}): Promise<CodingRunResult> {
    if (!this.#checkpointMade) this.#beginPrompt(prompt, options);
    this.#checkpointMade = false;
    // A command's prompt has had its `@path` files put in already; those files' own `@`s are not mentions.
    const commandExpanded = this.#commandExpanded;
    this.#commandExpanded = false;
    const submitted = await this.hooks.runUserPromptSubmitHooks(prompt, options.signal);
    if ("blocked" in submitted && submitted.blocked !== undefined)
      return blockedResult(submitted.blocked, "UserPromptSubmit", options.history);
    // A new conversation gets the SessionStart context; so does the first run of a session going on with one.
    const fresh = !options.history?.length;
    const sessionContext =
      fresh || !this.#sessionContext ? await this.#startSession(options.signal, fresh ? this.#nextSource : "resume") : undefined;
    // `@server:uri` mentions bring the resource's text along, as Claude Code's do; the hooks saw the prompt as typed.
    const typed = (submitted as { input: string }).input;
    const attachment = this.mcp ? await attachResourceMentions(typed, this.mcp, options) : undefined;
    if (attachment && attachment.attached.length + attachment.notes.length > 0) options.onResourcesAttached?.(attachment);
    const files = await this.#attachFiles(typed, commandExpanded, options);
    const prompted = [attachment?.prompt ?? typed, ...files.blocks].join("\n\n");
    const input = sessionContext ? `${sessionContext}\n\n${prompted}` : prompted;
    return this.#stoppable(async () => this.#untilStopped(await this.agent.run(input, options), options), options.history);
  }

  /**
   * Makes a custom command's prompt (`/review src/a.ts` is `expandCommand("review", "src/a.ts")`): its arguments put in,
   * its `` !`shell` `` lines run and their output in their place, its `@path` files after it. Files are read with the
   * Read tool and shell lines run with the Bash tool, each judged like the model's call (with the command's
   * `allowed-tools` allowed meanwhile): what may not run or be read is a note in the prompt and in `notes`. Throws a
   * UsageError for a name no command has.
   */
  async expandCommand(
    command: CustomCommand | string,
    args = "",
    options: { signal?: AbortSignal | undefined } = {},
  ): Promise<ExpandedCommand> {
    const found = this.#command(command);
    return withAllowRules(this.permissions, this.#allowedToolsOf(found), allowedToolsSource(found), () =>
      expandCustomCommand(found, args, createCommandTools(this), options),
    );
  }

  /**
   * Runs a custom command: {@link expandCommand}, then {@link run} with its prompt. The command's `allowed-tools` are
   * allow rules for this run only (deny and ask rules still beat them), and its `model` (`haiku`, a Claude id,
   * `provider:model`, mapped to the session's provider as agent files' are) answers this run; both are gone when it
   * ends, however it ends, and the next prompt is the session's model's. A model that cannot be made is a UsageError,
   * before anything runs; an interrupted run's {@link resume} is answered by the session's model.
   */
  async runCommand(command: CustomCommand | string, args = "", options: CommandRunOptions = {}): Promise<CodingRunResult> {
    const found = this.#command(command);
    return this.#commandModels.run(found, () =>
      withAllowRules(this.permissions, this.#allowedToolsOf(found), allowedToolsSource(found), async () => {
        // Before the command's shell lines, which may change files too.
        this.#beginPrompt(`/${found.name}${args ? ` ${args}` : ""}`, options);
        this.#checkpointMade = true;
        const expansion = await expandCustomCommand(found, args, createCommandTools(this), options);
        options.onExpanded?.(expansion);
        this.#commandExpanded = true;
        return this.run(expansion.prompt, options);
      }),
    );
  }

  /**
   * The files and folders a prompt mentions as `@path` (Claude Code's mentions), read as the Read tool would read
   * them and judged as its calls are, to go after the prompt; `@server:uri` resource mentions are the MCP servers'.
   */
  async #attachFiles(typed: string, commandExpanded: boolean, options: CodingRunOptions): Promise<FileMentions> {
    if (commandExpanded || !typed.includes("@")) return { attached: [], notes: [], blocks: [] };
    const servers = new Set(this.mcp?.status().map(({ name }) => name));
    const files = await attachFileMentions(typed, createMentionReader(this), {
      signal: options.signal,
      skip: (reference) => servers.has(reference.split(":")[0] as string) && reference.includes(":"),
    });
    if (files.attached.length + files.notes.length > 0) options.onFilesAttached?.(files);
    return files;
  }

  /** A command's `allowed-tools`, unless it is the project's own and the person did not trust the folder. */
  #allowedToolsOf(command: CustomCommand): readonly string[] {
    return command.scope === "project" && !this.#projectCommandRules ? [] : command.allowedTools;
  }

  #command(command: CustomCommand | string): CustomCommand {
    if (typeof command !== "string") return command;
    const found = this.commands.find(command.replace(/^\//, ""));
    if (!found) throw new UsageError(`No custom command /${command.replace(/^\//, "")}: ${describeCommandNames(this.commands)}.`);
    return found;
  }

  /** Goes on with an interrupted run once its pending calls are decided (see `Agent.resume`); Stop hooks apply as in {@link run}. */
  async resume(
    state: RunResult | string,
    decisions: ApprovalDecisions,
    options: Omit<CodingRunOptions, "history"> = {},
  ): Promise<CodingRunResult> {
    return this.#stoppable(async () => this.#untilStopped(await this.agent.resume(state, decisions, options), options), undefined);
  }

  /**
   * Goes back to before a checkpoint (its number as `/rewind` lists it, or its id): the files the agent changed since
   * are restored (`code`, default true) and, with `conversation` (the conversation now), `history` in the outcome is
   * the conversation as it was before that prompt — go on with it as the next run's history. The rewind is a
   * checkpoint itself: rewinding to before it undoes it (its conversation comes back from this process's memory,
   * or from `conversationBefore`, which a session store answers). A file changed after the agent's last change to
   * it stops the rewind before anything changes (`onConflict: "refuse"`, a RewindConflictError naming the files),
   * is left alone (`"keep"`) or is restored anyway (`"overwrite"`). A UsageError without checkpoints, for an
   * unknown checkpoint, or for a conversation that cannot be found.
   * @example
   * const outcome = await agent.rewind(2, { conversation: result.messages });
   * await agent.run("Try again, without touching the tests.", { history: outcome.history });
   */
  async rewind(target: string | number, options: CodingRewindOptions = {}): Promise<CodingRewindOutcome> {
    const checkpoints = this.checkpoints;
    if (!checkpoints) throw new UsageError("This agent keeps no checkpoints: create it with the `checkpoints` option.");
    const to = checkpoints.find(target);
    const history =
      options.conversation === undefined ? undefined : await this.#conversationBefore(to, options.conversation, options.conversationBefore);
    const outcome = await checkpoints.rewind(to.id, {
      code: options.code,
      conversation: options.conversation,
      onConflict: options.onConflict,
    });
    if (options.conversation !== undefined) this.#replaced.set(outcome.checkpoint.id, options.conversation.slice());
    return { ...outcome, history };
  }

  async #conversationBefore(
    to: Checkpoint,
    now: readonly Message[],
    lookUp: CodingRewindOptions["conversationBefore"],
  ): Promise<Message[]> {
    const { length, fingerprint } = to.conversation;
    const last = now[length - 1];
    if (now.length >= length && (length === 0 ? fingerprint === undefined : last !== undefined && fingerprintOf(last) === fingerprint))
      return now.slice(0, length);
    const remembered = this.#replaced.get(to.id);
    if (remembered) return remembered.slice();
    const found = await lookUp?.(to.id);
    if (found) return found.slice();
    throw new UsageError(
      `The conversation before checkpoint ${to.number} is not in the conversation given (a compaction replaced it) and could not be found; rewind the code only ({ code: true } without conversation).`,
    );
  }

  #beginPrompt(prompt: string, options: CodingRunOptions): void {
    const checkpoint = this.checkpoints?.beginPrompt(prompt, options.history ?? []);
    if (checkpoint) options.onCheckpoint?.(checkpoint);
  }

  /** A PostToolBatch hook's stop is how the run ends, not an error: a blocked result with the conversation so far. */
  async #stoppable(run: () => Promise<RunResult>, history: readonly Message[] | undefined): Promise<CodingRunResult> {
    try {
      return await run();
    } catch (error) {
      if (!(error instanceof PostToolBatchStop)) throw error;
      const conversation = [...(conversationOf(error) ?? history ?? []), { role: "user" as const, content: `[${error.message}]` }];
      return blockedResult(error.message, "PostToolBatch", conversation);
    }
  }

  /** Runs the Stop hooks after a completed run; each continuation goes on with the conversation, and the result covers them all. */
  async #untilStopped(first: RunResult, options: Omit<CodingRunOptions, "history">): Promise<RunResult> {
    let result = first;
    for (let continuations = 0; result.status === "completed"; continuations++) {
      const verdict = await this.hooks.runStopHooks(result, { continuations, signal: options.signal });
      if (!verdict) break;
      // The prompt's images went with the prompt; a Stop hook's continuation is words only.
      const next = await this.agent.run(verdict.continue, { ...options, parts: undefined, history: result.messages });
      const usage = emptyUsage();
      addUsage(usage, result.usage);
      addUsage(usage, next.usage);
      const steps = [...result.steps, ...next.steps.map((step) => ({ ...step, index: step.index + result.turns }))];
      result = { ...next, usage, steps, turns: result.turns + next.turns };
    }
    return result;
  }

  #startSession(signal: AbortSignal | undefined, source: SessionStartSource): Promise<string | undefined> {
    this.#ended = false;
    this.#sessionContext ??= this.hooks.runSessionStartHooks({ signal, source }).then((outcome) => {
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

/**
 * What the session answers MCP servers with: the person for elicitation, its model for sampling (judged as a call),
 * and its folders as roots (servers connected with roots are told when they change).
 */
function connectMcpToSession(mcp: McpServers, model: Model, permissions: CodePermissions, options: CodingAgentOptions): void {
  if (options.elicit) mcp.setElicitationHandler(options.elicit);
  if (options.mcpSampling !== false)
    mcp.setSamplingHandler(
      createSessionSampler({
        model: options.mcpSampling?.model ?? model,
        permissions,
        askPerson: options.askPerson,
        onEvent: options.onEvent,
        prepareTurn: options.prepareTurn,
      }),
    );
  void mcp.setRoots(permissions.directories);
}

/** The custom commands: the files' (unless `commands` is `false`), then those given in code. */
async function loadCommands(
  options: CodingAgentOptions,
  folders: { root: string; home: string; userDirectory: string; claudeDirectory: string | undefined },
): Promise<CustomCommands> {
  if (options.commands === false) return customCommandSet([]);
  const loaded = await loadCustomCommands(folders);
  const given = options.commands?.definitions ?? [];
  return given.length === 0 ? loaded : customCommandSet([...loaded.list, ...given], loaded.warnings);
}

function blockedResult(reason: string, blockedBy: CodingRunResult["blockedBy"], history: readonly Message[] | undefined): CodingRunResult {
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
    blockedBy,
  };
}

/** The session's checkpoints, when the `checkpoints` option asks and the settings do not turn them off. */
async function openCheckpoints(
  options: CodingAgentOptions,
  settings: LoadedSettings,
  workspace: Workspace,
  sessionId: string,
  warnings: string[],
): Promise<Checkpoints | undefined> {
  if (!options.checkpoints) return undefined;
  const read = readCheckpointSettings(settings);
  warnings.push(...read.warnings);
  const { directory, forkedFrom, onNote, scrub, ...given } = options.checkpoints;
  const chosen = { ...read.settings, ...definedOnly(given) };
  if (chosen.enabled === false) return undefined;
  return Checkpoints.open({
    directory,
    sessionId,
    forkedFrom,
    roots: workspace.directories,
    exclude: chosen.exclude,
    gitignore: chosen.gitignore,
    maxFileBytes: chosen.maxFileBytes,
    maxFiles: chosen.maxFiles,
    maxCheckpoints: chosen.maxCheckpoints,
    scrub,
    onNote,
  });
}

/** The session's language servers, when the `diagnostics` option asks and the settings do not turn them off. */
async function openDiagnostics(
  options: CodingAgentOptions,
  settings: LoadedSettings,
  workspace: Workspace,
  warnings: string[],
): Promise<Diagnostics | undefined> {
  if (!options.diagnostics) return undefined;
  const { servers: given = [], ...caps } = options.diagnostics === true ? {} : options.diagnostics;
  const read = readLanguageServerSettings(settings);
  warnings.push(...read.warnings);
  const servers = [...read.servers.filter((server) => !given.some((other) => other.name === server.name)), ...given];
  if (servers.length === 0) return undefined;
  const diagnostics = await Diagnostics.create({
    root: workspace.root,
    servers,
    display: (path) => workspace.display(path),
    ...definedOnly(caps),
  });
  warnings.push(...diagnostics.warnings);
  return diagnostics;
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined)) as Partial<T>;
}

/** The file a file tool's path leads to (a symlink is written through): what its checkpoint must keep. */
async function realPathOf(workspace: Workspace, path: string): Promise<string> {
  const absolute = await workspace.resolve(path);
  return realpath(absolute).catch(() => absolute);
}

/** The tool, telling `onToolRun` as each call starts running: only calls allowed to run get this far. */
function withRunNotice(tool: Tool, onToolRun: NonNullable<CodingAgentOptions["onToolRun"]>): Tool {
  const execute: Tool["execute"] = async (args, context) => {
    // What the listener reads before the call (an editor's diff base) must be read before the tool changes it.
    await onToolRun({ id: context.toolCallId, name: tool.name });
    return tool.execute(args, context);
  };
  return Object.create(tool, { execute: { value: execute, enumerable: true, writable: true, configurable: true } }) as Tool;
}
