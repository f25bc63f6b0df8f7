import type { ToolOutcome, ToolResult } from "../core/events.js";
import type { ToolExecuteOptions } from "../core/loop-types.js";
import { RunContext } from "../core/run-context.js";
import type { ToolCall } from "../core/types.js";
import { abortable, ToolError, throwIfAborted, toAbortError } from "../errors.js";
import { serialize, toText, truncate } from "../text.js";
import { type ArgumentBounds, checkArgumentValue } from "./argument-bounds.js";
import type { CanUseTool, PermissionDecision } from "./permission.js";
import { isToolOutput, type Tool, type ToolContext } from "./tool.js";
import type { CompiledSchema } from "./tool-schema.js";

/** A registered tool with its compiled schema. */
export type PreparedTool = { tool: Tool; schema: CompiledSchema };

/** A registry's limits and checks, the same for every call. */
export type RegistrySettings = {
  /** Milliseconds before the call times out (the tool's own `timeoutMs` wins). */
  timeoutMs: number;
  /** Longest observation in characters; longer results are cut with a marker. */
  maxResultLength: number;
  /** The registry's checks, consulted in order before the agent's `canUseTool`. */
  checks: readonly CanUseTool[];
  /** Names of every registered tool, for the observation that answers an unknown one. */
  toolNames: () => readonly string[];
  /** How large a call's arguments may be (deepest nesting, most characters of JSON). */
  argumentBounds: ArgumentBounds;
};

const timedOut = Symbol("timed out");
const allow: PermissionDecision = Object.freeze({ behavior: "allow" });

/**
 * Runs one tool call and turns every failure a model can cause into an observation: an unknown tool or one
 * not offered this turn, a malformed or invalid argument object, a refusal, a throw, a timeout. A call whose
 * permission decision is "ask" is neither run nor answered: it is returned pending. Only an abort of the run rejects.
 */
export async function executeToolCall(
  prepared: PreparedTool | undefined,
  call: ToolCall,
  options: ToolExecuteOptions,
  settings: RegistrySettings,
): Promise<ToolOutcome> {
  if (!prepared || (options.offeredTools && !options.offeredTools.has(call.name)))
    return failure(unavailableTool(call.name, options, settings));
  const { tool, schema } = prepared;
  const args: unknown = call.arguments;
  if (call.argumentsError === undefined && (typeof args !== "object" || args === null || Array.isArray(args))) {
    return failure(
      `Invalid arguments for tool "${tool.name}": expected a JSON object, got ${describeType(args)}. Call it again with an object matching its schema.`,
    );
  }
  // Arguments too large for the validator are refused as a provider's response refuses them (createToolCall), in the same words.
  const argumentsError = call.argumentsError ?? checkArgumentValue(args, settings.argumentBounds);
  if (argumentsError !== undefined) {
    return boundedFailure(
      `Invalid arguments for tool "${tool.name}": ${argumentsError} Call it again with a JSON object matching its schema.`,
      settings,
    );
  }
  const context = new ToolCallContext(call.id, options.signal, options.run);
  try {
    throwIfAborted(options.signal);
    const checked = schema.validate(args as Record<string, unknown>);
    let check = checked instanceof Promise ? await checked : checked;
    if (!check.ok) return invalidArguments(tool.name, check.problems, settings);
    // A check may wait for a person: an abort ends the wait at once, and nothing runs after it.
    const decision = needsDecision(tool, options, settings)
      ? await abortable(decide(tool, call, check.value as Record<string, unknown>, context, options, settings.checks), options.signal)
      : allow;
    throwIfAborted(options.signal);
    if (decision.behavior === "deny") return boundedFailure(decision.message, settings);
    if (decision.behavior === "ask") return decision.reason === undefined ? { pending: true } : { pending: true, reason: decision.reason };
    if (decision.arguments !== undefined) {
      check = await schema.validate(decision.arguments);
      if (!check.ok) return invalidArguments(tool.name, check.problems, settings, true);
    }
    const returned: unknown = tool.execute(check.value as never, context);
    // A synchronous tool has already finished: only a promise needs a timer and an abort watch.
    const timeoutMs = tool.timeoutMs ?? settings.timeoutMs;
    const value = isThenable(returned) ? await settleWithin(returned, timeoutMs, context, options.signal, options.run) : returned;
    if (value === timedOut) return failure(`Tool "${tool.name}" timed out after ${timeoutMs} ms and was abandoned.`);
    if (isToolOutput(value))
      return {
        content: truncate(value.text, settings.maxResultLength),
        isError: false,
        ...(value.parts.length > 0 && { parts: [...value.parts] }),
      };
    return { content: truncate(serialize(value), settings.maxResultLength), isError: false };
  } catch (error) {
    if (options.signal?.aborted) throw toAbortError(options.signal);
    return boundedFailure(describeError(error), settings);
  }
}

