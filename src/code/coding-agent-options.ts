// What a CodingAgent is made with and what its runs take and give: apart from the class, so that the steps that
// build it (coding-agent-parts.ts) read these types without importing the class.
import type {
  AgentEventListener,
  ApprovalDecision,
  ContentPart,
  Message,
  Model,
  OutputSchema,
  PrepareTurn,
  RunResult,
  Tool,
  ToolCall,
} from "../engine.js";
import type { AttachedResources, DeferTools, McpElicitationHandler, McpServers } from "../mcp/index.js";
import type { Checkpoint, CheckpointSettings, RewindConflictPolicy, RewindOutcome } from "./checkpoints/index.js";
import type { CustomCommand, ExpandedCommand, FileMentions } from "./commands/index.js";
import type { CompactorOptions } from "./compaction/index.js";
import type { DiagnosticsOptions, LanguageServerConfig } from "./diagnostics/index.js";
import type { HookConfiguration, HookRunReport } from "./hooks/index.js";
import type { ProjectMemoryOptions } from "./memory/index.js";
import type { PermissionMode } from "./permissions/index.js";
import type { NetworkRequest } from "./sandbox/network-proxy.js";
import type { SandboxSettings } from "./sandbox/sandbox-settings.js";
import type { SettingsInput } from "./settings/load-settings.js";
import type { SubagentBudget, SubagentDefinition, SubagentLimits } from "./subagents/index.js";
import type { TodoStore } from "./tools/todo-write.js";
import type { WebFetchOptions } from "./tools/web-fetch.js";
import type { WebSearchToolOptions } from "./tools/web-search.js";
import type { Workspace } from "./workspace.js";

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
   * as the CLI does once per session) or paths to read. Default: Claude Code's and minagent's at each level
   * (`settingsLocations`): `settings.json` in `claudeDirectory` and in `userDirectory`, the project's
   * `.claude/settings.json` and `.minagent/settings.json`, then their `settings.local.json`; `[]` reads none.
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
  /** What each run's answer must be (the engine's `AgentOptions.output`): the result's `output` is the validated value. */
  output?: OutputSchema | undefined;
  /** Receives every event of every run. */
  onEvent?: AgentEventListener | undefined;
  /**
   * Told as a call's tool starts running: after the permission check, the person's approval if one was asked, and
   * PreToolUse hooks — a refused call never gets here (an editor shows the call in progress from then on). Calls of
   * subagents too, under their own ids. A promise it returns is waited for before the tool runs (what it reads
   * first is the file as it was before the call); a rejection is the call's error.
   */
  onToolRun?: ((call: { id: string; name: string }) => unknown) | undefined;
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
  /**
   * Asked, while the server's tool call waits, when an MCP server wants something from the person (`elicitation/create`:
   * a form, or a URL to open); the CLI puts it to the person through the same queue as permission prompts. Set on
   * `mcp` when the agent is made (`mcp.setElicitationHandler`); without it, `mcp`'s own handler stays.
   */
  elicit?: McpElicitationHandler | undefined;
  /**
   * MCP servers' sampling requests (`sampling/createMessage`): run on the agent's model (or `model`), judged like a
   * tool call named `McpSampling` with the server as argument: the rule `McpSampling(github)` allows that server,
   * `McpSampling` every server; otherwise `askPerson` is asked, and without one the request is refused. The model
   * call's events go to `onEvent` and it runs after `prepareTurn`, so a budget guard counts it. `false`: `mcp`'s own
   * handler stays. Default: on whenever `mcp` is given.
   */
  mcpSampling?: false | { model?: Model | undefined } | undefined;
  /**
   * The WebFetch tool (`false`: none). `model` is a small model that answers each call's `prompt` over the fetched
   * page in one call (Claude Code uses its small fast model); without it the page's Markdown is the result, up to
   * `maxMarkdownCharacters`, saying that no model answered. The caps (`maxBodyBytes`, 10 MB; `timeoutMs`, 30 s;
   * `cacheMs`, 15 minutes) have defaults. Which hosts it may fetch is the permissions' say: `WebFetch(domain:…)`
   * rules, and a loopback, link-local or private address only for a host an allow rule names itself.
   */
  webFetch?: false | WebFetchOptions | undefined;
  /**
   * The WebSearch tool (`false`: none). By default it searches through the session model's provider, as Claude Code
   * does with Anthropic's: Anthropic's web search tool (`AnthropicModel`) or OpenAI's `web_search`
   * (`OpenAIResponsesModel`), one separate call of the model that may only search. With any other model it answers
   * that web search is not available, unless `search` gives a backend of your own, which is then used for every
   * search (results outside `allowed_domains` or inside `blocked_domains` are dropped). A person approves each search
   * unless an allow rule `WebSearch` allows it.
   * @example
   * webSearch: { search: async (query) => (await mySearchApi(query)).map((hit) => ({ title: hit.name, url: hit.link })) }
   */
  webSearch?: false | WebSearchToolOptions | undefined;
  /** The session's id, sent to hooks and naming its checkpoints (default: a random one). */
  sessionId?: string | undefined;
  /**
   * Checkpoints before every prompt, so that {@link CodingAgent.rewind} can undo what the agent did — Write, Edit
   * and every shell command — and the conversation with it (docs/code.md, Checkpoints). Off unless given; the
   * settings files' `checkpoints` object (enabled, exclude, gitignore, caps) applies, these fields over it.
   */
  checkpoints?: CodingAgentCheckpoints | undefined;
  /**
   * Diagnostics after edits (docs/code.md, "Diagnostics after edits"): after a Write, Edit or NotebookEdit of a file a
   * language server serves, the errors the change brought to that file (as the server reports them) are appended to
   * the tool's result. The servers are the settings files' `lsp` object's, over the built-in TypeScript one (used only
   * when `typescript-language-server` is in the workspace's node_modules/.bin or on PATH), then `servers`; each starts
   * on first need and is stopped by {@link CodingAgent.close}. Off unless given (`minagent code` turns it on); `false`
   * or `"lsp": false` in settings turns it off.
   */
  diagnostics?: boolean | CodingAgentDiagnostics | undefined;
  /** The checklist TodoWrite keeps (default: a new one; read it as `agent.todos.todos`). */
  todos?: TodoStore | undefined;
  /** The home directory for `~` in rules and the user's settings file (default: the user's). */
  home?: string | undefined;
  /** The user's minagent folder, holding memory files and `agents/` (default `<home>/.minagent`; the CLI passes MINAGENT_HOME's). */
  userDirectory?: string | undefined;
  /**
   * Claude Code's folder of the user's, whose `settings.json` and `CLAUDE.md` are read as the user's too (default
   * `<home>/.claude`; the CLI passes `CLAUDE_CONFIG_DIR`'s when set); `false` reads neither.
   */
  claudeDirectory?: string | false | undefined;
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
  /**
   * Skills (src/code/skills/README.md): the `SKILL.md` folders of `~/.minagent/skills`, `~/.claude/skills`
   * (`claudeDirectory`), and the project's `.minagent/skills` and `.claude/skills`, offered through the `Skill` tool
   * when there is at least one (the tool lists names and descriptions; the model loads the rest). The user's skill wins
   * over the project's of the same name, as in Claude Code. `false` reads none; `maxListingCharacters` caps the
   * descriptions listed (default 8,000).
   */
  skills?: false | { maxListingCharacters?: number | undefined } | undefined;
  /**
   * Custom slash commands (docs/code.md, "Custom commands"): the Markdown files of the project's `.claude/commands/`
   * and `.minagent/commands/` and of the user's `commands/` folders (`claudeDirectory`'s and `userDirectory`'s),
   * sub-folders as namespaces (`frontend/component.md` is `/frontend:component`); the user's replaces the project's of
   * the same name, as in Claude Code. `agent.commands` lists them, `agent.runCommand` runs one. `false` reads none;
   * `definitions` adds commands given in code (after the files'; one of the same name replaces theirs).
   * `projectAllowedTools: false` (a folder the person did not trust): the project's own commands' `allowed-tools`
   * allow nothing, so a cloned repository's command cannot pre-approve its shell lines or the model's calls.
   */
  commands?: false | { definitions?: readonly CustomCommand[] | undefined; projectAllowedTools?: boolean | undefined } | undefined;
  /** Subagents (the Agent tool); `false` leaves the tool out. */
  subagents?:
    | false
    | {
        /** More types, after the built-in ones and the files' (a type of the same name replaces theirs). */
        definitions?: readonly SubagentDefinition[] | undefined;
        limits?: Partial<SubagentLimits> | undefined;
        /** The session's budget (the CLI's --max-budget-usd). */
        budget?: SubagentBudget | undefined;
        /**
         * Makes a definition's model, and a custom command's (`model:` in either; default: minagent's
         * resolveModel): a `provider:model` string, or Claude Code's `sonnet`, `opus`, `haiku` mapped to the
         * session's provider (`modelAliases`).
         */
        resolveModel?: ((spec: string) => Model | Promise<Model>) | undefined;
        /**
         * `false`: the project's own agent files that have hooks are not used, each a warning — for a folder the
         * person did not trust (`describeProjectAgentHooks(root)` lists what they would run). Default: used.
         */
        projectHooks?: boolean | undefined;
      }
    | undefined;
};

