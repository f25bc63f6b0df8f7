import { UsageError } from "../../engine.js";
import { compileMatcher } from "./compile-matcher.js";
import { isPlainObject } from "./read-hook-output.js";
import { type CommandHook, type FunctionHook, type HookEventName, hookEventNames } from "./types.js";

/** One configured hook, checked and ready to run. */
export type PreparedHook = {
  event: HookEventName;
  /** Whether it runs for a tool name (or a SessionStart source). */
  matches: (target: string) => boolean;
  /** What the model calls it: its `name`, or `<event> hook #<n>`. */
  label: string;
  /** What the host calls it: its `name`, its command, or `function #<n>`. */
  display: string;
  /** Its own timeout in milliseconds, if it has one. */
  timeoutMs: number | undefined;
  failOpen: boolean;
  handler: CommandHook | FunctionHook<HookEventName>;
};

/** A source of hooks: a settings file's `hooks` object or the in-process configuration, and how to name it in errors. */
export type HookSource = { hooks: unknown; where: string };

/**
 * Checks every source and returns its hooks by event, in order (sources first to last, then as listed), with
 * the names of the events it has hooks for but this runner does not support. Throws a UsageError naming the
 * first malformed entry: a hook that cannot run must not be skipped in silence.
 */
export function readHookConfiguration(sources: readonly HookSource[]): {
  hooks: Map<HookEventName, PreparedHook[]>;
  unsupportedEvents: string[];
} {
  const hooks = new Map<HookEventName, PreparedHook[]>();
  const unsupportedEvents = new Set<string>();
  for (const { hooks: configuration, where } of sources) {
    if (configuration === undefined || configuration === null) continue;
    if (!isPlainObject(configuration)) throw new UsageError(`${where} must be an object of hook events, got ${typeof configuration}.`);
    for (const [event, groups] of Object.entries(configuration)) {
      if (groups === undefined) continue;
      if (!(hookEventNames as readonly string[]).includes(event)) {
        unsupportedEvents.add(event);
        continue;
      }
      const list = hooks.get(event as HookEventName) ?? [];
      hooks.set(event as HookEventName, list);
      readGroups(event as HookEventName, groups, `${where}.${event}`, list);
    }
  }
  return { hooks, unsupportedEvents: [...unsupportedEvents] };
}

function readGroups(event: HookEventName, groups: unknown, where: string, into: PreparedHook[]): void {
  if (!Array.isArray(groups)) throw new UsageError(`${where} must be an array of { matcher, hooks } entries.`);
  groups.forEach((group: unknown, index) => {
    const at = `${where}[${index}]`;
    if (!isPlainObject(group) || !Array.isArray(group.hooks)) throw new UsageError(`${at} must be an object with a "hooks" array.`);
    const matches = compileMatcher(group.matcher as string | undefined, at);
    group.hooks.forEach((handler: unknown, position) => {
      into.push(readHandler(event, handler, `${at}.hooks[${position}]`, matches, into.length + 1));
    });
  });
}

/** Events whose hooks guard an action: a guard that cannot run blocks what it guards. */
const guardEvents: ReadonlySet<HookEventName> = new Set(["PreToolUse"]);

function readHandler(
  event: HookEventName,
  handler: unknown,
  where: string,
  matches: (target: string) => boolean,
  number: number,
): PreparedHook {
  if (!isPlainObject(handler)) throw new UsageError(`${where} must be an object like { "type": "command", "command": "…" }.`);
  const { type, timeout, failOpen, failClosed, name } = handler;
  if (type === "command") {
    if (typeof handler.command !== "string" || handler.command.trim() === "")
      throw new UsageError(`${where}.command must be a non-empty string.`);
  } else if (type === "function") {
    if (typeof handler.run !== "function") throw new UsageError(`${where}.run must be a function (input, { signal }) => result.`);
  } else {
    throw new UsageError(`${where}.type ${JSON.stringify(type)} is not supported: use "command" (or "function" in code).`);
  }
  if (timeout !== undefined && (typeof timeout !== "number" || !Number.isFinite(timeout) || timeout <= 0))
    throw new UsageError(`${where}.timeout must be a positive number of seconds, got ${JSON.stringify(timeout)}.`);
  if (failOpen !== undefined && typeof failOpen !== "boolean") throw new UsageError(`${where}.failOpen must be true or false.`);
  if (failClosed !== undefined && typeof failClosed !== "boolean") throw new UsageError(`${where}.failClosed must be true or false.`);
  if (failOpen === true && failClosed === true) throw new UsageError(`${where} says both failOpen and failClosed: choose one.`);
  if (name !== undefined && (typeof name !== "string" || name === "")) throw new UsageError(`${where}.name must be a non-empty string.`);
  return {
    event,
    matches,
    label: name ?? `${event} hook #${number}`,
    display: name ?? (type === "command" ? (handler.command as string) : `function #${number}`),
    timeoutMs: timeout === undefined ? undefined : timeout * 1000,
    // Guards fail closed; the other events' hooks fail open unless told otherwise (Claude Code's policy).
    failOpen: failOpen ?? (failClosed === true ? false : !guardEvents.has(event)),
    handler: handler as CommandHook | FunctionHook<HookEventName>,
  };
}