/** An error observation no longer than a result may be: a tool that throws a megabyte is cut like one that returns it. */
function boundedFailure(content: string, settings: RegistrySettings): ToolResult {
  return failure(truncate(content, settings.maxResultLength));
}

/** Most calls meet no check at all: they skip the decision (and its await) entirely. */
function needsDecision(tool: Tool, options: ToolExecuteOptions, settings: RegistrySettings): boolean {
  return options.decision !== undefined || settings.checks.length > 0 || options.canUseTool !== undefined || !!tool.needsApproval;
}

/**
 * The one permission decision: a decision already taken (a resumed run's) is final; else the registry's checks
 * in order (a deny or an ask stands; an allow may rewrite the arguments), then the agent's `canUseTool`, whose
 * word is final; without one, the tool's own `needsApproval` makes it "ask".
 */
async function decide(
  tool: Tool,
  call: ToolCall,
  validated: Record<string, unknown>,
  context: ToolCallContext,
  options: ToolExecuteOptions,
  checks: readonly CanUseTool[],
): Promise<PermissionDecision> {
  if (options.decision) return options.decision;
  let args = validated;
  let rewritten = false;
  const needsApproval = typeof tool.needsApproval === "function" ? await tool.needsApproval(validated as never) : !!tool.needsApproval;
  for (const check of checks) {
    const decision = checkDecision(
      await check({ id: call.id, name: call.name, arguments: args }, permissionContext(tool, context, needsApproval, options.signal)),
    );
    if (decision.behavior !== "allow") return decision;
    if (decision.arguments !== undefined) {
      args = decision.arguments;
      rewritten = true;
    }
  }
  if (options.canUseTool) {
    const decision = checkDecision(
      await options.canUseTool(
        { id: call.id, name: call.name, arguments: args },
        permissionContext(tool, context, needsApproval, options.signal),
      ),
    );
    if (decision.behavior !== "allow" || decision.arguments !== undefined || !rewritten) return decision;
    return { behavior: "allow", arguments: args };
  }
  if (needsApproval) return { behavior: "ask" };
  return rewritten ? { behavior: "allow", arguments: args } : allow;
}

function permissionContext(tool: Tool, context: ToolCallContext, needsApproval: boolean, signal: AbortSignal | undefined) {
  return { runId: context.run.runId, tool, signal: signal ?? neverAborted, needsApproval };
}

/** The signal a check gets when the run has none: it never aborts. */
const neverAborted = new AbortController().signal;

/** A check that returns something else is a programming error; say so to the model and to whoever reads the trace. */
function checkDecision(decision: PermissionDecision | undefined): PermissionDecision {
  const behavior = (decision as { behavior?: unknown } | undefined)?.behavior;
  if (behavior === "allow" || behavior === "ask") return decision as PermissionDecision;
  if (behavior === "deny")
    return { behavior: "deny", message: String((decision as { message?: unknown }).message ?? "Permission denied.") };
  throw new ToolError(
    `The permission check returned ${typeof decision === "string" ? JSON.stringify(decision) : toText(decision)}, which is not a decision: it must return { behavior: "allow" | "deny" | "ask" }.`,
  );
}

/**
 * Waits for a tool's promise, but no longer than its timeout or the run's abort; either aborts the tool's signal.
 * The abort is watched through the run (one listener on its signal for all its calls), so eight tools at once
 * add eight callbacks, not sixteen listeners and a MaxListenersExceededWarning.
 */
