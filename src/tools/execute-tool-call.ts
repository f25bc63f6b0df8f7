import type { ToolResult } from "../core/events.js";
import { toText } from "../core/to-text.js";
import type { ToolCall } from "../core/types.js";
import { abortPromise, ToolError, throwIfAborted, toAbortError } from "../errors.js";
import type { Tool, ToolContext } from "./tool.js";
import type { CompiledSchema } from "./tool-schema.js";

/** A registered tool with its compiled schema. */
export type PreparedTool = { tool: Tool; schema: CompiledSchema };

/** Limits that apply to one call. */
export type ExecuteOptions = {
  /** The run's signal: aborting it rejects the call with an AbortError. */
  signal?: AbortSignal;
  /** Milliseconds before the call times out (the tool's own `timeoutMs` wins). */
  timeoutMs: number;
  /** Longest observation in characters; longer results are cut with a marker. */
  maxResultLength: number;
};

const timedOut = Symbol("timed out");

/**
 * Runs one tool call and turns every failure a model can cause into an observation:
 * a malformed or invalid argument object, a throw, a timeout. Only an abort of the run rejects.
 */
export async function executeToolCall(prepared: PreparedTool, call: ToolCall, options: ExecuteOptions): Promise<ToolResult> {
  const { tool, schema } = prepared;
  if (call.argumentsError !== undefined) {
    return failure(
      `Invalid arguments for tool "${tool.name}": ${call.argumentsError} Call it again with a JSON object matching its schema.`,
    );
  }
  const args: unknown = call.arguments;
  if (typeof args !== "object" || args === null || Array.isArray(args)) {
    return failure(
      `Invalid arguments for tool "${tool.name}": expected a JSON object, got ${describeType(args)}. Call it again with an object matching its schema.`,
    );
  }
  const context = new ToolCallContext(call.id, options.signal);
  try {
    throwIfAborted(options.signal);
    const checked = schema.validate(args as Record<string, unknown>);
    const check = checked instanceof Promise ? await checked : checked;
    if (!check.ok) return invalidArguments(tool.name, check.problems);
    const returned: unknown = tool.execute(check.value as never, context);
    // A synchronous tool has already finished: only a promise needs a timer and an abort watch.
    const timeoutMs = tool.timeoutMs ?? options.timeoutMs;
    const value = isThenable(returned) ? await settleWithin(returned, timeoutMs, context, options.signal) : returned;
    if (value === timedOut) return failure(`Tool "${tool.name}" timed out after ${timeoutMs} ms and was abandoned.`);
    return { content: truncate(serialize(value), options.maxResultLength), isError: false };
  } catch (error) {
    if (options.signal?.aborted) throw toAbortError(options.signal);
    return failure(describeError(error));
  }
}

/** Waits for a tool's promise, but no longer than its timeout or the run's abort; either aborts the tool's signal. */
async function settleWithin(
  work: PromiseLike<unknown>,
  timeoutMs: number,
  context: ToolCallContext,
  runSignal: AbortSignal | undefined,
): Promise<unknown> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<typeof timedOut>((resolve) => {
    timer = setTimeout(() => {
      context.abort(new ToolError(`timed out after ${timeoutMs} ms`));
      resolve(timedOut);
    }, timeoutMs);
  });
  const runAbort = runSignal && abortPromise(runSignal);
  const onRunAbort = () => context.abort(runSignal?.reason);
  runSignal?.addEventListener("abort", onRunAbort, { once: true });
  try {
    return await Promise.race(runAbort ? [work, timeout, runAbort.promise] : [work, timeout]);
  } finally {
    clearTimeout(timer);
    runAbort?.dispose();
    runSignal?.removeEventListener("abort", onRunAbort);
  }
}

/**
 * The context a tool receives. Its AbortController is made only when the tool reads `signal`: most tools
 * never do, and creating one costs more than the rest of a call.
 */
class ToolCallContext implements ToolContext {
  readonly toolCallId: string;
  readonly #runSignal: AbortSignal | undefined;
  #controller: AbortController | undefined;
  #abortReason: { reason: unknown } | undefined;

  constructor(toolCallId: string, runSignal: AbortSignal | undefined) {
    this.toolCallId = toolCallId;
    this.#runSignal = runSignal;
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

function invalidArguments(toolName: string, problems: string[]): ToolResult {
  const list = problems.map((problem) => `- ${problem}`).join("\n");
  return failure(`Invalid arguments for tool "${toolName}":\n${list}\nFix the arguments to match the tool's schema and call it again.`);
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

/** Strings pass through; `undefined` is ""; anything else becomes JSON (see {@link toText}). */
export function serialize(value: unknown): string {
  return value === undefined ? "" : toText(value);
}

/** Cuts `text` to `limit` characters, saying how much was cut. */
export function truncate(text: string, limit: number): string {
  if (text.length <= limit) return text;
  let end = limit;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end--; // never split a surrogate pair
  return `${text.slice(0, end)}\n…[truncated ${text.length - end} of ${text.length} characters]`;
}
