import type { Model, Tool } from "../../engine.js";
import { UsageError } from "../../errors.js";
import { HookRunner, type HookRunnerOptions } from "../hooks/index.js";
import type { PermissionMode } from "../permissions/modes.js";
import { type SubagentModelChoice, subagentModelSpec } from "./model-aliases.js";
import type { SubagentDefinition } from "./subagent-definition.js";

/** What the Agent tool knows of one subagent type, worked out once when the tool is made. */
export type SubagentType = {
  /** Its tools among those subagents may have (not the Agent tool, nor MCP tools). */
  tools: string[];
  /** Whether it gets an Agent tool of its own (below the depth limit). */
  nests: boolean;
  /** The types its Agent tool may start; undefined: every type. */
  agentTypes: readonly string[] | undefined;
  /** Whether every call it can make only reads. */
  readOnly: boolean;
  /** Which of the session's MCP tools it gets, read at each run (servers come and go); undefined: none. */
  mcpTools: ((name: string) => boolean) | undefined;
  /** How its model is made. */
  model: SubagentModelChoice;
  /**
   * Makes the runner of its agent file's hooks for one run (its `agent_id`), if it has hooks: PreToolUse and
   * PostToolUse as written, Stop as Claude Code turns it, SubagentStop.
   */
  hooksFor: ((agentId: string) => HookRunner) | undefined;
};

/** What {@link describeSubagentType} reads of the Agent tool's options. */
export type TypeContext = {
  model: Model;
  toolNames: readonly string[];
  buildTools: (names: readonly string[]) => readonly Tool[];
  resolveModel: ((spec: string) => Model | Promise<Model>) | undefined;
  onWarning: ((message: string) => void) | undefined;
  /** The names of the session's MCP servers now, to warn of a name that is none of them. */
  mcpServerNames: (() => readonly string[]) | undefined;
  /** The session's permission mode now, to warn of a file's mode that would loosen it. */
  sessionMode: (() => PermissionMode) | undefined;
  /** The session's hook settings (id, folder, reporting), for the runner of a file's hooks. */
  hooks: Omit<HookRunnerOptions, "settings" | "settingsFiles" | "hooks" | "agent"> | undefined;
  /** The names of every type the Agent tool can start. */
  typeNames: readonly string[];
};

const agentToolName = "Agent";

/**
 * Checks a definition against what the session has, and works out its type: the tools it gets (its `tools`, less
 * `disallowedTools`), the MCP tools it may have, its model, its hooks, whether it is read-only (by building its
 * tools once). What only leaves something out is a warning (a tool minagent lacks, a model with no equivalent);
 * without `onWarning`, a tool that does not exist is a UsageError. A read-only definition given a tool that writes,
 * or a model to resolve without `resolveModel`, is a UsageError.
 */
export function describeSubagentType(definition: SubagentDefinition, context: TypeContext): SubagentType {
  const where = `Subagent "${definition.name}" (${definition.source})`;
  const warn = (message: string) => context.onWarning?.(`${where} ${message}`);
  const fromFile = definition.source !== "built-in";
  const wanted = definition.tools ?? [...context.toolNames, agentToolName];
  const denied = matcherOf(definition.disallowedTools ?? []);
  const named = wanted.filter((name) => !isMcpEntry(name));
  const unknown = named.filter((name) => name !== agentToolName && !context.toolNames.includes(name));
  if (unknown.length > 0 && fromFile) {
    const tools = `Tools a subagent may have: ${[...context.toolNames, agentToolName].join(", ")}.`;
    if (!context.onWarning) throw new UsageError(`${where} names tools that do not exist: ${unknown.join(", ")}. ${tools}`);
    warn(`names tools minagent does not have: ${unknown.join(", ")}; it runs without them. ${tools}`);
  }
  const mcpEntries = [...wanted.filter(isMcpEntry), ...(definition.mcpServers ?? []).map((server) => `mcp__${server}`)];
  warnOfUnknownServers(mcpEntries, context, warn);
  if (definition.readOnly && mcpEntries.length > 0) warn("is read-only, so it gets no MCP tools (a server's tools may change things)");
  const model = chooseModel(definition, context, where, warn);
  warnOfLooserMode(definition.permissionMode, context.sessionMode?.(), warn);
  const tools = named.filter((name) => name !== agentToolName && context.toolNames.includes(name) && !denied(name));
  const built = context.buildTools(tools);
  const writing = built.filter((tool) => !tool.readOnly && !(definition.readOnly && tool.name === "Bash"));
  if (definition.readOnly && writing.length > 0)
    throw new UsageError(`${where} is read-only, but these of its tools are not: ${writing.map((tool) => tool.name).join(", ")}.`);
  const nests = named.includes(agentToolName) && !denied(agentToolName);
  const agentTypes = definition.agentTypes;
  const strangers = (agentTypes ?? []).filter((type) => !context.typeNames.includes(type));
  if (strangers.length > 0) warn(`lets its Agent tool start types there are not: ${strangers.join(", ")}; they are left out`);
  const everyMcpTool = definition.tools === undefined && !definition.readOnly;
  const allowed = matcherOf(mcpEntries);
  const mcpTools =
    definition.readOnly || (!everyMcpTool && mcpEntries.length === 0)
      ? undefined
      : (name: string) => (everyMcpTool || allowed(name)) && !denied(name);
  const hooksFor = definition.hooks === undefined ? undefined : hookRunnerFactory(definition, context);
  // Made once now, so that hooks given in code that cannot run are refused when the tool is made, not at a run.
  hooksFor?.("check");
  return {
    tools,
    nests,
    agentTypes,
    // A subagent that may start others, or use MCP tools, is read-only only when declared so.
    readOnly: definition.readOnly === true || (writing.length === 0 && !nests && mcpTools === undefined),
    mcpTools,
    model,
    hooksFor,
  };
}

