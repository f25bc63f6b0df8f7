import { AbortError } from "../../engine.js";
import { abortable } from "../../errors.js";
import { toReadableText } from "../../text.js";
import type { PreparedHook } from "./read-hook-configuration.js";
import { checkHookResult, eventCanBlock, formatSeconds, type HookVerdict, readCommandVerdict, toCommandInput } from "./read-hook-output.js";
import { runHookCommand } from "./run-hook-command.js";
import { runHttpHook } from "./run-hook-http.js";
import type { FunctionHook, HookEventName, HookInputs, HookResults } from "./types.js";

/** Where and how a hook runs. */
export type HandlerContext = {
  cwd: string;
  env: Readonly<Record<string, string | undefined>>;
  timeoutMs: number;
  signal: AbortSignal | undefined;
};

/** Runs one hook — a command, an HTTP request or a function — and says what it came to. */
export async function runHookHandler<E extends HookEventName>(
  event: E,
  hook: PreparedHook,
  input: HookInputs[E],
  context: HandlerContext,
): Promise<HookVerdict<E>> {
  const { handler } = hook;
  const { timeoutMs, signal } = context;
  if (handler.type === "command") {
    const stdin = toCommandInput(input, toReadableText);
    // Exec form has no shell to expand the project folder: Claude Code substitutes it as plain text.
    const place = (text: string) => text.replaceAll(projectDirectoryPlaceholder, context.cwd);
    const exec = handler.args === undefined ? {} : { args: handler.args.map(place) };
    const command = handler.args === undefined ? handler.command : place(handler.command);
    const ran = await runHookCommand(command, { cwd: context.cwd, env: context.env, stdin, timeoutMs, signal, ...exec });
    return readCommandVerdict(event, ran, timeoutMs);
  }
  if (handler.type === "http")
    return runHttpHook(event, handler, { body: toCommandInput(input, toReadableText), env: context.env, timeoutMs, signal });
  return callFunctionHook(event, handler as unknown as FunctionHook<E>, input, timeoutMs, signal);
}

/**
 * What a hook's verdict means for its event, as Claude Code defines exit code 2 and failures per event:
 * - an answer is the result;
 * - exit 2 (a block on purpose) denies a PreToolUse call and blocks the events that can block; on
 *   PostToolUseFailure its stderr is context for the model; on PermissionRequest, PermissionDenied, Notification,
 *   SubagentStart, PostCompact and SessionEnd it changes nothing (the host is told, through the report);
 * - a failure is nothing when the hook fails open or its event cannot block; otherwise a deny (PreToolUse,
 *   PermissionRequest) or a block, whose reason says which hook failed and how.
 */
export function resultOf<E extends HookEventName>(event: E, hook: PreparedHook, verdict: HookVerdict<E>): HookResults[E] {
  if (verdict.kind === "answered") return verdict.result;
  const none = {} as HookResults[E];
  if (verdict.kind === "blocked") {
    if (event === "PostToolUseFailure") return { additionalContext: verdict.reason } as HookResults[E];
    if (event === "PermissionRequest" || !eventCanBlock(event)) return none;
    return (
      event === "PreToolUse" ? { decision: "deny", reason: verdict.reason } : { decision: "block", reason: verdict.reason }
    ) as HookResults[E];
  }
  if (hook.failOpen || !eventCanBlock(event)) return none;
  const reason = `${hook.label} failed: ${verdict.reason}.`;
  return (
    event === "PreToolUse" || event === "PermissionRequest" ? { decision: "deny", reason } : { decision: "block", reason }
  ) as HookResults[E];
}

/** Claude Code's path placeholder, replaced in exec form's command and arguments. */
const projectDirectoryPlaceholder = ["$", "{CLAUDE_PROJECT_DIR}"].join("");

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
