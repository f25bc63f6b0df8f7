import type { ToolResult } from "../core/events.js";
import { toText } from "../core/to-text.js";
import type { ToolCall } from "../core/types.js";
import { abortPromise, ToolError, toAbortError } from "../errors.js";
import type { Tool } from "./tool.js";
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
  const timeoutMs = tool.timeoutMs ?? options.timeoutMs;
  const controller = new AbortController();
  const runAbort = options.signal && abortPromise(options.signal);
  const onRunAbort = () => controller.abort(options.signal?.reason);
  options.signal?.addEventListener("abort", onRunAbort, { once: true });
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<typeof timedOut>((resolve) => {
    timer = setTimeout(() => {
      controller.abort(new ToolError(`timed out after ${timeoutMs} ms`));
      resolve(timedOut);
    }, timeoutMs);
  });
  try {
    const work = (async () => {
      const check = await schema.validate(args as Record<string, unknown>);
      if (!check.ok) return invalidArguments(tool.name, check.problems);
      const value = await tool.execute(check.value as never, { signal: controller.signal, toolCallId: call.id });
      return { content: truncate(serialize(value), options.maxResultLength), isError: false };
    })();
    const outcome = await Promise.race(runAbort ? [work, timeout, runAbort.promise] : [work, timeout]);
    if (outcome === timedOut) return failure(`Tool "${tool.name}" timed out after ${timeoutMs} ms and was abandoned.`);
    return outcome;
  } catch (error) {
    if (options.signal?.aborted) throw toAbortError(options.signal);
    return failure(describeError(error));
  } finally {
    clearTimeout(timer);
    runAbort?.dispose();
    options.signal?.removeEventListener("abort", onRunAbort);
  }
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
