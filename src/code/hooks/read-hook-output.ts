import type { HookCommandResult } from "./run-hook-command.js";
import type { HookEventName, HookInputs, HookResults } from "./types.js";

/**
 * What one hook came to: it answered (a result, perhaps `{}`), it blocked on purpose (exit code 2), or it failed
 * (crashed, exited with another code, timed out, or answered something that is not a result).
 */
export type HookVerdict<E extends HookEventName> =
  | { kind: "answered"; result: HookResults[E]; systemMessage?: string | undefined }
  | { kind: "blocked"; reason: string }
  | { kind: "failed"; reason: string };

/** Longest part of a failed command's stderr kept in the failure's reason: the end, where the error usually is. */
const stderrTail = 2_000;

/**
 * Reads a command's ending as Claude Code defines it: exit 0 is an answer (stdout read as JSON when it is JSON,
 * else as plain text, which is context for UserPromptSubmit and SessionStart and ignored elsewhere); exit 2 blocks,
 * with stderr as the reason; anything else is a failure. Unlike Claude Code, stdout that starts like JSON but does
 * not parse, or JSON whose fields have the wrong type, is a failure too, not text.
 */
export function readCommandVerdict<E extends HookEventName>(event: E, result: HookCommandResult, timeoutMs: number): HookVerdict<E> {
  if (result.startError !== undefined) return { kind: "failed", reason: `it could not be started: ${result.startError}` };
  if (result.timedOut) return { kind: "failed", reason: `it timed out after ${formatSeconds(timeoutMs)} and was killed` };
  if (result.exitCode === null)
    return { kind: "failed", reason: `it was killed by ${result.killedBy ?? "a signal"}${stderrSuffix(result.stderr)}` };
  if (result.exitCode === 2) {
    const reason = result.stderr.trim();
    return { kind: "blocked", reason: reason === "" ? "(the hook exited with code 2 and wrote no reason on stderr)" : reason };
  }
  if (result.exitCode !== 0) return { kind: "failed", reason: `it exited with code ${result.exitCode}${stderrSuffix(result.stderr)}` };
  if (result.stdoutOverflow) return { kind: "failed", reason: "it printed more than 1 MiB on stdout" };
  const stdout = result.stdout.trim();
  if (stdout === "") return { kind: "answered", result: {} };
  if (!stdout.startsWith("{")) return { kind: "answered", result: plainTextResult(event, stdout) };
  return readJsonAnswer(event, stdout);
}

/**
 * Reads a JSON object answer (a command's stdout, an HTTP hook's response body) as Claude Code's output for `event`:
 * text that does not parse, or fields of the wrong type, are a failure.
 */
export function readJsonAnswer<E extends HookEventName>(event: E, text: string, what = "stdout"): HookVerdict<E> {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return { kind: "failed", reason: `its ${what} starts like JSON but is not JSON (${(error as Error).message})` };
  }
  try {
    if (!isPlainObject(json)) throw new Error(`expected an object, got ${describe(json)}`);
    const systemMessage = optionalString(json, "systemMessage");
    return { kind: "answered", result: checkHookResult(event, fromCommandJson(event, json)), systemMessage };
  } catch (error) {
    return { kind: "failed", reason: `its JSON output is invalid: ${(error as Error).message}` };
  }
}

/** The result of a hook that printed plain text: the text is context where an event takes context. */
function plainTextResult<E extends HookEventName>(event: E, text: string): HookResults[E] {
  return (event === "UserPromptSubmit" || event === "SessionStart" ? { additionalContext: text } : {}) as HookResults[E];
}

const decisions: Record<HookEventName, readonly string[]> = {
  PreToolUse: ["allow", "deny", "ask"],
  PermissionRequest: ["allow", "deny"],
  PermissionDenied: [],
  PostToolUse: ["block"],
  PostToolUseFailure: [],
  PostToolBatch: ["block"],
  UserPromptSubmit: ["block"],
  Notification: [],
  Stop: ["block"],
  SubagentStart: [],
  SubagentStop: ["block"],
  PreCompact: ["block"],
  PostCompact: [],
  SessionStart: ["block"],
  SessionEnd: [],
};

/** Whether a hook of `event` can stop what it runs for (a block or a deny): the others only observe or add context. */
export function eventCanBlock(event: HookEventName): boolean {
  return decisions[event].some((decision) => decision === "block" || decision === "deny");
}

/**
 * Checks what a hook answered (an in-process hook's return value, or a command's JSON once translated) and returns
 * it as the event's result; `undefined` is `{}`. Throws an Error saying what is wrong otherwise: the caller makes it
 * a failure, which blocks unless the hook fails open.
 */
export function checkHookResult<E extends HookEventName>(event: E, value: unknown): HookResults[E] {
  if (value === undefined || value === null) return {} as HookResults[E];
  if (!isPlainObject(value)) throw new Error(`expected an object, got ${describe(value)}`);
  const decision = value.decision;
  if (decision !== undefined && !decisions[event].includes(decision as string)) {
    const expected = decisions[event].map((item) => JSON.stringify(item)).join(", ");
    throw new Error(
      expected === ""
        ? `a ${event} hook makes no decision, got decision ${JSON.stringify(decision)}`
        : `decision ${JSON.stringify(decision)} is not one of ${expected} (or absent)`,
    );
  }
  optionalString(value, "reason");
  optionalString(value, "additionalContext");
  for (const key of ["retry", "interrupt"])
    if (value[key] !== undefined && typeof value[key] !== "boolean")
      throw new Error(`${key} must be true or false, got ${describe(value[key])}`);
  if (value.updatedInput !== undefined && !isPlainObject(value.updatedInput))
    throw new Error(`updatedInput must be an object of arguments, got ${describe(value.updatedInput)}`);
  return value as HookResults[E];
}

