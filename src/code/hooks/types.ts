/**
 * The hooks' vocabulary: the events, what a hook receives (its input) and what it may answer (its result), and
 * how hooks are configured. In-process hooks get these inputs and return these results; command hooks get the
 * same input as Claude Code's JSON on stdin (snake_case keys) and answer with Claude Code's JSON or exit codes,
 * which are read into these results (see `read-hook-output.ts`).
 */

/** The events a hook can listen to (Claude Code's names). */
export type HookEventName =
  | "PreToolUse"
  | "PermissionRequest"
  | "PermissionDenied"
  | "PostToolUse"
  | "PostToolUseFailure"
  | "PostToolBatch"
  | "UserPromptSubmit"
  | "Notification"
  | "Stop"
  | "SubagentStart"
  | "SubagentStop"
  | "PreCompact"
  | "PostCompact"
  | "SessionStart"
  | "SessionEnd";

/** Every {@link HookEventName}, in the order an agent meets them. */
export const hookEventNames: readonly HookEventName[] = [
  "SessionStart",
  "UserPromptSubmit",
  "PreToolUse",
  "PermissionRequest",
  "PermissionDenied",
  "PostToolUse",
  "PostToolUseFailure",
  "PostToolBatch",
  "Notification",
  "SubagentStart",
  "SubagentStop",
  "PreCompact",
  "PostCompact",
  "Stop",
  "SessionEnd",
];

/** What every hook receives. */
export type HookInputBase<E extends HookEventName> = {
  hookEventName: E;
  /** The session the hook runs in (the host chooses it; the same for every hook of a session). */
  sessionId: string;
  /** The folder the agent works in; command hooks also run there. */
  cwd: string;
  /**
   * A JSON Lines file with the conversation so far, one message a line (Claude Code's line shape: see the hooks
   * README), when the host keeps one (CodingAgent does). It may lag the conversation by the message being written.
   */
  transcriptPath?: string | undefined;
  /** The agent's permission mode when the hook runs (`default`, `plan`, `acceptEdits`, `dontAsk`, `bypassPermissions`), when the host says. */
  permissionMode?: string | undefined;
  /** Set when the hook runs inside a subagent: its id. */
  agentId?: string | undefined;
  /** Set when the hook runs inside a subagent: its type (`Explore`, a custom agent's name). */
  agentType?: string | undefined;
};

/** Before a tool call runs, after its arguments are validated. */
export type PreToolUseHookInput = HookInputBase<"PreToolUse"> & {
  toolName: string;
  /** The arguments as validated, or as the hooks before this one rewrote them. Read-only: return `updatedInput` to change them. */
  toolInput: Record<string, unknown>;
  /** The id of the model's tool call. */
  toolUseId: string;
};

/** A call a person would be asked about (or, with nobody to ask, one that would be denied): the hook may answer instead. */
export type PermissionRequestHookInput = HookInputBase<"PermissionRequest"> & {
  toolName: string;
  /** The arguments the person would be asked about (as PreToolUse hooks left them). */
  toolInput: Record<string, unknown>;
};

/** A call the permission mode denied with nobody asked (dontAsk, plan mode, or `-p` where nobody can approve). */
export type PermissionDeniedHookInput = HookInputBase<"PermissionDenied"> & {
  toolName: string;
  toolInput: Record<string, unknown>;
  toolUseId: string;
  /** Why it was denied: what the model reads. */
  reason: string;
};

/** After a tool call returned (and, in minagent, after one that threw a ToolError: see the README). */
export type PostToolUseHookInput = HookInputBase<"PostToolUse"> & {
  toolName: string;
  /** The arguments the tool ran with. */
  toolInput: Record<string, unknown>;
  toolUseId: string;
  /** What the tool returned, or what the hooks before this one replaced it with. */
  toolResponse: unknown;
  /** How long the tool ran, in milliseconds. */
  durationMs?: number | undefined;
};

