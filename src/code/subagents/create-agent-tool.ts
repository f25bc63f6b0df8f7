import type { CanUseTool, Model, PrepareTurn, Tool, ToolRegistryOptions } from "../../engine.js";
import { ToolError, UsageError } from "../../errors.js";
import { type HookRunner, type HookRunnerOptions, withPostToolUseHooks } from "../hooks/index.js";
import type { PermissionMode } from "../permissions/modes.js";
import { describeSubagentType, type SubagentType } from "./describe-subagent-type.js";
import { runSubagent } from "./run-subagent.js";
import type { SubagentBudget } from "./subagent-budget.js";
import { builtInSubagents, type SubagentDefinition } from "./subagent-definition.js";
import { createSubagentSlots, readSubagentLimits, type SubagentLimits, type SubagentSlots } from "./subagent-limits.js";

/** The Agent tool's name (Claude Code's). */
export const agentToolName = "Agent";

/** Settings of {@link createAgentTool}. */
export type AgentToolOptions = {
  /** The model subagents use unless their definition names another: the parent's. */
  model: Model;
  /**
   * Makes the model a definition names (`model: anthropic:claude-haiku-4-5`, or `sonnet` mapped to the session's
   * provider: `subagentModelSpec`); needed as soon as one names a model other than the session's. Called once per
   * model string.
   */
  resolveModel?: ((spec: string) => Model | Promise<Model>) | undefined;
  /** The subagent types (default: the built-in general-purpose and Explore). Merge files' with `mergeSubagentDefinitions`. */
  definitions?: readonly SubagentDefinition[] | undefined;
  /**
   * Told, one line each, of what a definition asks for that it does not get: tools there are not (it then runs without
   * them), a model with no equivalent for the session's provider, a permission mode looser than the session's, MCP
   * servers the session does not have. Without it, a tool that does not exist is a UsageError and the rest is not said.
   */
  onWarning?: ((message: string) => void) | undefined;
  /** The type used when a call names none (default: `general-purpose` when defined, else the first). */
  defaultType?: string | undefined;
  /** Names of the tools subagents may be given (not the Agent tool: it is added below the depth limit). */
  toolNames: readonly string[];
  /**
   * Makes the named tools (all among `toolNames`), for one subagent run or — once per type, at creation — to learn
   * which types are read-only. Build fresh instances of tools that keep state (a TodoWrite of its own).
   */
  buildTools: (names: readonly string[]) => readonly Tool[];
  /**
   * Tools that come and go (MCP servers'), read at each subagent run and given to every type that names no tool list
   * of its own and is not read-only (general-purpose): a subagent can use the servers the session has now.
   */
  sharedTools?: (() => readonly Tool[]) | undefined;
  /** The names of the session's MCP servers now: a definition naming another one (`mcpServers`, `mcp__x__y`) is a warning. */
  mcpServerNames?: (() => readonly string[]) | undefined;
  /**
   * The session's permission check: every call of every subagent goes through it, so the rules, the mode and the
   * hooks are the parent's, and a person is asked through it (CodingAgent's `askPerson`). An "ask" it returns
   * becomes a denial the subagent reads (a subagent cannot stop and be resumed). Without it, a tool's
   * `needsApproval` is such an ask.
   */
  canUseTool?: CanUseTool | undefined;
  /**
   * Decides a call as the session's rules and mode would, asking nobody (CodingAgent's `permissions.explain`): a
   * definition's `permissionMode: dontAsk` denies what it would ask. Without it, `canUseTool` is asked, and a person
   * it asks may answer.
   */
  judgeCall?: CanUseTool | undefined;
  /** The session's permission mode now, to warn when a definition's `permissionMode` would loosen it (it never does). */
  sessionMode?: (() => PermissionMode) | undefined;
  /**
   * What the runners of definitions' own `hooks` share with the session's (its id, the folder hooks run in,
   * `onHookRun`). Default: a new session id and the process's folder.
   */
  hooks?: Omit<HookRunnerOptions, "settings" | "settingsFiles" | "hooks" | "agent"> | undefined;
  /**
   * The session's hooks: its SubagentStart hooks run before each subagent's first model call (their context goes
   * before its prompt), its SubagentStop hooks when it is about to answer (a block sends it back to work).
   */
  sessionHooks?: HookRunner | undefined;
  /** Depth, concurrency, budget share, tokens, steps and time (see {@link SubagentLimits}). */
  limits?: Partial<SubagentLimits> | undefined;
  /** The session's budget: subagents stop before passing their share of it. */
  budget?: SubagentBudget | undefined;
  /** A subagent's system prompt (default: {@link subagentSystemPrompt}); add the environment and project memory here. */
  systemPrompt?: ((definition: SubagentDefinition) => string) | undefined;
  /** Each subagent's registry settings (default `{ orderEffects: true }`: its effects keep the model's order). */
  registry?: ToolRegistryOptions | undefined;
  /** Makes, for each subagent run, what shapes its turns (its own compactor), run after its budget check. */
  prepareTurn?: ((definition: SubagentDefinition) => PrepareTurn | undefined) | undefined;
};

