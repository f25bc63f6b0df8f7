import { UsageError } from "../../engine.js";
import type { PathBases } from "../permissions/path-pattern.js";
import { compileMatcher } from "./compile-matcher.js";
import { compileHookCondition, type HookCondition } from "./hook-condition.js";
import { isPlainObject } from "./read-hook-output.js";
import { type CommandHook, type FunctionHook, type HookEventName, type HttpHook, hookEventNames } from "./types.js";

/** One configured hook, checked and ready to run. */
export type PreparedHook = {
  event: HookEventName;
  /** Whether it runs for a tool name (or a SessionStart source, a SessionEnd reason…). */
  matches: (target: string) => boolean;
  /** Its `if`, compiled: it runs only for the calls this matches. */
  condition: HookCondition | undefined;
  /** What the model calls it: its `name`, or `<event> hook #<n>`. */
  label: string;
  /** What the host calls it: its `name`, its command or URL, or `function #<n>`. */
  display: string;
  /** Its own timeout in milliseconds, if it has one. */
  timeoutMs: number | undefined;
  failOpen: boolean;
  handler: CommandHook | HttpHook | FunctionHook<HookEventName>;
};

/**
 * A source of hooks: a settings file's `hooks` object or the in-process configuration, and how to name it. A
 * source with a `file` is a settings file: a part of the wrong shape is skipped with a warning naming the file and
 * the key. One without (hooks given in code) is the program's own: a mistake there throws a UsageError.
 */
export type HookSource = { hooks: unknown; where: string; file?: string | undefined };

/** Events whose hooks guard an action: a guard that cannot run denies what it guards. */
const guardEvents: ReadonlySet<HookEventName> = new Set(["PreToolUse", "PermissionRequest"]);

/** Events about a tool call: the only ones that read a hook's `if`. */
const toolEvents: ReadonlySet<HookEventName> = new Set([
  "PreToolUse",
  "PermissionRequest",
  "PermissionDenied",
  "PostToolUse",
  "PostToolUseFailure",
]);

/** Claude Code's handler types minagent does not run. */
const otherHandlerTypes = new Set(["prompt", "agent", "mcp_tool"]);

/**
 * Checks every source and returns its hooks by event, in order (sources first to last, then as listed), the events
 * they name that this runner does not run, and one warning for each part of a settings file that was skipped.
 */
export function readHookConfiguration(
  sources: readonly HookSource[],
  bases: PathBases,
): { hooks: Map<HookEventName, PreparedHook[]>; unsupportedEvents: string[]; warnings: string[] } {
  const hooks = new Map<HookEventName, PreparedHook[]>();
  const unsupportedEvents = new Set<string>();
  const warnings: string[] = [];
  for (const source of sources) {
    const { hooks: configuration, where, file } = source;
    // A settings file's mistakes are warnings (the rest of the file applies); the program's own are errors.
    const problem = (message: string, consequence: string) => {
      if (file === undefined) throw new UsageError(`${message}.`);
      warnings.push(`${file}: ${message}; ${consequence}`);
    };
    if (configuration === undefined || configuration === null) continue;
    if (!isPlainObject(configuration)) {
      problem(`"${where}" must be an object of hook events, got ${describe(configuration)}`, "its hooks are skipped");
      continue;
    }
    for (const [event, groups] of Object.entries(configuration)) {
      if (groups === undefined) continue;
      if (!(hookEventNames as readonly string[]).includes(event)) {
        unsupportedEvents.add(event);
        if (file !== undefined)
          warnings.push(`${file}: "${where}.${event}" is not an event minagent runs hooks for; its hooks are skipped`);
        continue;
      }
      const list = hooks.get(event as HookEventName) ?? [];
      hooks.set(event as HookEventName, list);
      readGroups({ event: event as HookEventName, where: `${where}.${event}`, file, bases, problem }, groups, list);
    }
  }
  return { hooks, unsupportedEvents: [...unsupportedEvents], warnings };
}

