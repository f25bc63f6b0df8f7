import { homedir } from "node:os";
import { type RunResult, type ToolCall, UsageError } from "../../engine.js";
import { truncate } from "../../text.js";
import { type HookSource, type PreparedHook, readHookConfiguration } from "./read-hook-configuration.js";
import { eventCanBlock, type HookVerdict } from "./read-hook-output.js";
import { resultOf, runHookHandler } from "./run-hook-handler.js";
import type {
  CompactionTrigger,
  HookConfiguration,
  HookEventName,
  HookInputBase,
  HookInputs,
  HookResults,
  HookRunReport,
  HookSettings,
  HookSettingsFile,
  NotificationType,
  SessionEndReason,
  SessionStartSource,
  ToolBatchCall,
} from "./types.js";

/** Settings of a {@link HookRunner}. */
export type HookRunnerOptions = {
  /** The session's id, sent to every hook. */
  sessionId: string;
  /** The folder the agent works in: sent to every hook, where command hooks run, and what `if` paths are taken from. */
  cwd: string;
  /**
   * Settings files' content, as Claude Code writes them (`{ "hooks": { "PreToolUse": [ … ] } }`), in the order
   * their hooks should run (user, project, local). Only `hooks` is read; a part of the wrong shape throws.
   */
  settings?: HookSettings | readonly HookSettings[] | undefined;
  /**
   * Settings files with their paths, run before `settings`: a part of the wrong shape is skipped with a warning
   * naming the file and the key (`warnings`), and the rest applies.
   */
  settingsFiles?: readonly HookSettingsFile[] | undefined;
  /** Hooks in code (functions, commands, HTTP endpoints), run after the settings' hooks. */
  hooks?: HookConfiguration | undefined;
  /**
   * The environment of command hooks and of HTTP hooks' `$VAR` headers (default: this process's, API keys included,
   * as in Claude Code: hooks are the user's own programs). `MINAGENT_PROJECT_DIR` and `CLAUDE_PROJECT_DIR` are set
   * to `cwd` in either case.
   */
  env?: Readonly<Record<string, string | undefined>> | undefined;
  /** The home directory for `~/` in `if` rules (default: the user's). */
  home?: string | undefined;
  /**
   * The conversation's transcript, sent as `transcript_path`: a path, or a function called before each event's
   * hooks run (when any match), which may bring the file up to date first.
   */
  transcriptPath?: string | (() => string | undefined | Promise<string | undefined>) | undefined;
  /** The permission mode now, sent as `permission_mode` (`() => permissions.mode`). */
  permissionMode?: (() => string | undefined) | undefined;
  /** Set for the hooks of a subagent's run: sent as `agent_id` and `agent_type` with every event. */
  agent?: { id: string; type: string } | undefined;
  /** Milliseconds a hook without its own `timeout` may run (default 60,000; SessionEnd hooks: 1,500). */
  defaultTimeoutMs?: number | undefined;
  /** Longest text a hook may put before the model (a reason, a context), in characters (default 10,000). */
  maxOutputLength?: number | undefined;
  /** Times Stop (or SubagentStop) hooks may send the agent back to work in a row before they are no longer asked (default 5). */
  maxStopContinuations?: number | undefined;
  /** Told of every hook's run: for logs, for warning the user that a hook failed open, for `systemMessage`s. */
  onHookRun?: ((report: HookRunReport) => void) | undefined;
};

/** What the PreToolUse hooks decided for a call. */
export type PreToolUseOutcome = {
  /** The strongest decision of any hook (deny, then ask, then allow); absent when none decided. */
  decision?: "allow" | "deny" | "ask" | undefined;
  /** For a deny, what the model reads; for an ask, what the person reads. */
  reason?: string | undefined;
  /** The call's arguments after every rewrite. */
  arguments: Record<string, unknown>;
  /** True when a hook replaced the arguments. */
  rewritten: boolean;
};

/** What the PermissionRequest hooks decided instead of the person; absent `decision`: ask the person. */
export type PermissionRequestOutcome = {
  /** Deny over allow. */
  decision?: "allow" | "deny" | undefined;
  /** For a deny, what the model reads. */
  reason?: string | undefined;
  /** For an allow, the arguments to run with when a hook replaced them. */
  updatedInput?: Record<string, unknown> | undefined;
  /** For a deny, true when a hook asked to stop the run too. */
  interrupt?: boolean | undefined;
};