/** A subagent type as `/agents` lists it. */
export type SubagentSummary = {
  name: string;
  description: string;
  /** The tools it gets (`Agent` when it may start subagents of its own). */
  tools: readonly string[];
  /** Its model as written (`sonnet`, `anthropic:claude-haiku-4-5`), or `inherit`. */
  model: string;
  readOnly: boolean;
  /** Its permission mode as written, if it names one (it only ever narrows the session's). */
  permissionMode?: PermissionMode | undefined;
  /** Its colour (Claude Code's `color`), if it names one. */
  color?: string | undefined;
  /** `built-in`, or its file. */
  source: string;
  /** True for the type used when a call names none. */
  isDefault: boolean;
};

/** The Agent tool, with what a host needs to know of it. */
export type AgentTool = Tool & {
  /** True when every type it can start is read-only (then its calls overlap like other reads). */
  readonly readOnly: boolean;
  /**
   * Whether a call with these (possibly unvalidated) arguments starts a read-only subagent: what a registry that
   * orders effects should ask instead of `readOnly`, once tools may answer per call.
   */
  readOnlyCall(args: Record<string, unknown>): boolean;
  /** The subagent types it can start, for `/agents`. */
  subagents(): SubagentSummary[];
  /** The session's subagents running now, at every level. */
  readonly running: number;
};

/** What every Agent tool of a session shares: the limits, the slots, the models, what each type is. */
type Session = {
  options: AgentToolOptions;
  limits: SubagentLimits;
  slots: SubagentSlots;
  models: Map<string, Promise<Model>>;
  /** Per type: its tools, whether it may start subagents, whether it is read-only, its model and hooks. */
  types: Map<string, SubagentType>;
};

/**
 * Claude Code's Agent tool: `{ description, prompt, subagent_type? }` starts a subagent — an Agent with its own
 * context, the tools of its type and perhaps another model — as a child run of the call, and returns only its final
 * answer. Its calls meet the session's `canUseTool`; its usage counts in the parent's; it stops at the limits
 * (depth, subagents at once, budget share, tokens, steps, time) with an observation saying which.
 * A definition's `disallowedTools` are taken from its tools, its `mcpServers` add the tools of those servers, its
 * `permissionMode` narrows the session's check, and its `hooks` run beside the session's (PreToolUse and PostToolUse
 * on its calls, Stop before it answers).
 * Throws a UsageError at once for a definition that names unknown tools (without `onWarning`), a read-only one given a
 * tool that writes, or a model to make without `resolveModel`.
 * @example
 * const agentTool = createAgentTool({ model, toolNames: ["Read", "Grep", "Glob", "Bash"], buildTools: (names) => names.map((name) => registry.get(name)!), canUseTool });
 */
export function createAgentTool(options: AgentToolOptions): AgentTool {
  const definitions = options.definitions ?? builtInSubagents;
  if (definitions.length === 0) throw new UsageError("createAgentTool needs at least one subagent definition.");
  const limits = readSubagentLimits(options.limits);
  const session: Session = { options, limits, slots: createSubagentSlots(limits.maxConcurrent), models: new Map(), types: new Map() };
  const typeNames = definitions.map((definition) => definition.name);
  for (const definition of definitions)
    session.types.set(
      definition.name,
      describeSubagentType(definition, {
        model: options.model,
        toolNames: options.toolNames,
        buildTools: options.buildTools,
        resolveModel: options.resolveModel,
        onWarning: options.onWarning,
        mcpServerNames: options.mcpServerNames,
        sessionMode: options.sessionMode,
        hooks: options.hooks,
        typeNames,
      }),
    );
  if (options.defaultType !== undefined && !session.types.has(options.defaultType))
    throw new UsageError(`defaultType "${options.defaultType}" is not one of the subagent types: ${[...session.types.keys()].join(", ")}.`);
  return buildAgentTool(session, definitions, 0);
}