async function settleWithin(
  work: PromiseLike<unknown>,
  timeoutMs: number,
  context: ToolCallContext,
  runSignal: AbortSignal | undefined,
  run: RunContext | undefined,
): Promise<unknown> {
  let timer: NodeJS.Timeout | undefined;
  let stopWatching: (() => void) | undefined;
  const stop = new Promise<typeof timedOut>((resolve, reject) => {
    timer = setTimeout(() => {
      context.abort(new ToolError(`timed out after ${timeoutMs} ms`));
      resolve(timedOut);
    }, timeoutMs);
    if (!runSignal) return;
    const onAbort = () => {
      context.abort(runSignal.reason);
      reject(toAbortError(runSignal));
    };
    if (runSignal.aborted) onAbort();
    else stopWatching = run && run.signal === runSignal ? run.onAbort(onAbort) : listenOnce(runSignal, onAbort);
  });
  stop.catch(() => {}); // observed by the race; never an unhandled rejection
  try {
    return await Promise.race([work, stop]);
  } finally {
    clearTimeout(timer);
    stopWatching?.();
  }
}

function listenOnce(signal: AbortSignal, onAbort: () => void): () => void {
  signal.addEventListener("abort", onAbort, { once: true });
  return () => signal.removeEventListener("abort", onAbort);
}

/**
 * The context a tool receives. Its AbortController is made only when the tool reads `signal`: most tools
 * never do, and creating one costs more than the rest of a call.
 */
class ToolCallContext implements ToolContext {
  readonly toolCallId: string;
  readonly #runSignal: AbortSignal | undefined;
  #run: RunContext | undefined;
  #controller: AbortController | undefined;
  #abortReason: { reason: unknown } | undefined;

  constructor(toolCallId: string, runSignal: AbortSignal | undefined, run: RunContext | undefined) {
    this.toolCallId = toolCallId;
    this.#runSignal = runSignal;
    this.#run = run;
  }

  /** The calling run; a call made outside any run (`registry.execute` by hand) gets a run of its own. */
  get run(): RunContext {
    this.#run ??= new RunContext({ signal: this.#runSignal });
    return this.#run;
  }

  /** Made when read: most tools never ask for it. */
  get idempotencyKey(): string {
    return `${this.run.runId}/${this.toolCallId}`;
  }

  get signal(): AbortSignal {
    if (!this.#controller) {
      this.#controller = new AbortController();
      if (this.#runSignal?.aborted) this.abort(this.#runSignal.reason);
      if (this.#abortReason) this.#controller.abort(this.#abortReason.reason);
    }
    return this.#controller.signal;
  }

  abort(reason: unknown): void {
    this.#abortReason ??= { reason };
    this.#controller?.abort(reason);
  }
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as PromiseLike<unknown> | null)?.then === "function";
}

/** An error observation. */
export function failure(content: string): ToolResult {
  return { content, isError: true };
}

function invalidArguments(toolName: string, problems: string[], settings: RegistrySettings, rewritten = false): ToolResult {
  const list = problems.map((problem) => `- ${problem}`).join("\n");
  const subject = rewritten
    ? `The arguments a permission check gave tool "${toolName}" are invalid`
    : `Invalid arguments for tool "${toolName}"`;
  return boundedFailure(`${subject}:\n${list}\nFix the arguments to match the tool's schema and call it again.`, settings);
}

/** The observation for a call to a tool that does not exist, or is not offered this turn. */
function unavailableTool(name: unknown, options: ToolExecuteOptions, settings: RegistrySettings): string {
  const quoted = JSON.stringify(truncate(String(name), 100));
  const offered = options.offeredTools;
  const available = offered ? [...offered] : settings.toolNames();
  const list = available.length > 0 ? `Available tools: ${available.join(", ")}.` : "No tools are available.";
  const known = typeof name === "string" && settings.toolNames().includes(name);
  return known ? `Tool ${quoted} is not available at this step. ${list}` : `Unknown tool ${quoted}. ${list}`;
}

function describeError(error: unknown): string {
  if (error instanceof ToolError) return error.message;
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return `Error: ${toText(error)}`;
}

function describeType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return `a ${typeof value}`;
}