/** After a tool call that started failed (it threw, or timed out). */
export type PostToolUseFailureHookInput = HookInputBase<"PostToolUseFailure"> & {
  toolName: string;
  toolInput: Record<string, unknown>;
  toolUseId: string;
  /** The error as the model reads it. */
  error: string;
  /** True when the failure was an abort rather than an error the tool reported. */
  isInterrupt: boolean;
  durationMs?: number | undefined;
};

/** One call of a turn, as {@link PostToolBatchHookInput} lists it. */
export type ToolBatchCall = {
  toolName: string;
  toolInput: Record<string, unknown>;
  toolUseId: string;
  /** The result as the model reads it (the observation's text). */
  toolResponse: string;
};

/** Every call of a turn has ended; the next model call is about to be made. */
export type PostToolBatchHookInput = HookInputBase<"PostToolBatch"> & { toolCalls: ToolBatchCall[] };

/** A prompt from the user, before the model sees it. */
export type UserPromptSubmitHookInput = HookInputBase<"UserPromptSubmit"> & { prompt: string };

/** Claude Code's notification types (a Notification matcher matches them); minagent sends `permission_prompt` and `idle_prompt`. */
export type NotificationType = "permission_prompt" | "idle_prompt" | (string & {});

/** The host waits on the person (an approval prompt left unanswered, an idle prompt). */
export type NotificationHookInput = HookInputBase<"Notification"> & {
  message: string;
  title?: string | undefined;
  notificationType: NotificationType;
};

/** The agent answered and would stop. */
export type StopHookInput = HookInputBase<"Stop"> & {
  /** True when the agent is already going on because a Stop hook asked it to: check it to avoid endless loops. */
  stopHookActive: boolean;
  /** The agent's final answer. */
  lastAssistantMessage: string;
};

/** A subagent starts (before its first model call). */
export type SubagentStartHookInput = HookInputBase<"SubagentStart"> & { agentId: string; agentType: string };

/** A subagent answered and would stop. */
export type SubagentStopHookInput = HookInputBase<"SubagentStop"> & {
  agentId: string;
  agentType: string;
  /** True when the subagent is already going on because a SubagentStop hook asked it to. */
  stopHookActive: boolean;
  /** The subagent's final answer. */
  lastAssistantMessage: string;
  /** The subagent's own transcript, when the host keeps one. */
  agentTranscriptPath?: string | undefined;
};

/** What started a compaction: `/compact` (`manual`) or the context nearing the window (`auto`); the matcher matches it. */
export type CompactionTrigger = "manual" | "auto";

/** A compaction is about to run. */
export type PreCompactHookInput = HookInputBase<"PreCompact"> & {
  trigger: CompactionTrigger;
  /** What the person passed to `/compact`; empty for `auto`. */
  customInstructions: string;
};

/** A compaction has run. */
export type PostCompactHookInput = HookInputBase<"PostCompact"> & {
  trigger: CompactionTrigger;
  /** The summary written, or empty when only old tool results were cleared. */
  compactSummary: string;
};

/** Why a session starts (Claude Code's values); a SessionStart matcher matches it. */
export type SessionStartSource = "startup" | "resume" | "clear" | "compact";

/** A session starts. */
export type SessionStartHookInput = HookInputBase<"SessionStart"> & { source: SessionStartSource };

/** Why a session ends (Claude Code's values); a SessionEnd matcher matches it. */
export type SessionEndReason = "clear" | "resume" | "logout" | "prompt_input_exit" | "other";

/** A session ends (the CLI exits, `/clear`, `/resume`). */
export type SessionEndHookInput = HookInputBase<"SessionEnd"> & { reason: SessionEndReason };

/** What a PreToolUse hook may answer. Nothing (or `{}`) lets the other checks decide. */
export type PreToolUseHookResult = {
  /**
   * `deny`: the call does not run and the model reads `reason`. `ask`: a person decides (with nobody to ask, the
   * call is denied). `allow`: the mode's prompt is skipped (deny and ask rules still hold).
   */
  decision?: "allow" | "deny" | "ask" | undefined;
  /** Why: the model reads it on `deny`; the person sees it on `ask`. */
  reason?: string | undefined;
  /** Arguments that replace the call's (the whole object, validated again against the tool's schema). */
  updatedInput?: Record<string, unknown> | undefined;
};