type Reading = {
  event: HookEventName;
  where: string;
  file: string | undefined;
  bases: PathBases;
  /** Throws (hooks in code), or records a warning saying what is skipped (a settings file) and returns. */
  problem: (message: string, consequence: string) => void;
};

function readGroups(reading: Reading, groups: unknown, into: PreparedHook[]): void {
  const { where, problem } = reading;
  if (!Array.isArray(groups)) {
    const why = `"${where}" must be an array of { "matcher", "hooks" } entries, got ${describe(groups)}`;
    problem(why, consequenceOf(reading, "its hooks are skipped"));
    pushBrokenGuard(reading, why, () => true, into);
    return;
  }
  groups.forEach((group: unknown, index) => {
    const at = `${where}[${index}]`;
    if (!isPlainObject(group) || !Array.isArray(group.hooks)) {
      const why = `"${at}" must be an object with a "hooks" array`;
      problem(why, consequenceOf(reading, "that entry is skipped"));
      pushBrokenGuard({ ...reading, where: at }, why, () => true, into);
      return;
    }
    let matches: (target: string) => boolean;
    try {
      matches = compileMatcher(group.matcher as string | undefined, at);
    } catch (error) {
      const why = (error as Error).message.replace(/\.$/, "");
      problem(why, consequenceOf(reading, "that entry is skipped"));
      // A guard whose matcher cannot be read might have guarded any call.
      pushBrokenGuard({ ...reading, where: at }, why, () => true, into);
      return;
    }
    group.hooks.forEach((handler: unknown, position) => {
      const place = { ...reading, where: `${at}.hooks[${position}]` };
      const hook = readHandler(place, handler, matches, into.length + 1);
      if (hook) into.push(hook);
      else pushBrokenGuard(place, "it could not be read (see the warning above)", matches, into);
    });
  });
}

function readHandler(reading: Reading, handler: unknown, matches: (target: string) => boolean, number: number): PreparedHook | undefined {
  const { event, where, file, problem } = reading;
  const skip = (why: string) => {
    problem(`"${where}" ${why}`, consequenceOf(reading, "that hook is skipped"));
    return undefined;
  };
  if (!isPlainObject(handler)) return skip('must be an object like { "type": "command", "command": "…" }');
  const { type, timeout, failOpen, failClosed, name } = handler;
  if (type === "command") {
    if (typeof handler.command !== "string" || handler.command.trim() === "") return skip('needs "command", a non-empty string');
    const { args } = handler;
    if (args !== undefined && (!Array.isArray(args) || args.some((arg) => typeof arg !== "string")))
      return skip('has "args" that is not a list of strings');
    if (handler.async !== undefined && typeof handler.async !== "boolean") return skip('has "async" that is not true or false');
  } else if (type === "http") {
    const why = httpProblem(handler);
    if (why !== undefined) return skip(why);
  } else if (type === "function" && file === undefined) {
    if (typeof handler.run !== "function") return skip("needs run, a function (input, { signal }) => result");
  } else if (typeof type === "string" && otherHandlerTypes.has(type)) {
    return skip(`is a ${event} hook of type "${type}", which is not supported by minagent (it runs "command" and "http" hooks)`);
  } else {
    return skip(`has type ${JSON.stringify(type)}: use "command" or "http"${file === undefined ? ' (or "function" in code)' : ""}`);
  }
  if (timeout !== undefined && (typeof timeout !== "number" || !Number.isFinite(timeout) || timeout <= 0))
    return skip(`has "timeout" ${JSON.stringify(timeout)}: it must be a positive number of seconds`);
  if (failOpen !== undefined && typeof failOpen !== "boolean") return skip('has "failOpen" that is not true or false');
  if (failClosed !== undefined && typeof failClosed !== "boolean") return skip('has "failClosed" that is not true or false');
  if (failOpen === true && failClosed === true) return skip('says both "failOpen" and "failClosed": choose one');
  if (name !== undefined && (typeof name !== "string" || name === "")) return skip('has "name" that is not a non-empty string');
  const condition = readCondition(reading, handler.if);
  if (condition === false) return undefined;
  return {
    event,
    matches,
    condition,
    label: name ?? `${event} hook #${number}`,
    display: name ?? displayOf(handler as CommandHook | HttpHook, number),
    timeoutMs: timeout === undefined ? undefined : timeout * 1000,
    // Guards fail closed; the other events' hooks fail open unless told otherwise (Claude Code's policy).
    failOpen: failOpen ?? (failClosed === true ? false : !guardEvents.has(event)),
    handler: handler as unknown as PreparedHook["handler"],
  };
}

