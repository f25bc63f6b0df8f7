import { AbortError, type RunResult, type ToolCall, UsageError } from "../../engine.js";
import { abortable } from "../../errors.js";
import { toReadableText, truncate } from "../../text.js";
import { type HookSource, type PreparedHook, readHookConfiguration } from "./read-hook-configuration.js";
import { checkHookResult, formatSeconds, type HookVerdict, readCommandVerdict, toCommandInput } from "./read-hook-output.js";
import { runHookCommand } from "./run-hook-command.js";
import type {
  FunctionHook,
  HookConfiguration,
  HookEventName,
  HookInputs,
  HookResults,
  HookRunReport,
  HookSettings,
  SessionStartSource,
} from "./types.js";

/** Settings of a {@link HookRunner}. */
export type HookRunnerOptions = {
  /** The session's id, sent to every hook. */
  sessionId: string;
  /** The folder the agent works in: sent to every hook, and where command hooks run. */
  cwd: string;
  /**
   * Settings files' content, as Claude Code writes them (`{ "hooks": { "PreToolUse": [ … ] } }`), in the order
   * their hooks should run (user, project, local). Only `hooks` is read.
   */
  settings?: HookSettings | readonly HookSettings[] | undefined;
  /** Hooks in code (functions or commands), run after the settings' hooks. */
  hooks?: HookConfiguration | undefined;
  /**
   * The environment of command hooks (default: this process's, API keys included, as in Claude Code: hooks are
   * the user's own programs). `MINAGENT_PROJECT_DIR` and `CLAUDE_PROJECT_DIR` are set to `cwd` in either case.
   */
  env?: Readonly<Record<string, string | undefined>> | undefined;
  /** Milliseconds a hook without its own `timeout` may run (default 60,000). */
  defaultTimeoutMs?: number | undefined;
  /** Longest text a hook may put before the model (a reason, a context), in characters (default 10,000). */
  maxOutputLength?: number | undefined;
  /** Times Stop hooks may send the agent back to work in a row before they are no longer asked (default 5). */
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

type ToolCallInput = Pick<ToolCall, "id" | "name" | "arguments">;

/**
 * Runs the hooks of one session: Claude Code's settings shape, command hooks and in-process functions, each
 * event's hooks one after another in the order configured (each sees what the ones before it rewrote or replaced;
 * a deny or a block stops the chain). A PreToolUse hook that fails — crashes, exits with a code other than 0 or 2,
 * prints malformed JSON, times out — denies the call it guards (unlike Claude Code); a hook of another event that
 * fails is reported to `onHookRun` and ignored, as in Claude Code. `failOpen` / `failClosed` set either per hook.
 * Agents use it through {@link withPreToolUseHooks} and {@link withPostToolUseHooks}; a host calls
 * `runSessionStartHooks`, `runUserPromptSubmitHooks` and `runStopHooks` itself.
 * @example
 * const hooks = new HookRunner({ sessionId, cwd, settings: JSON.parse(await readFile(".claude/settings.json", "utf8")) });
 * const agent = new Agent(model, registry, { canUseTool: withPreToolUseHooks(hooks, rules) });
 */
export class HookRunner {
  readonly sessionId: string;
  readonly cwd: string;
  /** Events the settings have hooks for that this runner does not run (Notification, SubagentStop…): warn the user. */
  readonly unsupportedEvents: readonly string[];
  readonly maxStopContinuations: number;
  readonly #hooks: Map<HookEventName, PreparedHook[]>;
  readonly #env: Readonly<Record<string, string | undefined>>;
  readonly #defaultTimeoutMs: number;
  readonly #maxOutputLength: number;
  readonly #onHookRun: ((report: HookRunReport) => void) | undefined;

  constructor(options: HookRunnerOptions) {
    if (typeof options?.sessionId !== "string" || options.sessionId === "")
      throw new UsageError("HookRunner needs a sessionId (a non-empty string).");
    if (typeof options.cwd !== "string" || options.cwd === "") throw new UsageError("HookRunner needs the cwd the agent works in.");
    this.sessionId = options.sessionId;
    this.cwd = options.cwd;
    const settings = options.settings === undefined ? [] : Array.isArray(options.settings) ? options.settings : [options.settings];
    const sources: HookSource[] = settings.map((file: HookSettings, index) => ({ hooks: file?.hooks, where: `settings[${index}].hooks` }));
    sources.push({ hooks: options.hooks, where: "hooks" });
    const { hooks, unsupportedEvents } = readHookConfiguration(sources);
    this.#hooks = hooks;
    this.unsupportedEvents = unsupportedEvents;
    this.#env = { ...(options.env ?? process.env), MINAGENT_PROJECT_DIR: options.cwd, CLAUDE_PROJECT_DIR: options.cwd };
    this.#defaultTimeoutMs = positive("defaultTimeoutMs", options.defaultTimeoutMs ?? 60_000);
    this.#maxOutputLength = positive("maxOutputLength", options.maxOutputLength ?? 10_000);
    this.maxStopContinuations = positive("maxStopContinuations", options.maxStopContinuations ?? 5, true);
    this.#onHookRun = options.onHookRun;
  }

  /** True when some hook listens to `event` (for a tool name or source, when given). */
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
    for (const hook of this.#matching("PreToolUse", call.name)) {
      const input = { ...this.#base("PreToolUse"), toolName: call.name, toolInput: args, toolUseId: call.id };
      const result = await this.#invoke("PreToolUse", hook, input, signal);
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
   * Runs the PostToolUse hooks matching the tool, after it returned `response`. Each sees the result as the hooks
   * before it left it; a block (or a failure, unless the hook fails open) withholds the result and stops.
   */
  async runPostToolUseHooks(
    call: { toolUseId: string; toolName: string; toolInput: Record<string, unknown>; toolResponse: unknown },
    signal?: AbortSignal,
  ): Promise<PostToolUseOutcome> {
    let response = call.toolResponse;
    const contexts: string[] = [];
    for (const hook of this.#matching("PostToolUse", call.toolName)) {
      const input = {
        ...this.#base("PostToolUse"),
        toolName: call.toolName,
        toolInput: call.toolInput,
        toolUseId: call.toolUseId,
        toolResponse: response,
      };
      const result = await this.#invoke("PostToolUse", hook, input, signal);
      if (result.decision === "block") {
        const reason = result.reason ?? "no reason given.";
        return { blocked: this.#cap(`Tool "${call.toolName}" ran, but a PostToolUse hook withheld its result: ${reason}`), response };
      }
      if (result.updatedOutput !== undefined) response = result.updatedOutput;
      if (result.additionalContext) contexts.push(result.additionalContext);
    }
    return { response, ...(contexts.length > 0 && { context: this.#labelled("PostToolUse", contexts) }) };
  }

  /** Runs the UserPromptSubmit hooks on a prompt before it is sent: a block stops it (tell the user why). */
  async runUserPromptSubmitHooks(prompt: string, signal?: AbortSignal): Promise<UserPromptSubmitOutcome> {
    const contexts: string[] = [];
    for (const hook of this.#matching("UserPromptSubmit")) {
      const result = await this.#invoke("UserPromptSubmit", hook, { ...this.#base("UserPromptSubmit"), prompt }, signal);
      if (result.decision === "block") return { blocked: this.#cap(result.reason ?? "A UserPromptSubmit hook blocked this prompt.") };
      if (result.additionalContext) contexts.push(result.additionalContext);
    }
    if (contexts.length === 0) return { input: prompt };
    const context = this.#labelled("UserPromptSubmit", contexts);
    return { input: `${prompt}\n\n${context}`, context };
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
    for (const hook of this.#matching("SessionStart", source)) {
      const result = await this.#invoke("SessionStart", hook, { ...this.#base("SessionStart"), source }, options.signal);
      if (result.decision === "block") return { blocked: this.#cap(result.reason ?? "A SessionStart hook blocked this session.") };
      if (result.additionalContext) contexts.push(result.additionalContext);
    }
    return contexts.length === 0 ? {} : { context: this.#cap(contexts.join("\n\n")) };
  }

  /**
   * Runs the Stop hooks once a run has `completed` (an interrupted run or one out of steps is not stopping by
   * choice: nothing runs). `continuations` counts the times in a row Stop hooks have sent the agent back; hooks
   * read `stopHookActive: continuations > 0`, and from `maxStopContinuations` on they are not asked. Returns
   * `{ continue }`, the next input to run with the result's messages as history, when a hook blocks the stop.
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
  ): Promise<{ continue: string } | undefined> {
    if (result.status !== "completed" || options.continuations >= this.maxStopContinuations) return undefined;
    const input = { ...this.#base("Stop"), stopHookActive: options.continuations > 0, lastAssistantMessage: result.final };
    const reasons: string[] = [];
    for (const hook of this.#matching("Stop")) {
      const answer = await this.#invoke("Stop", hook, input, options.signal);
      if (answer.decision === "block") reasons.push(answer.reason ?? "A Stop hook asks you to go on before you stop.");
    }
    if (reasons.length === 0) return undefined;
    return { continue: this.#cap(`Stop hook feedback: you may not stop yet.\n${reasons.join("\n\n")}`) };
  }

  /** The event's hooks that match `target` (all of them for events without matchers), each command once. */
  *#matching(event: HookEventName, target?: string): Generator<PreparedHook> {
    const commands = new Set<string>();
    for (const hook of this.#hooks.get(event) ?? []) {
      if (target !== undefined && !hook.matches(target)) continue;
      if (hook.handler.type === "command") {
        if (commands.has(hook.handler.command)) continue;
        commands.add(hook.handler.command);
      }
      yield hook;
    }
  }

  #base<E extends HookEventName>(event: E) {
    return { hookEventName: event, sessionId: this.sessionId, cwd: this.cwd };
  }

  /**
   * Runs one hook and returns what it means for the event: its answer; a block for exit code 2; for a failure,
   * nothing when it fails open, else a block whose reason says which hook failed and how.
   */
  async #invoke<E extends HookEventName>(
    event: E,
    hook: PreparedHook,
    input: HookInputs[E],
    signal: AbortSignal | undefined,
  ): Promise<HookResults[E]> {
    const started = performance.now();
    const timeoutMs = hook.timeoutMs ?? this.#defaultTimeoutMs;
    const verdict: HookVerdict<E> =
      hook.handler.type === "command"
        ? readCommandVerdict(
            event,
            await runHookCommand(hook.handler.command, {
              cwd: this.cwd,
              env: this.#env,
              stdin: toCommandInput(input, toReadableText),
              timeoutMs,
              signal,
            }),
            timeoutMs,
          )
        : await callFunctionHook(event, hook.handler as unknown as FunctionHook<E>, input, timeoutMs, signal);
    this.#report(hook, verdict, performance.now() - started);
    if (verdict.kind === "answered") return verdict.result;
    if (verdict.kind === "failed" && hook.failOpen) return {} as HookResults[E];
    const reason = verdict.kind === "blocked" ? verdict.reason : `${hook.label} failed: ${verdict.reason}.`;
    return (event === "PreToolUse" ? { decision: "deny", reason } : { decision: "block", reason }) as HookResults[E];
  }

  #report(hook: PreparedHook, verdict: HookVerdict<HookEventName>, durationMs: number): void {
    if (!this.#onHookRun) return;
    const decision = verdict.kind === "answered" ? (verdict.result as { decision?: unknown }).decision : undefined;
    const outcome = verdict.kind !== "answered" ? verdict.kind : decision === "deny" || decision === "block" ? "blocked" : "ok";
    const report: HookRunReport = { event: hook.event, hook: hook.display, outcome, failOpen: hook.failOpen, durationMs };
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

const timedOut = Symbol("timed out");

/** Calls an in-process hook within its timeout: a throw, a timeout or a malformed answer is a failure. */
async function callFunctionHook<E extends HookEventName>(
  event: E,
  hook: FunctionHook<E>,
  input: HookInputs[E],
  timeoutMs: number,
  signal: AbortSignal | undefined,
): Promise<HookVerdict<E>> {
  const controller = new AbortController();
  const hookSignal = signal ? AbortSignal.any([signal, controller.signal]) : controller.signal;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<typeof timedOut>((resolve) => {
    timer = setTimeout(() => {
      controller.abort(new AbortError(`The hook timed out after ${formatSeconds(timeoutMs)}.`));
      resolve(timedOut);
    }, timeoutMs);
  });
  let value: unknown;
  try {
    const work = Promise.resolve().then(() => hook.run(input, { signal: hookSignal }));
    value = await abortable(Promise.race([work, timeout]), signal);
  } catch (error) {
    if (signal?.aborted) throw error;
    return { kind: "failed", reason: `it threw ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}` };
  } finally {
    clearTimeout(timer);
  }
  if (value === timedOut) return { kind: "failed", reason: `it timed out after ${formatSeconds(timeoutMs)}` };
  try {
    return { kind: "answered", result: checkHookResult(event, value) };
  } catch (error) {
    return { kind: "failed", reason: `its answer is invalid: ${(error as Error).message}` };
  }
}

function positive(name: string, value: number, allowZero = false): number {
  if (typeof value !== "number" || !Number.isFinite(value) || value < 0 || (!allowZero && value === 0))
    throw new UsageError(`HookRunner's ${name} must be a ${allowZero ? "non-negative" : "positive"} number, got ${String(value)}.`);
  return value;
}