/** What a PermissionRequest hook may answer. Nothing lets the person (or, with nobody to ask, the denial) decide. */
export type PermissionRequestHookResult = {
  /** `allow`: the call runs without asking (deny and ask rules still hold); `deny`: it does not, and the model reads `reason`. */
  decision?: "allow" | "deny" | undefined;
  /** On `deny`, what the model reads (Claude Code's `message`). */
  reason?: string | undefined;
  /** On `allow`, arguments that replace the call's (judged again against deny and ask rules). */
  updatedInput?: Record<string, unknown> | undefined;
  /** On `deny`: stop the run as well (Claude Code's `interrupt`). */
  interrupt?: boolean | undefined;
};

/** What a PermissionDenied hook may answer. */
export type PermissionDeniedHookResult = {
  /** True: the model is told it may retry the call (the denial stands). */
  retry?: boolean | undefined;
};

/** What a PostToolUse hook may answer. The tool has run; its result can still be changed, added to, or withheld. */
export type PostToolUseHookResult = {
  /** `block`: the model does not see the result; it reads that the tool ran and `reason`. */
  decision?: "block" | undefined;
  reason?: string | undefined;
  /** Replaces the result the model reads (and the one the next hook receives). */
  updatedOutput?: unknown;
  /** Text appended to the result the model reads. */
  additionalContext?: string | undefined;
};

/** What a PostToolUseFailure hook may answer. */
export type PostToolUseFailureHookResult = {
  /** Text appended to the error the model reads. */
  additionalContext?: string | undefined;
};

/** What a PostToolBatch hook may answer. */
export type PostToolBatchHookResult = {
  /** `block`: the run stops before the next model call, with `reason`. */
  decision?: "block" | undefined;
  reason?: string | undefined;
  /** Text the model reads with the turn's results, once. */
  additionalContext?: string | undefined;
};

/** What a UserPromptSubmit hook may answer. */
export type UserPromptSubmitHookResult = {
  /** `block`: the prompt is not sent; `reason` is for the user (the model never sees the prompt). */
  decision?: "block" | undefined;
  reason?: string | undefined;
  /** Text the model reads after the prompt. */
  additionalContext?: string | undefined;
};

/** What a Stop (or SubagentStop) hook may answer. */
export type StopHookResult = {
  /** `block`: the agent may not stop yet; it goes on with `reason` as its next instruction. */
  decision?: "block" | undefined;
  reason?: string | undefined;
  /** Feedback that also sends the agent on, without being an error (Claude Code's Stop `additionalContext`). */
  additionalContext?: string | undefined;
};

/** What a SubagentStart hook may answer. */
export type SubagentStartHookResult = {
  /** Text the subagent reads before its first prompt. */
  additionalContext?: string | undefined;
};

/** What a PreCompact hook may answer. */
export type PreCompactHookResult = {
  /** `block`: no compaction now; `reason` is for the person. */
  decision?: "block" | undefined;
  reason?: string | undefined;
};

/** What a SessionStart hook may answer. */
export type SessionStartHookResult = {
  /** `block`: the session should not start; `reason` is for the user. */
  decision?: "block" | undefined;
  reason?: string | undefined;
  /** Text the model reads at the start of the session. */
  additionalContext?: string | undefined;
};

/** What a hook of an event that takes no answer (Notification, PostCompact, SessionEnd) returns: nothing is read. */
export type NoHookResult = Record<string, never>;