/** What the PostToolUse hooks made of a result. */
export type PostToolUseOutcome = {
  /** Set when the model must not see the result: what it reads instead. */
  blocked?: string | undefined;
  /** The result, or what the hooks replaced it with. */
  response: unknown;
  /** Text to append to the result, already labelled for the model. */
  context?: string | undefined;
};

/** What the UserPromptSubmit hooks made of a prompt: blocked (tell the user), or the input to run. */
export type UserPromptSubmitOutcome =
  | { blocked: string }
  | {
      blocked?: undefined;
      /** What to pass to `agent.run`: the prompt, followed by the hooks' context, labelled. */
      input: string;
      /** The hooks' context alone. */
      context?: string | undefined;
    };

/** What the SessionStart hooks said: context for the model, or that the session should not start. */
export type SessionStartOutcome = { blocked?: string | undefined; context?: string | undefined };

/** What the PostToolBatch hooks said: stop before the next model call, or context to add to the turn's results. */
export type PostToolBatchOutcome = { blocked?: string | undefined; context?: string | undefined };

/** What the identity of a subagent's run is, for SubagentStart and SubagentStop. */
export type SubagentIdentity = { agentId: string; agentType: string };

type ToolCallInput = Pick<ToolCall, "id" | "name" | "arguments">;
type ToolTarget = { toolName: string; toolInput: Record<string, unknown> };
type Continue = { continue: string } | undefined;

/**
 * Runs the hooks of one session: Claude Code's settings shape, command and HTTP hooks and in-process functions,
 * each event's hooks one after another in the order configured (each sees what the ones before it rewrote or
 * replaced; a deny or a block stops the chain). A PreToolUse or PermissionRequest hook that fails — crashes, exits
 * with a code other than 0 or 2, prints malformed JSON, times out — denies the call it guards (unlike Claude Code);
 * a hook of another event that fails is reported to `onHookRun` and ignored, as in Claude Code. `failOpen` /
 * `failClosed` set either per hook. Agents use it through {@link withPreToolUseHooks} and
 * {@link withPostToolUseHooks}; a host calls the other `run…Hooks` itself at the points their events name.
 * @example
 * const hooks = new HookRunner({ sessionId, cwd, settings: JSON.parse(await readFile(".claude/settings.json", "utf8")) });
 * const agent = new Agent(model, registry, { canUseTool: withPreToolUseHooks(hooks, rules) });
 */
export class HookRunner {
  readonly sessionId: string;
  readonly cwd: string;
  /** Events the settings have hooks for that this runner does not run (TaskCreated, a typo…): warn the user. */
  readonly unsupportedEvents: readonly string[];
  /**
   * One line for each part of a settings file (`settingsFiles`) that is skipped: an entry of the wrong shape, a hook
   * type minagent does not run (`prompt`, `agent`, `mcp_tool`), an `if` that is not a rule, an event minagent does
   * not run. Each names the file and the key. Show them to the user once.
   */
  readonly warnings: readonly string[];
  readonly maxStopContinuations: number;
  readonly #hooks: Map<HookEventName, PreparedHook[]>;
  readonly #env: Readonly<Record<string, string | undefined>>;
  readonly #defaultTimeoutMs: number;
  readonly #maxOutputLength: number;
  readonly #onHookRun: ((report: HookRunReport) => void) | undefined;
  readonly #transcriptPath: HookRunnerOptions["transcriptPath"];
  readonly #permissionMode: (() => string | undefined) | undefined;
  readonly #agent: HookRunnerOptions["agent"];