/** Options of one {@link CodingAgent} run. */
export type CodingRunOptions = {
  /** The conversation so far (a loaded session's messages): the run continues it. */
  history?: readonly Message[] | undefined;
  /** Images and documents that go with the prompt (a pasted screenshot, a PDF the editor embeds). */
  parts?: readonly ContentPart[] | undefined;
  /** Aborts the run (Esc, Ctrl-C). */
  signal?: AbortSignal | undefined;
  /** Receives this run's events (and its child runs'). */
  onEvent?: AgentEventListener | undefined;
  /** Ask the model to stream, so listeners get text deltas as they arrive. */
  stream?: boolean | undefined;
  /** Told of the checkpoint made before this prompt (a session records where it stands). Called before the run starts. */
  onCheckpoint?: ((checkpoint: Checkpoint) => void) | undefined;
  /** Told which `@server:uri` mentions of the prompt had their MCP resource attached, and why others did not. */
  onResourcesAttached?: ((attachment: AttachedResources) => void) | undefined;
  /**
   * Told which `@path` mentions of the prompt brought a file's contents or a folder's listing along, and why others
   * did not (outside the workspace, denied by a Read rule, not there). Not called for a custom command's prompt,
   * whose files `onExpanded` tells of.
   */
  onFilesAttached?: ((mentions: FileMentions) => void) | undefined;
};