/** Each event's input. */
export type HookInputs = {
  PreToolUse: PreToolUseHookInput;
  PermissionRequest: PermissionRequestHookInput;
  PermissionDenied: PermissionDeniedHookInput;
  PostToolUse: PostToolUseHookInput;
  PostToolUseFailure: PostToolUseFailureHookInput;
  PostToolBatch: PostToolBatchHookInput;
  UserPromptSubmit: UserPromptSubmitHookInput;
  Notification: NotificationHookInput;
  Stop: StopHookInput;
  SubagentStart: SubagentStartHookInput;
  SubagentStop: SubagentStopHookInput;
  PreCompact: PreCompactHookInput;
  PostCompact: PostCompactHookInput;
  SessionStart: SessionStartHookInput;
  SessionEnd: SessionEndHookInput;
};

/** Each event's result. */
export type HookResults = {
  PreToolUse: PreToolUseHookResult;
  PermissionRequest: PermissionRequestHookResult;
  PermissionDenied: PermissionDeniedHookResult;
  PostToolUse: PostToolUseHookResult;
  PostToolUseFailure: PostToolUseFailureHookResult;
  PostToolBatch: PostToolBatchHookResult;
  UserPromptSubmit: UserPromptSubmitHookResult;
  Notification: NoHookResult;
  Stop: StopHookResult;
  SubagentStart: SubagentStartHookResult;
  SubagentStop: StopHookResult;
  PreCompact: PreCompactHookResult;
  PostCompact: NoHookResult;
  SessionStart: SessionStartHookResult;
  SessionEnd: NoHookResult;
};

/** An in-process hook: a function of the event's input. Returning nothing is returning `{}`. */
export type HookFunction<E extends HookEventName> = (
  input: HookInputs[E],
  context: { signal: AbortSignal },
  // biome-ignore lint/suspicious/noConfusingVoidType: void lets a function that returns nothing on some paths be passed as it is.
) => HookResults[E] | undefined | void | Promise<HookResults[E] | undefined | void>;

/** Settings every hook has. */
type HookHandlerBase = {
  /**
   * One permission rule (`"Bash(git *)"`, `"Edit(src/**)"`, `"mcp__github"`): the hook runs only for calls it
   * matches. Read on the tool events (PreToolUse, PermissionRequest, PermissionDenied, PostToolUse,
   * PostToolUseFailure); on any other event a hook with `if` never runs, as in Claude Code. For Bash, the hook runs
   * when any part of the command line matches, and when the line cannot be parsed.
   */
  if?: string | undefined;
  /**
   * Seconds before the hook is given up on (default: the runner's, 60 s; SessionEnd's 1.5 s). A command's whole
   * process group is killed; an HTTP request is aborted; a function's `signal` is aborted. A timeout is a failure.
   */
  timeout?: number | undefined;
  /**
   * When true, a hook that crashes, exits with an error other than 2, prints malformed output or times out is
   * ignored (reported to `onHookRun` only). Default: PreToolUse and PermissionRequest hooks guard a call, so their
   * failure denies it (fails closed); a hook of any other event that fails is reported and the session goes on
   * (fails open), as in Claude Code. `failOpen: false` or `failClosed: true` makes such a hook block on failure too
   * (for events that can block: not Notification, PermissionDenied, PostToolUseFailure, SubagentStart, PostCompact,
   * SessionEnd).
   */
  failOpen?: boolean | undefined;
  /** The opposite of `failOpen`: `true` makes the hook's failure block what it runs for, whatever its event. */
  failClosed?: boolean | undefined;
  /** What the model calls the hook when it reads about it (default `<event> hook #<n>`: commands may hold secrets, so they are never shown). */
  name?: string | undefined;
};

/** A shell command (Claude Code's `{ "type": "command" }`): JSON input on stdin, exit code and JSON or text on stdout. */
export type CommandHook = HookHandlerBase & {
  type: "command";
  /** A shell command (`/bin/sh -c`); with `args`, the program to run. */
  command: string;
  /**
   * Exec form (Claude Code's): `command` runs with these arguments and no shell, each one argument as written;
   * `${CLAUDE_PROJECT_DIR}` in `command` and in each argument is replaced by `cwd`.
   */
  args?: readonly string[] | undefined;
  /**
   * Runs in the background: the agent does not wait, and nothing it answers is read (Claude Code delivers an async
   * hook's context on the next turn; minagent does not). A failure is reported to `onHookRun`.
   */
  async?: boolean | undefined;
};