/**
 * Translates Claude Code's JSON output into a result: the common `decision`/`reason`, `continue: false` (stop:
 * read here as a block where the event can block, except for Stop and SubagentStop, where stopping is what it asks),
 * and `hookSpecificOutput`: PreToolUse's `permissionDecision`, `permissionDecisionReason` and `updatedInput`;
 * PermissionRequest's `decision` object (`behavior`, `updatedInput`, `message`, `interrupt`); PermissionDenied's
 * `retry`; `additionalContext`; PostToolUse's `updatedToolOutput` (or the older `updatedMCPToolOutput`).
 * PreToolUse's deprecated `decision: "approve" | "block"` is read as allow and deny. What an event does not read is
 * left out, so that it cannot fail.
 */
function fromCommandJson(event: HookEventName, json: Record<string, unknown>): Record<string, unknown> {
  const specific = json.hookSpecificOutput;
  if (specific !== undefined && !isPlainObject(specific)) throw new Error("hookSpecificOutput must be an object");
  const own = (specific ?? {}) as Record<string, unknown>;
  if (own.hookEventName !== undefined && own.hookEventName !== event)
    throw new Error(`hookSpecificOutput.hookEventName is ${JSON.stringify(own.hookEventName)} in a ${event} hook`);
  const halted = json.continue === false && event !== "Stop" && event !== "SubagentStop" && eventCanBlock(event);
  const reason = (halted ? (optionalString(json, "stopReason") ?? json.reason) : json.reason) ?? undefined;
  switch (event) {
    case "PreToolUse": {
      const legacy = json.decision === "approve" ? "allow" : json.decision === "block" ? "deny" : json.decision;
      return {
        decision: halted ? "deny" : (own.permissionDecision ?? legacy),
        reason: own.permissionDecisionReason ?? reason,
        updatedInput: own.updatedInput,
      };
    }
    case "PermissionRequest": {
      if (halted) return { decision: "deny", reason, interrupt: true };
      if (own.decision === undefined) return {};
      if (!isPlainObject(own.decision)) throw new Error("hookSpecificOutput.decision must be an object with a behavior");
      const { behavior, message, updatedInput, interrupt } = own.decision;
      if (behavior !== "allow" && behavior !== "deny")
        throw new Error(`hookSpecificOutput.decision.behavior must be "allow" or "deny", got ${describe(behavior)}`);
      return behavior === "allow" ? { decision: "allow", updatedInput } : { decision: "deny", reason: message, interrupt };
    }
    case "PermissionDenied":
      return { retry: own.retry };
    case "PostToolUseFailure":
    case "SubagentStart":
      return { additionalContext: own.additionalContext };
    case "Notification":
    case "PostCompact":
    case "SessionEnd":
      return {};
    case "PreCompact":
      return { decision: halted ? "block" : json.decision, reason };
    case "Stop":
    case "SubagentStop":
      return { decision: json.decision, reason, additionalContext: own.additionalContext };
    default: {
      const result: Record<string, unknown> = {
        decision: halted ? "block" : json.decision,
        reason,
        additionalContext: own.additionalContext,
      };
      if (event === "PostToolUse") {
        if ("updatedToolOutput" in own) result.updatedOutput = own.updatedToolOutput;
        else if ("updatedMCPToolOutput" in own) result.updatedOutput = own.updatedMCPToolOutput;
      }
      return result;
    }
  }
}

/**
 * The JSON a command hook reads on stdin (and an HTTP hook receives): Claude Code's snake_case names (`session_id`,
 * `transcript_path`, `permission_mode`, `hook_event_name`, `tool_name`, `tool_input`, `tool_use_id`,
 * `tool_response`, `stop_hook_active`, `tool_calls` and its items' fields, …). A tool response that JSON cannot hold
 * (a cycle, a bigint) is sent as readable text.
 */
export function toCommandInput(input: HookInputs[HookEventName], readable: (value: unknown) => string): string {
  const wire = snakeCase(input as Record<string, unknown>);
  if (Array.isArray(wire.tool_calls)) wire.tool_calls = wire.tool_calls.map((call) => snakeCase(call as Record<string, unknown>));
  if ("tool_response" in wire && wire.tool_response === undefined) wire.tool_response = "";
  try {
    return JSON.stringify(wire);
  } catch {
    return JSON.stringify({ ...wire, tool_response: readable(wire.tool_response) });
  }
}

function snakeCase(object: Record<string, unknown>): Record<string, unknown> {
  const wire: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(object)) wire[key.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`)] = value;
  return wire;
}

function optionalString(object: Record<string, unknown>, key: string): string | undefined {
  const value = object[key];
  if (value !== undefined && typeof value !== "string") throw new Error(`${key} must be a string, got ${describe(value)}`);
  return value;
}

function stderrSuffix(stderr: string): string {
  const text = stderr.trim();
  if (text === "") return "";
  return `: ${text.length > stderrTail ? `…${text.slice(-stderrTail)}` : text}`;
}

export function formatSeconds(milliseconds: number): string {
  return `${Number((milliseconds / 1000).toFixed(3))} s`;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "string" ? `the string ${JSON.stringify(value.slice(0, 100))}` : `a ${typeof value}`;
}