  constructor(options: HookRunnerOptions) {
    if (typeof options?.sessionId !== "string" || options.sessionId === "")
      throw new UsageError("HookRunner needs a sessionId (a non-empty string).");
    if (typeof options.cwd !== "string" || options.cwd === "") throw new UsageError("HookRunner needs the cwd the agent works in.");
    this.sessionId = options.sessionId;
    this.cwd = options.cwd;
    const settings = options.settings === undefined ? [] : Array.isArray(options.settings) ? options.settings : [options.settings];
    const sources: HookSource[] = (options.settingsFiles ?? []).map((file) => ({
      hooks: file?.settings?.hooks,
      where: "hooks",
      file: file?.path,
    }));
    sources.push(...settings.map((file: HookSettings, index) => ({ hooks: file?.hooks, where: `settings[${index}].hooks` })));
    sources.push({ hooks: options.hooks, where: "hooks" });
    const { hooks, unsupportedEvents, warnings } = readHookConfiguration(sources, { root: options.cwd, home: options.home ?? homedir() });
    this.#hooks = hooks;
    this.unsupportedEvents = unsupportedEvents;
    this.warnings = warnings;
    this.#env = { ...(options.env ?? process.env), MINAGENT_PROJECT_DIR: options.cwd, CLAUDE_PROJECT_DIR: options.cwd };
    this.#defaultTimeoutMs = positive("defaultTimeoutMs", options.defaultTimeoutMs ?? 60_000);
    this.#maxOutputLength = positive("maxOutputLength", options.maxOutputLength ?? 10_000);
    this.maxStopContinuations = positive("maxStopContinuations", options.maxStopContinuations ?? 5, true);
    this.#onHookRun = options.onHookRun;
    this.#transcriptPath = options.transcriptPath;
    this.#permissionMode = options.permissionMode;
    this.#agent = options.agent;
  }