/** The runner of a definition's hooks, as its subagent's: its id and type go with every event, its Stop is SubagentStop. */
function hookRunnerFactory(definition: SubagentDefinition, context: TypeContext): (agentId: string) => HookRunner {
  const { Stop, ...others } = definition.hooks ?? {};
  const subagentStop = [...asList(others.SubagentStop), ...asList(Stop)];
  const hooks = subagentStop.length === 0 ? others : { ...others, SubagentStop: subagentStop };
  const narrowed = definition.permissionMode === "plan" || definition.permissionMode === "dontAsk" ? definition.permissionMode : undefined;
  return (agentId) =>
    new HookRunner({
      sessionId: globalThis.crypto.randomUUID(),
      cwd: process.cwd(),
      ...context.hooks,
      settings: { hooks },
      agent: { id: agentId, type: definition.name },
      permissionMode: () => narrowed ?? context.sessionMode?.(),
    });
}

function asList(value: unknown): unknown[] {
  return value === undefined ? [] : Array.isArray(value) ? value : [value];
}

/** `mcp__github__create_issue`, `mcp__github__*`, `mcp__github`: entries resolved against the session's MCP tools at each run. */
function isMcpEntry(name: string): boolean {
  return name.startsWith("mcp__");
}

/** Whether a tool name is one of `entries`: exactly, or as a tool of a server named whole (`mcp__github__*`, `mcp__github`). */
function matcherOf(entries: readonly string[]): (name: string) => boolean {
  const exact = new Set(entries);
  const servers = entries.filter(isMcpEntry).map((entry) => `${entry.replace(/__\*$/, "")}__`);
  return (name) => exact.has(name) || servers.some((prefix) => name.startsWith(prefix));
}

function warnOfUnknownServers(entries: readonly string[], context: TypeContext, warn: (message: string) => void): void {
  if (!context.mcpServerNames || entries.length === 0) return;
  const servers = context.mcpServerNames();
  const missing = entries.filter((entry) => !servers.some((server) => entry === `mcp__${server}` || entry.startsWith(`mcp__${server}__`)));
  if (missing.length > 0)
    warn(
      `names MCP tools of servers this session does not have: ${missing.map((entry) => entry.replace(/^mcp__/, "")).join(", ")}; it runs without them (servers: ${servers.join(", ") || "none"})`,
    );
}

function chooseModel(
  definition: SubagentDefinition,
  context: TypeContext,
  where: string,
  warn: (message: string) => void,
): SubagentModelChoice {
  if (definition.model === undefined) return { kind: "session" };
  const choice = subagentModelSpec(definition.model, context.model);
  if (choice.kind === "session" && choice.note) warn(`asks for ${choice.note}`);
  if (choice.kind === "resolve" && !context.resolveModel)
    throw new UsageError(`${where} asks for the model "${choice.spec}", but no resolveModel was given to make it.`);
  return choice;
}

/** How much a mode lets run without asking, for telling whether a file's mode would loosen the session's. */
const looseness: Record<PermissionMode, number> = { plan: 0, dontAsk: 0, default: 1, acceptEdits: 2, bypassPermissions: 3 };

function warnOfLooserMode(mode: PermissionMode | undefined, session: PermissionMode | undefined, warn: (message: string) => void): void {
  if (session === undefined || (mode !== "acceptEdits" && mode !== "bypassPermissions")) return;
  if (looseness[mode] <= looseness[session]) return;
  warn(
    `asks for permissionMode ${mode}, which would loosen the session's ${session}: an agent file cannot, so its calls are judged in the session's mode (start the session in ${mode} to give it that)`,
  );
}