/**
 * A subagent's system prompt: its definition's, what every subagent must know about its answer, then `context` if
 * given (the environment, the project memory).
 */
export function subagentSystemPrompt(definition: SubagentDefinition, context?: string | undefined): string {
  const prompt = `${definition.prompt}\n\nYou are a subagent: you were started by another agent, which sees nothing of your work but your final message. End with a complete, self-contained report.`;
  return context ? `${prompt}\n\n${context}` : prompt;
}

function buildAgentTool(session: Session, definitions: readonly SubagentDefinition[], depth: number): AgentTool {
  const { options, limits, slots } = session;
  const byName = new Map(definitions.map((definition) => [definition.name, definition]));
  const defaultType = chooseDefault(definitions, options.defaultType);
  const typeOf = (args: Record<string, unknown>) =>
    args.subagent_type === undefined
      ? byName.get(defaultType)
      : typeof args.subagent_type === "string"
        ? byName.get(args.subagent_type)
        : undefined;
  const isReadOnly = (definition: SubagentDefinition) => session.types.get(definition.name)?.readOnly === true;
  return {
    name: agentToolName,
    description: describeTool(definitions, defaultType, isReadOnly),
    compileOnFirstCall: true,
    parameters: {
      type: "object",
      properties: {
        description: { type: "string", description: "What the subagent will do, in 3 to 5 words (the user sees it)." },
        prompt: {
          type: "string",
          description: "The task, with everything the subagent needs: it sees nothing of your conversation. Say what to report back.",
        },
        subagent_type: {
          type: "string",
          enum: definitions.map((definition) => definition.name),
          description: `Which subagent to start (default: ${defaultType}).`,
        },
      },
      required: ["description", "prompt"],
      additionalProperties: false,
    },
    readOnly: definitions.every(isReadOnly),
    timeoutMs: limits.timeoutMs,
    readOnlyCall(args) {
      const definition = typeOf(args);
      return definition !== undefined && isReadOnly(definition);
    },
    subagents: () => definitions.map((definition) => summarize(session, definition, depth, definition.name === defaultType)),
    get running() {
      return slots.running;
    },
    async execute(args, context) {
      const input = args as { description: string; prompt: string; subagent_type?: string };
      const definition = typeOf(input) as SubagentDefinition;
      if (depth >= limits.maxDepth)
        throw new ToolError(
          `No subagent was started: subagents may nest ${limits.maxDepth} levels deep, and this one is at the limit. Do the task yourself.`,
        );
      if (options.budget && options.budget.remainingUsd() <= 0)
        throw new ToolError("No subagent was started: the session's budget is spent.");
      // The main agent's calls wait for a slot; a subagent's are refused, since the slots may be held by its own ancestors.
      const release = await slots.acquire(depth === 0, context.signal);
      if (!release)
        throw new ToolError(
          `No subagent was started: ${limits.maxConcurrent === 1 ? "1 subagent is" : `${limits.maxConcurrent} subagents are`} running already, the most the session runs at once. Do the task yourself, or try again once one has finished.`,
        );
      try {
        const type = session.types.get(definition.name) as SubagentType;
        // Claude Code's agent_id: the session's hooks and the file's name this run by it.
        const agentId = globalThis.crypto.randomUUID();
        const hooks = type.hooksFor?.(agentId);
        return await runSubagent(
          {
            definition,
            agentId,
            model: await resolveModelOf(session, definition, type),
            tools: subagentTools(session, definitions, definition, type, depth, hooks),
            system: options.systemPrompt ? options.systemPrompt(definition) : subagentSystemPrompt(definition),
            canUseTool: options.canUseTool,
            judgeCall: options.judgeCall,
            hooks,
            sessionHooks: options.sessionHooks,
            limits,
            budget: options.budget,
            registry: options.registry ?? { orderEffects: true },
            prepareTurn: options.prepareTurn?.(definition),
          },
          input,
          context,
        );
      } finally {
        release();
      }
    },
  };
}