/** Where a {@link CodingAgent} keeps its checkpoints, and what they cover (the settings' `checkpoints` keys, over them). */
export type CodingAgentCheckpoints = Omit<CheckpointSettings, "maxStoreBytes"> & {
  /** The store (`minagent code` uses `<data directory>/checkpoints`): shared by sessions, one log per session. */
  directory: string;
  /** A fork's parent session: the fork's checkpoints start as a copy of its. */
  forkedFrom?: string | undefined;
  /** Told what a person should know: old checkpoints pruned, a workspace too large to scan around commands. */
  onNote?: ((note: string) => void) | undefined;
  /** Hides secrets in the prompt text a checkpoint keeps. */
  scrub?: ((text: string) => string) | undefined;
};

/** How a {@link CodingAgent} diagnoses edits: caps and time limits, and servers given in code. */
export type CodingAgentDiagnostics = Pick<
  DiagnosticsOptions,
  "timeoutMs" | "settleMs" | "startTimeoutMs" | "maxErrors" | "maxCharacters" | "maxFileCharacters" | "searchPath" | "workspaceBin"
> & {
  /** More servers, after the settings files' (one of the same name replaces theirs). */
  servers?: readonly LanguageServerConfig[] | undefined;
};

/** Options of {@link CodingAgent.rewind}. */
export type CodingRewindOptions = {
  /** Restore the files (default true). */
  code?: boolean | undefined;
  /** The conversation now: give it to rewind the conversation too (the outcome's `history`). */
  conversation?: readonly Message[] | undefined;
  /** What to do with files changed after the agent's last change to them (default `refuse`). */
  onConflict?: RewindConflictPolicy | undefined;
  /** Finds the conversation as it stood at a checkpoint when the one given no longer holds it (a session file replayed). */
  conversationBefore?: ((checkpointId: string) => Promise<readonly Message[] | undefined>) | undefined;
};

/** What {@link CodingAgent.rewind} did, and the conversation to go on with when it was asked for. */
export type CodingRewindOutcome = RewindOutcome & {
  /** The conversation before the checkpoint (with `conversation`): the next run's history. */
  history: Message[] | undefined;
};

/** Options of a {@link CodingAgent.runCommand} run: a run's, and who hears of the prompt it sends. */
export type CommandRunOptions = CodingRunOptions & {
  /** Told of the expanded prompt before it is sent (its notes: a file not included, a shell line refused). */
  onExpanded?: ((expansion: ExpandedCommand) => void) | undefined;
};

/**
 * How a {@link CodingAgent} run ends: the engine's result, or `status: "blocked"` when a hook stopped it: a
 * UserPromptSubmit hook blocked the prompt (nothing was sent to the model; `messages` is the history as given), or a
 * PostToolBatch hook stopped the run before its next model call (`messages` is the conversation so far, ending with
 * a note of why, so that the model reads it when the conversation goes on).
 */
export type CodingRunResult = Omit<RunResult, "status"> & {
  status: RunResult["status"] | "blocked";
  /** The hook's reason, when one stopped the run. */
  blocked?: string | undefined;
  /** Which event's hook stopped the run, with `blocked`. */
  blockedBy?: "UserPromptSubmit" | "PostToolBatch" | undefined;
};