  /** True when some hook listens to `event` (for a tool name, source, reason or type, when given). */
  hasHooks(event: HookEventName, target?: string): boolean {
    return (this.#hooks.get(event) ?? []).some((hook) => target === undefined || hook.matches(target));
  }

  /**
   * Runs the PreToolUse hooks matching the call's tool. A deny stops at once; each hook sees the arguments as the
   * hooks before it left them. Use {@link withPreToolUseHooks} to make this an agent's permission check.
   */
  async runPreToolUseHooks(call: ToolCallInput, signal?: AbortSignal): Promise<PreToolUseOutcome> {
    let args = call.arguments;
    let rewritten = false;
    let ask: { reason: string | undefined } | undefined;
    let allowed = false;
    for await (const { hook, base } of this.#select("PreToolUse", call.name, () => ({ toolName: call.name, toolInput: args }), signal)) {
      const result = await this.#invoke("PreToolUse", hook, { ...base, toolName: call.name, toolInput: args, toolUseId: call.id }, signal);
      if (result.decision === "deny")
        return {
          decision: "deny",
          reason: this.#cap(`A PreToolUse hook blocked this call: ${result.reason ?? "no reason given."}`),
          arguments: args,
          rewritten,
        };
      if (result.updatedInput !== undefined) {
        args = result.updatedInput;
        rewritten = true;
      }
      if (result.decision === "ask") ask ??= { reason: result.reason };
      if (result.decision === "allow") allowed = true;
    }
    if (ask) return { decision: "ask", reason: ask.reason === undefined ? undefined : this.#cap(ask.reason), arguments: args, rewritten };
    return { ...(allowed && { decision: "allow" as const }), arguments: args, rewritten };
  }

  /**
   * Runs the PermissionRequest hooks for a call a person would be asked about (or that, with nobody to ask, would be
   * denied): a hook's allow or deny decides instead. A deny stops at once; an allow's `updatedInput` is what the
   * hooks after it see. Exit code 2 changes nothing, as in Claude Code; a hook that fails denies (it guards).
   */
  async runPermissionRequestHooks(call: ToolTarget, signal?: AbortSignal): Promise<PermissionRequestOutcome> {
    let args = call.toolInput;
    let allowed: PermissionRequestOutcome | undefined;
    for await (const { hook, base } of this.#select("PermissionRequest", call.toolName, () => ({ ...call, toolInput: args }), signal)) {
      const result = await this.#invoke("PermissionRequest", hook, { ...base, toolName: call.toolName, toolInput: args }, signal);
      if (result.decision === "deny") {
        const reason = this.#cap(`A PermissionRequest hook denied this call: ${result.reason ?? "no reason given."}`);
        return { decision: "deny", reason, ...(result.interrupt === true && { interrupt: true }) };
      }
      if (result.decision === "allow") {
        if (result.updatedInput !== undefined) args = result.updatedInput;
        allowed = { decision: "allow", ...(args !== call.toolInput && { updatedInput: args }) };
      }
    }
    return allowed ?? {};
  }

  /**
   * Runs the PermissionDenied hooks after the permission mode denied a call with nobody asked. Returns whether a hook
   * said the model may retry it (the denial stands either way; tell the model).
   */
  async runPermissionDeniedHooks(
    call: ToolTarget & { toolUseId: string; reason: string },
    signal?: AbortSignal,
  ): Promise<{ retry: boolean }> {
    let retry = false;
    for await (const { hook, base } of this.#select("PermissionDenied", call.toolName, () => call, signal)) {
      const result = await this.#invoke("PermissionDenied", hook, { ...base, ...call }, signal);
      if (result.retry === true) retry = true;
    }
    return { retry };
  }

  /**
   * Runs the PostToolUse hooks matching the tool, after it returned `response`. Each sees the result as the hooks
   * before it left it; a block (or a failure, unless the hook fails open) withholds the result and stops.
   */
  async runPostToolUseHooks(
    call: {
      toolUseId: string;
      toolName: string;
      toolInput: Record<string, unknown>;
      toolResponse: unknown;
      durationMs?: number | undefined;
    },
    signal?: AbortSignal,
  ): Promise<PostToolUseOutcome> {
    let response = call.toolResponse;
    const contexts: string[] = [];
    for await (const { hook, base } of this.#select("PostToolUse", call.toolName, () => call, signal)) {
      const result = await this.#invoke("PostToolUse", hook, { ...base, ...call, toolResponse: response }, signal);
      if (result.decision === "block") {
        const reason = result.reason ?? "no reason given.";
        return { blocked: this.#cap(`Tool "${call.toolName}" ran, but a PostToolUse hook withheld its result: ${reason}`), response };
      }
      if (result.updatedOutput !== undefined) response = result.updatedOutput;
      if (result.additionalContext) contexts.push(result.additionalContext);
    }
    return { response, ...(contexts.length > 0 && { context: this.#labelled("PostToolUse", contexts) }) };
  }

  /**
   * Runs the PostToolUseFailure hooks after a call that started failed: their context (and the stderr of one that
   * exits 2) is for the model, after the error. A hook that fails is reported and ignored: the call has failed already.
   */
  async runPostToolUseFailureHooks(
    call: ToolTarget & { toolUseId: string; error: string; isInterrupt?: boolean | undefined; durationMs?: number | undefined },
    signal?: AbortSignal,
  ): Promise<{ context?: string | undefined }> {
    const contexts: string[] = [];
    const input = { ...call, isInterrupt: call.isInterrupt ?? false };
    for await (const { hook, base } of this.#select("PostToolUseFailure", call.toolName, () => call, signal)) {
      const result = await this.#invoke("PostToolUseFailure", hook, { ...base, ...input }, signal);
      if (result.additionalContext) contexts.push(result.additionalContext);
    }
    return contexts.length === 0 ? {} : { context: this.#labelled("PostToolUseFailure", contexts) };
  }

  /**
   * Runs the PostToolBatch hooks once a turn's calls have all ended, before the next model call: their context is
   * for the model with the turn's results; a block (exit 2, `decision: "block"`, `continue: false`) stops the run there.
   */
  async runPostToolBatchHooks(toolCalls: readonly ToolBatchCall[], signal?: AbortSignal): Promise<PostToolBatchOutcome> {
    const contexts: string[] = [];
    for await (const { hook, base } of this.#select("PostToolBatch", undefined, undefined, signal)) {
      const result = await this.#invoke("PostToolBatch", hook, { ...base, toolCalls: [...toolCalls] }, signal);
      if (result.decision === "block") return { blocked: this.#cap(result.reason ?? "A PostToolBatch hook stopped the run.") };
      if (result.additionalContext) contexts.push(result.additionalContext);
    }
    return contexts.length === 0 ? {} : { context: this.#labelled("PostToolBatch", contexts) };
  }

  /** Runs the UserPromptSubmit hooks on a prompt before it is sent: a block stops it (tell the user why). */
  async runUserPromptSubmitHooks(prompt: string, signal?: AbortSignal): Promise<UserPromptSubmitOutcome> {
    const contexts: string[] = [];
    for await (const { hook, base } of this.#select("UserPromptSubmit", undefined, undefined, signal)) {
      const result = await this.#invoke("UserPromptSubmit", hook, { ...base, prompt }, signal);
      if (result.decision === "block") return { blocked: this.#cap(result.reason ?? "A UserPromptSubmit hook blocked this prompt.") };
      if (result.additionalContext) contexts.push(result.additionalContext);
    }
    if (contexts.length === 0) return { input: prompt };
    const context = this.#labelled("UserPromptSubmit", contexts);
    return { input: `${prompt}\n\n${context}`, context };
  }

  /**
   * Runs the Notification hooks (matched against the type): the host waits on the person. Nothing they answer is
   * read; call it without waiting on it if the host must not wait either.
   */
  async runNotificationHooks(
    notification: { notificationType: NotificationType; message: string; title?: string | undefined },
    signal?: AbortSignal,
  ): Promise<void> {
    for await (const { hook, base } of this.#select("Notification", notification.notificationType, undefined, signal))
      await this.#invoke("Notification", hook, { ...base, ...notification }, signal);
  }

  /**
   * Runs the SessionStart hooks (matched against `source`, default "startup"): their context is for the model
   * (put it in the system prompt or before the first prompt); a block means the session should not start.
   */
  async runSessionStartHooks(
    options: { source?: SessionStartSource | undefined; signal?: AbortSignal | undefined } = {},
  ): Promise<SessionStartOutcome> {
    const source = options.source ?? "startup";
    const contexts: string[] = [];
    for await (const { hook, base } of this.#select("SessionStart", source, undefined, options.signal)) {
      const result = await this.#invoke("SessionStart", hook, { ...base, source }, options.signal);
      if (result.decision === "block") return { blocked: this.#cap(result.reason ?? "A SessionStart hook blocked this session.") };
      if (result.additionalContext) contexts.push(result.additionalContext);
    }
    return contexts.length === 0 ? {} : { context: this.#cap(contexts.join("\n\n")) };
  }

  /**
   * Runs the SessionEnd hooks (matched against `reason`) when a session ends. Nothing they answer is read; a hook
   * without its own `timeout` gets 1.5 s, as in Claude Code, so that leaving is not held up.
   */
  async runSessionEndHooks(options: { reason: SessionEndReason; signal?: AbortSignal | undefined }): Promise<void> {
    for await (const { hook, base } of this.#select("SessionEnd", options.reason, undefined, options.signal))
      await this.#invoke("SessionEnd", hook, { ...base, reason: options.reason }, options.signal);
  }

  /**
   * Runs the PreCompact hooks (matched against the trigger) before a compaction: a block (exit 2, `decision:
   * "block"`) means no compaction now, and its reason is for the person.
   */
  async runPreCompactHooks(options: {
    trigger: CompactionTrigger;
    customInstructions?: string | undefined;
    signal?: AbortSignal | undefined;
  }): Promise<{ blocked?: string | undefined }> {
    const input = { trigger: options.trigger, customInstructions: options.customInstructions ?? "" };
    for await (const { hook, base } of this.#select("PreCompact", options.trigger, undefined, options.signal)) {
      const result = await this.#invoke("PreCompact", hook, { ...base, ...input }, options.signal);
      if (result.decision === "block") return { blocked: this.#cap(result.reason ?? "A PreCompact hook blocked the compaction.") };
    }
    return {};
  }

  /** Runs the PostCompact hooks (matched against the trigger) after a compaction, with its summary. Nothing they answer is read. */
  async runPostCompactHooks(options: {
    trigger: CompactionTrigger;
    compactSummary: string;
    signal?: AbortSignal | undefined;
  }): Promise<void> {
    const input = { trigger: options.trigger, compactSummary: options.compactSummary };
    for await (const { hook, base } of this.#select("PostCompact", options.trigger, undefined, options.signal))
      await this.#invoke("PostCompact", hook, { ...base, ...input }, options.signal);
  }

  /**
   * Runs the SubagentStart hooks (matched against the agent type) before a subagent's first model call: their
   * context is for the subagent, before its prompt. They cannot stop it (exit 2 is shown to the user only).
   * @example
   * const start = await hooks.runSubagentStartHooks({ agentId, agentType: "Explore", signal });
   * const prompt = start.context ? `${start.context}\n\n${task}` : task;
   */
  async runSubagentStartHooks(options: SubagentIdentity & { signal?: AbortSignal | undefined }): Promise<{ context?: string | undefined }> {
    const { agentId, agentType, signal } = options;
    const contexts: string[] = [];
    for await (const { hook, base } of this.#select("SubagentStart", agentType, undefined, signal)) {
      const result = await this.#invoke("SubagentStart", hook, { ...base, agentId, agentType }, signal);
      if (result.additionalContext) contexts.push(result.additionalContext);
    }
    return contexts.length === 0 ? {} : { context: this.#labelled("SubagentStart", contexts) };
  }

  /**
   * Runs the SubagentStop hooks (matched against the agent type) once a subagent's run has `completed`, as
   * {@link runStopHooks} does for the agent: `{ continue }` is the subagent's next input when a hook blocks its stop
   * (or gives it feedback), within `maxStopContinuations` in a row.
   * @example
   * let result = await child.run(task);
   * for (let continuations = 0; ; continuations++) {
   *   const next = await hooks.runSubagentStopHooks(result, { agentId, agentType, continuations });
   *   if (!next) break;
   *   result = await child.run(next.continue, { history: result.messages });
   * }
   */
  async runSubagentStopHooks(
    result: Pick<RunResult, "status" | "final">,
    options: SubagentIdentity & {
      continuations: number;
      agentTranscriptPath?: string | undefined;
      signal?: AbortSignal | undefined;
    },
  ): Promise<Continue> {
    const { agentId, agentType, agentTranscriptPath, continuations, signal } = options;
    if (result.status !== "completed" || continuations >= this.maxStopContinuations) return undefined;
    const input = { agentId, agentType, agentTranscriptPath, stopHookActive: continuations > 0, lastAssistantMessage: result.final };
    const answers: HookResults["SubagentStop"][] = [];
    for await (const { hook, base } of this.#select("SubagentStop", agentType, undefined, signal))
      answers.push(await this.#invoke("SubagentStop", hook, { ...base, ...input }, signal));
    return this.#continuation("SubagentStop", answers);
  }

  /**
   * Runs the Stop hooks once a run has `completed` (an interrupted run or one out of steps is not stopping by
   * choice: nothing runs). `continuations` counts the times in a row Stop hooks have sent the agent back; hooks
   * read `stopHookActive: continuations > 0`, and from `maxStopContinuations` on they are not asked. Returns
   * `{ continue }`, the next input to run with the result's messages as history, when a hook blocks the stop (or
   * gives feedback through `additionalContext`).
   * @example
   * let result = await agent.run(input);
   * for (let continuations = 0; ; continuations++) {
   *   const next = await hooks.runStopHooks(result, { continuations });
   *   if (!next) break;
   *   result = await agent.run(next.continue, { history: result.messages });
   * }
   */
  async runStopHooks(
    result: Pick<RunResult, "status" | "final">,
    options: { continuations: number; signal?: AbortSignal | undefined },
  ): Promise<Continue> {
    if (result.status !== "completed" || options.continuations >= this.maxStopContinuations) return undefined;
    const input = { stopHookActive: options.continuations > 0, lastAssistantMessage: result.final };
    const answers: HookResults["Stop"][] = [];
    for await (const { hook, base } of this.#select("Stop", undefined, undefined, options.signal))
      answers.push(await this.#invoke("Stop", hook, { ...base, ...input }, options.signal));
    return this.#continuation("Stop", answers);
  }

  /** Every Stop hook is asked; their blocks' reasons, then their feedback, are the agent's next input. */
  #continuation(event: "Stop" | "SubagentStop", answers: readonly HookResults["Stop"][]): Continue {
    const reasons = answers
      .filter((answer) => answer.decision === "block")
      .map((answer) => answer.reason ?? `A ${event} hook asks you to go on before you stop.`);
    const feedback = answers.flatMap((answer) => (answer.additionalContext ? [answer.additionalContext] : []));
    if (reasons.length > 0)
      return { continue: this.#cap(`${event} hook feedback: you may not stop yet.\n${[...reasons, ...feedback].join("\n\n")}`) };
    if (feedback.length > 0) return { continue: this.#cap(`${event} hook feedback:\n${feedback.join("\n\n")}`) };
    return undefined;
  }

  /**
   * The event's hooks that match `target` (all of them for events without matchers) and whose `if` matches the call,
   * each command or URL once, each with the input fields every event has. The transcript is brought up to date once,
   * before the first hook runs.
   */
  async *#select<E extends HookEventName>(
    event: E,
    target: string | undefined,
    call: (() => ToolTarget) | undefined,
    signal: AbortSignal | undefined,
  ): AsyncGenerator<{ hook: PreparedHook; base: HookInputBase<E> }> {
    const seen = new Set<string>();
    let base: HookInputBase<E> | undefined;
    for (const hook of this.#hooks.get(event) ?? []) {
      if (target !== undefined && !hook.matches(target)) continue;
      const { handler } = hook;
      // The same program with other arguments is another hook: only an identical one runs once.
      const key =
        handler.type === "command"
          ? `command ${handler.command} ${JSON.stringify(handler.args ?? null)}`
          : handler.type === "http"
            ? `http ${handler.url}`
            : undefined;
      if (key !== undefined && seen.has(key)) continue;
      if (hook.condition && call && !(await hook.condition.matches(call()))) continue;
      if (key !== undefined) seen.add(key);
      signal?.throwIfAborted();
      base ??= await this.#base(event);
      yield { hook, base };
    }
  }

  async #base<E extends HookEventName>(event: E): Promise<HookInputBase<E>> {
    const transcript = typeof this.#transcriptPath === "function" ? await this.#transcriptPath() : this.#transcriptPath;
    const mode = this.#permissionMode?.();
    return {
      hookEventName: event,
      sessionId: this.sessionId,
      cwd: this.cwd,
      ...(transcript !== undefined && { transcriptPath: transcript }),
      ...(mode !== undefined && { permissionMode: mode }),
      ...(this.#agent && { agentId: this.#agent.id, agentType: this.#agent.type }),
    };
  }

  /**
   * Runs one hook and returns what it means for the event (see `resultOf`), reporting it to `onHookRun`. An async
   * command hook is started and left to run: it answers nothing.
   */
  async #invoke<E extends HookEventName>(
    event: E,
    hook: PreparedHook,
    input: HookInputs[E],
    signal: AbortSignal | undefined,
  ): Promise<HookResults[E]> {
    if (hook.handler.type === "command" && hook.handler.async === true) {
      const background: PreparedHook = { ...hook, handler: { ...hook.handler, async: false }, failOpen: true };
      // Not the run's signal: the run may end first, and the hook goes on until it ends or times out.
      this.#invoke(event, background, input, undefined).catch(() => {});
      return {} as HookResults[E];
    }
    const started = performance.now();
    const timeoutMs =
      hook.timeoutMs ?? (event === "SessionEnd" ? Math.min(sessionEndTimeoutMs, this.#defaultTimeoutMs) : this.#defaultTimeoutMs);
    const verdict = await runHookHandler(event, hook, input, { cwd: this.cwd, env: this.#env, timeoutMs, signal });
    this.#report(hook, verdict, performance.now() - started);
    return resultOf(event, hook, verdict);
  }

  #report(hook: PreparedHook, verdict: HookVerdict<HookEventName>, durationMs: number): void {
    if (!this.#onHookRun) return;
    const decision = verdict.kind === "answered" ? (verdict.result as { decision?: unknown }).decision : undefined;
    const outcome = verdict.kind !== "answered" ? verdict.kind : decision === "deny" || decision === "block" ? "blocked" : "ok";
    // A failure that cannot block anything was ignored, whatever the hook's policy says.
    const ignored = hook.failOpen || !eventCanBlock(hook.event);
    const report: HookRunReport = { event: hook.event, hook: hook.display, outcome, failOpen: ignored, durationMs };
    if (verdict.kind !== "answered") report.message = verdict.reason;
    else if (verdict.systemMessage !== undefined) report.systemMessage = verdict.systemMessage;
    try {
      this.#onHookRun(report);
    } catch {
      // A listener's failure is not the hook's: the decision stands.
    }
  }

  #labelled(event: HookEventName, contexts: readonly string[]): string {
    return this.#cap(`${event} hook context:\n${contexts.join("\n\n")}`);
  }

  /** Hook text before the model is capped: a hook that dumps a log (or a secret file) puts at most this much into the context. */
  #cap(text: string): string {
    return truncate(text, this.#maxOutputLength);
  }
}

/** Claude Code's budget for a SessionEnd hook without its own timeout. */
const sessionEndTimeoutMs = 1_500;

function positive(name: string, value: number, allowZero = false): number {
  if (typeof value !== "number" || !Number.isFinite(value) || value < 0 || (!allowZero && value === 0))
    throw new UsageError(`HookRunner's ${name} must be a ${allowZero ? "non-negative" : "positive"} number, got ${String(value)}.`);
  return value;
}