/**
 * A run's tools: its type's, the session's MCP tools it may have now, and an Agent tool of its own below the depth
 * limit (offering the types its file allows; a read-only subagent's, read-only types only), with its file's
 * PostToolUse hooks around each.
 */
function subagentTools(
  session: Session,
  definitions: readonly SubagentDefinition[],
  definition: SubagentDefinition,
  type: SubagentType,
  depth: number,
  hooks: HookRunner | undefined,
): Tool[] {
  const { options, limits } = session;
  const tools = [...options.buildTools(type.tools)];
  if (options.sharedTools && type.mcpTools)
    for (const shared of options.sharedTools())
      if (type.mcpTools(shared.name) && !tools.some((tool) => tool.name === shared.name)) tools.push(shared);
  if (type.nests && depth + 1 < limits.maxDepth) {
    const offered = definitions.filter(
      (other) =>
        (type.agentTypes === undefined || type.agentTypes.includes(other.name)) &&
        (!definition.readOnly || session.types.get(other.name)?.readOnly === true),
    );
    if (offered.length > 0) tools.push(buildAgentTool(session, offered, depth + 1));
  }
  return hooks ? tools.map((tool) => (hooks.hasHooks("PostToolUse", tool.name) ? withPostToolUseHooks(tool, hooks) : tool)) : tools;
}

/**
 * The model of a type: the parent's, or the one its definition names (mapped to the session's provider), made once
 * per model string (a failure, such as a missing key, is an observation and is tried again next time).
 */
async function resolveModelOf(session: Session, definition: SubagentDefinition, type: SubagentType): Promise<Model> {
  const { model, resolveModel } = session.options;
  if (type.model.kind === "session" || !resolveModel) return model;
  const spec = type.model.spec;
  let resolved = session.models.get(spec);
  if (!resolved) {
    resolved = (async () => resolveModel(spec))();
    session.models.set(spec, resolved);
  }
  try {
    return await resolved;
  } catch (error) {
    session.models.delete(spec);
    throw new ToolError(
      `No subagent was started: the model "${spec}" of the ${definition.name} subagent could not be made: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

/** The wanted default when it is among `definitions` (a read-only subagent's Agent tool offers fewer), else general-purpose, else the first. */
function chooseDefault(definitions: readonly SubagentDefinition[], wanted: string | undefined): string {
  const named = (name: string | undefined) => definitions.find((definition) => definition.name === name);
  return (named(wanted) ?? named("general-purpose") ?? (definitions[0] as SubagentDefinition)).name;
}

function describeTool(
  definitions: readonly SubagentDefinition[],
  defaultType: string,
  isReadOnly: (definition: SubagentDefinition) => boolean,
): string {
  const types = definitions.map(
    (definition) =>
      `- ${definition.name}${definition.name === defaultType ? " (default)" : ""}${isReadOnly(definition) ? " [read-only]" : ""}: ${definition.description}`,
  );
  return [
    "Start a subagent: an agent with a context of its own that carries out the task in `prompt` and returns only its final answer, so that its searching and reading stay out of your context. Use it for self-contained tasks and for research that takes many searches. It starts with nothing but your prompt: say exactly what to do and what to report. Several read-only subagents started in one turn run at once. Its tool calls meet the same permissions as yours.",
    "",
    "Subagent types (subagent_type):",
    ...types,
  ].join("\n");
}

function summarize(session: Session, definition: SubagentDefinition, depth: number, isDefault: boolean): SubagentSummary {
  const type = session.types.get(definition.name) as SubagentType;
  const nests = type.nests && depth + 1 < session.limits.maxDepth;
  return {
    name: definition.name,
    description: definition.description,
    tools: nests ? [...type.tools, agentToolName] : type.tools,
    model: definition.model ?? "inherit",
    readOnly: type.readOnly,
    ...(definition.permissionMode !== undefined && { permissionMode: definition.permissionMode }),
    ...(definition.color !== undefined && { color: definition.color }),
    source: definition.source,
    isDefault,
  };
}
