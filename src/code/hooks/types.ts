/**
 * The hooks' vocabulary: the events, what a hook receives (its input) and what it may answer (its result), and
 * how hooks are configured. In-process hooks get these inputs and return these results; command hooks get the
 * same input as Claude Code's JSON on stdin (snake_case keys) and answer with Claude Code's JSON or exit codes,
 * which are read into these results (see `read-hook-output.ts`).
 */

/** The events a hook can listen to (Claude Code's names). */
export type HookEventName = "PreToolUse" | "PostToolUse" | "UserPromptSubmit" | "Stop" | "SessionStart";

/** Every {@link HookEventName}, in the order an agent meets them. */
export const hookEventNames: readonly HookEventName[] = ["SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop"];

/** What every hook receives. */
export type HookInputBase<E extends HookEventName> = {
  hookEventName: E;
  /** The session the hook runs in (the host chooses it; the same for every hook of a session). */
  sessionId: string;
  /** The folder the agent works in; command hooks also run there. */
  cwd: string;
};

/** Before a tool call runs, after its arguments are validated. */
export type PreToolUseHookInput = HookInputBase<"PreToolUse"> & {
  toolName: string;
  /** The arguments as validated, or as the hooks before this one rewrote them. Read-only: return `updatedInput` to change them. */
  toolInput: Record<string, unknown>;
  /** The id of the model's tool call. */
  toolUseId: string;
};

/** After a tool call returned (not after it threw or timed out). */
export type PostToolUseHookInput = HookInputBase<"PostToolUse"> & {
  toolName: string;
  /** The arguments the tool ran with. */
  toolInput: Record<string, unknown>;
  toolUseId: string;
  /** What the tool returned, or what the hooks before this one replaced it with. */
  toolResponse: unknown;
};

/** A prompt from the user, before the model sees it. */
export type UserPromptSubmitHookInput = HookInputBase<"UserPromptSubmit"> & { prompt: string };

/** The agent answered and would stop. */
export type StopHookInput = HookInputBase<"Stop"> & {
  /** True when the agent is already going on because a Stop hook asked it to: check it to avoid endless loops. */
  stopHookActive: boolean;
  /** The agent's final answer. */
  lastAssistantMessage: string;
};

/** Why a session starts (Claude Code's values); a SessionStart matcher matches it. */
export type SessionStartSource = "startup" | "resume" | "clear" | "compact";

/** A session starts. */
export type SessionStartHookInput = HookInputBase<"SessionStart"> & { source: SessionStartSource };

/** What a PreToolUse hook may answer. Nothing (or `{}`) lets the other checks decide. */
export type PreToolUseHookResult = {
  /**
   * `deny`: the call does not run and the model reads `reason`. `ask`: a person decides (the run is interrupted).
   * `allow`: no objection (the agent's own permission check, if any, still decides).
   */
  decision?: "allow" | "deny" | "ask" | undefined;
  /** Why: the model reads it on `deny`; the person sees it on `ask`. */
  reason?: string | undefined;
  /** Arguments that replace the call's (the whole object, validated again against the tool's schema). */
  updatedInput?: Record<string, unknown> | undefined;
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

/** What a UserPromptSubmit hook may answer. */
export type UserPromptSubmitHookResult = {
  /** `block`: the prompt is not sent; `reason` is for the user (the model never sees the prompt). */
  decision?: "block" | undefined;
  reason?: string | undefined;
  /** Text the model reads after the prompt. */
  additionalContext?: string | undefined;
};

/** What a Stop hook may answer. */
export type StopHookResult = {
  /** `block`: the agent may not stop yet; it goes on with `reason` as its next instruction. */
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

/** Each event's input. */
export type HookInputs = {
  PreToolUse: PreToolUseHookInput;
  PostToolUse: PostToolUseHookInput;
  UserPromptSubmit: UserPromptSubmitHookInput;
  Stop: StopHookInput;
  SessionStart: SessionStartHookInput;
};

/** Each event's result. */
export type HookResults = {
  PreToolUse: PreToolUseHookResult;
  PostToolUse: PostToolUseHookResult;
  UserPromptSubmit: UserPromptSubmitHookResult;
  Stop: StopHookResult;
  SessionStart: SessionStartHookResult;
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
   * Seconds before the hook is given up on (default: the runner's, 60 s). A command's whole process group is
   * killed; a function's `signal` is aborted. A hook that times out blocks, unless `failOpen`.
   */
  timeout?: number | undefined;
  /**
   * When true, a hook that crashes, exits with an error other than 2, prints malformed output or times out is
   * ignored (reported to `onHookRun` only). Default: a PreToolUse hook guards a call, so its failure blocks the
   * call (fails closed); a hook of any other event that fails is reported and the session goes on (fails open), as
   * in Claude Code. `failOpen: false` or `failClosed: true` makes such a hook block on failure too.
   */
  failOpen?: boolean | undefined;
  /** The opposite of `failOpen`: `true` makes the hook's failure block what it runs for, whatever its event. */
  failClosed?: boolean | undefined;
  /** What the model calls the hook when it reads about it (default `<event> hook #<n>`: commands may hold secrets, so they are never shown). */
  name?: string | undefined;
};

/** A shell command (Claude Code's `{ "type": "command" }`): JSON input on stdin, exit code and JSON or text on stdout. */
export type CommandHook = HookHandlerBase & { type: "command"; command: string };

/** An in-process hook. */
export type FunctionHook<E extends HookEventName> = HookHandlerBase & { type: "function"; run: HookFunction<E> };

/** Hooks that run when `matcher` matches: a tool name for PreToolUse and PostToolUse, the source for SessionStart. */
export type HookMatcher<E extends HookEventName> = {
  /**
   * Omitted, `""` or `"*"`: everything. Letters, digits, `_` and `|` only: exact names (`"Bash"`, `"Edit|Write"`).
   * Anything else: a JavaScript regular expression searched in the name (`"^mcp__"`, `"Notebook.*"`), case-sensitive.
   * Ignored for UserPromptSubmit and Stop.
   */
  matcher?: string | undefined;
  hooks: readonly (CommandHook | FunctionHook<E>)[];
};

/** Hooks by event: Claude Code's `"hooks"` settings shape, where in-process hooks may stand beside commands. */
export type HookConfiguration = { [E in HookEventName]?: readonly HookMatcher<E>[] | undefined };

/**
 * A settings file's content as Claude Code writes it (`.claude/settings.json`): only `hooks` is read. It is
 * checked when the runner is made: a malformed entry throws a UsageError naming it; events this runner does not
 * know are listed in `HookRunner.unsupportedEvents` and never run.
 */
export type HookSettings = { hooks?: Record<string, unknown> | undefined; [key: string]: unknown };

/** One hook's run, for the host (a log, a warning that a hook failed open, a hook's `systemMessage`). */
export type HookRunReport = {
  event: HookEventName;
  /** The hook's name, or its command (the host may show it; the model never does), or `function #<n>`. */
  hook: string;
  /** `ok`: it answered; `blocked`: it exited 2 (or its JSON blocked); `failed`: it crashed, timed out or answered nonsense. */
  outcome: "ok" | "blocked" | "failed";
  /** True when the hook fails open, so a failure was ignored. */
  failOpen: boolean;
  /** Why it blocked or failed. */
  message?: string | undefined;
  /** A command's `systemMessage` (for the user, not the model). */
  systemMessage?: string | undefined;
  durationMs: number;
};