/** What becomes of a part that cannot be read: a guard's (in a settings file) denies what it would have guarded. */
function consequenceOf(reading: Reading, skipped: string): string {
  return reading.file !== undefined && guardEvents.has(reading.event)
    ? `the calls it would guard are denied until it is fixed (a guard fails closed)`
    : skipped;
}

/**
 * In place of a settings file's PreToolUse or PermissionRequest hook that cannot be read: a hook that fails, so that
 * the calls it would have guarded are denied with a message naming it (guards fail closed), rather than run unguarded.
 */
function pushBrokenGuard(reading: Reading, why: string, matches: (target: string) => boolean, into: PreparedHook[]): void {
  if (reading.file === undefined || !guardEvents.has(reading.event)) return;
  const message = `the ${reading.event} hook "${reading.where}" in ${reading.file} cannot be read (${why}); fix it, and the calls it guards run again`;
  into.push({
    event: reading.event,
    matches,
    condition: undefined,
    label: `${reading.event} hook #${into.length + 1}`,
    display: `${reading.where} (unreadable)`,
    timeoutMs: undefined,
    failOpen: false,
    handler: {
      type: "function",
      run: () => {
        throw new Error(message);
      },
    },
  });
}

/** The hook's `if`, compiled; `false` when the hook must be skipped (a rule that does not parse, an event that ignores `if`). */
function readCondition(reading: Reading, condition: unknown): HookCondition | undefined | false {
  const { event, where, file, bases, problem } = reading;
  if (condition === undefined) return undefined;
  if (typeof condition !== "string" || condition.trim() === "") {
    problem(`"${where}.if" must be one permission rule such as "Bash(git *)"`, consequenceOf(reading, "that hook is skipped"));
    return false;
  }
  if (!toolEvents.has(event)) {
    // Claude Code never runs such a hook: saying so beats a hook that silently never runs.
    problem(
      `"${where}" has "if", which only tool events read (PreToolUse, PermissionRequest, PermissionDenied, PostToolUse, PostToolUseFailure): as in Claude Code, it never runs`,
      "that hook is skipped",
    );
    return false;
  }
  try {
    return compileHookCondition(condition, `${file ?? "hooks"} ${where}.if`, bases);
  } catch (error) {
    problem(
      `"${where}.if" ${JSON.stringify(condition)} is not a permission rule (${(error as Error).message.replace(/\.$/, "")})`,
      consequenceOf(reading, "that hook is skipped"),
    );
    return false;
  }
}

function httpProblem(handler: Record<string, unknown>): string | undefined {
  const { url, headers, allowedEnvVars } = handler;
  if (typeof url !== "string" || !/^https?:\/\//i.test(url)) return 'needs "url", an http:// or https:// URL';
  try {
    new URL(url);
  } catch {
    return `has "url" ${JSON.stringify(url)}, which is not a URL`;
  }
  if (headers !== undefined && (!isPlainObject(headers) || Object.values(headers).some((value) => typeof value !== "string")))
    return 'has "headers" that is not an object of strings';
  if (allowedEnvVars !== undefined && (!Array.isArray(allowedEnvVars) || allowedEnvVars.some((value) => typeof value !== "string")))
    return 'has "allowedEnvVars" that is not a list of variable names';
  return undefined;
}

/** How the host names a hook: its command, or its URL without credentials or query (either may hold a token). */
function displayOf(handler: CommandHook | HttpHook, number: number): string {
  if (handler.type === "command") return handler.command;
  if (handler.type === "http") {
    const url = new URL(handler.url);
    return `POST ${url.protocol}//${url.host}${url.pathname}`;
  }
  return `function #${number}`;
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}