/**
 * An HTTP endpoint (Claude Code's `{ "type": "http" }`): the input is POSTed as JSON; a 2xx response's body is read
 * as a command's JSON output would be (empty: no answer). Any other status, a body that is not a JSON object, a
 * connection that fails or a timeout is a failure (which fails open or closed as for a command).
 */
export type HttpHook = HookHandlerBase & {
  type: "http";
  /** Where to POST: an `http:` or `https:` URL. */
  url: string;
  /** More request headers. `$VAR` and `${VAR}` in a value are replaced by that environment variable when `allowedEnvVars` lists it, else by nothing. */
  headers?: Readonly<Record<string, string>> | undefined;
  /** The environment variables a header value may name. */
  allowedEnvVars?: readonly string[] | undefined;
};

/** An in-process hook. */
export type FunctionHook<E extends HookEventName> = HookHandlerBase & { type: "function"; run: HookFunction<E> };

/**
 * Hooks that run when `matcher` matches: a tool name (PreToolUse, PermissionRequest, PermissionDenied, PostToolUse,
 * PostToolUseFailure), the source (SessionStart), the reason (SessionEnd), the notification type (Notification),
 * the agent type (SubagentStart, SubagentStop), the trigger (PreCompact, PostCompact).
 */
export type HookMatcher<E extends HookEventName> = {
  /**
   * Omitted, `""` or `"*"`: everything. Letters, digits, `_`, `-`, spaces, `,` and `|` only: exact names separated
   * by `|` or `,` (`"Bash"`, `"Edit|Write"`, `"Edit, Write"`, `"code-reviewer"`). Anything else: a JavaScript regular
   * expression searched in the name (`"^mcp__"`, `"Notebook.*"`), case-sensitive. Ignored for UserPromptSubmit,
   * PostToolBatch and Stop.
   */
  matcher?: string | undefined;
  hooks: readonly (CommandHook | HttpHook | FunctionHook<E>)[];
};

/** Hooks by event: Claude Code's `"hooks"` settings shape, where in-process hooks may stand beside commands. */
export type HookConfiguration = { [E in HookEventName]?: readonly HookMatcher<E>[] | undefined };

/**
 * A settings file's content as Claude Code writes it (`.claude/settings.json`): only `hooks` is read. It is
 * checked when the runner is made: a part of the wrong shape (an entry that is not an object, a hook type minagent
 * does not run, an `if` that is not a rule) is skipped with a warning naming the file and the key
 * (`HookRunner.warnings`), and the rest applies; events this runner does not know are listed in
 * `HookRunner.unsupportedEvents` and never run.
 */
export type HookSettings = { hooks?: Record<string, unknown> | undefined; [key: string]: unknown };

/** A settings file's content and its path, which warnings name. */
export type HookSettingsFile = { path: string; settings: HookSettings };

/** One hook's run, for the host (a log, a warning that a hook failed open, a hook's `systemMessage`). */
export type HookRunReport = {
  event: HookEventName;
  /** The hook's name, its command or URL (the host may show it; the model never does), or `function #<n>`. */
  hook: string;
  /**
   * `ok`: it answered; `blocked`: it exited 2 (or its JSON blocked; on an event that cannot block, `message` is its
   * stderr, for the user); `failed`: it crashed, timed out or answered nonsense.
   */
  outcome: "ok" | "blocked" | "failed";
  /** True when the hook fails open, so a failure was ignored. */
  failOpen: boolean;
  /** Why it blocked or failed. */
  message?: string | undefined;
  /** A command's `systemMessage` (for the user, not the model). */
  systemMessage?: string | undefined;
  durationMs: number;
};
