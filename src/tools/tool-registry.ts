import type { ToolOutcome } from "../core/events.js";
import type { ToolExecuteOptions, ToolExecutor } from "../core/loop-types.js";
import type { ToolCall, ToolSchema } from "../core/types.js";
import { UsageError } from "../errors.js";
import { maxArgumentsDepth, maxArgumentsLength } from "./argument-bounds.js";
import { executeToolCall, type PreparedTool, type RegistrySettings } from "./execute-tool-call.js";
import type { CanUseTool } from "./permission.js";
import { isReadOnlyCall, type Tool, type ToolParameters } from "./tool.js";
import { compileToolSchema, compileToolSchemaOnFirstCall } from "./tool-schema.js";

/** Settings shared by all tools of a registry. */
export type ToolRegistryOptions = {
  /** Milliseconds a tool may run before it is abandoned with a timeout observation (default 60,000). A tool's own `timeoutMs` wins. */
  timeoutMs?: number | undefined;
  /** Longest observation in characters; longer results (and error messages) are cut with a marker (default 50,000). */
  maxResultLength?: number | undefined;
  /**
   * Deepest nesting of arguments accepted (default 64, `maxArgumentsDepth`): deeper ones are refused with an
   * observation before validation, since validators and the next request's serialisation recurse.
   */
  maxArgumentDepth?: number | undefined;
  /**
   * Longest arguments accepted, in characters of JSON (default 1,000,000, `maxArgumentsLength`); longer ones are
   * refused with an observation. The defaults are the bounds a provider's response is read with (`createToolCall`).
   */
  maxArgumentsLength?: number | undefined;
  /**
   * Keep the model's order of effects (default false: all of a turn's calls run at once). A call to a tool that
   * is not `readOnly` waits for the calls before it and holds back those after it; consecutive read-only calls
   * still run concurrently; results are appended in call order either way. A coding agent wants this.
   */
  orderEffects?: boolean | undefined;
};

const namePattern = /^[a-zA-Z0-9_-]{1,64}$/;

/** The set of tools an agent offers the model; it runs calls and turns every failure into an observation. */
export class ToolRegistry implements ToolExecutor {
  readonly #tools = new Map<string, PreparedTool>();
  readonly #checks: CanUseTool[] = [];
  /** What every call of this registry shares: made once, so a call allocates no options of its own. */
  readonly #settings: RegistrySettings;
  #schemas: ToolSchema[] | undefined;

  constructor(options: ToolRegistryOptions = {}) {
    this.#settings = {
      checks: this.#checks,
      toolNames: () => this.names(),
      timeoutMs: positive("timeoutMs", options.timeoutMs ?? 60_000),
      maxResultLength: positive("maxResultLength", options.maxResultLength ?? 50_000),
      argumentBounds: {
        maxDepth: positive("maxArgumentDepth", options.maxArgumentDepth ?? maxArgumentsDepth),
        maxLength: positive("maxArgumentsLength", options.maxArgumentsLength ?? maxArgumentsLength),
      },
    };
    this.runsAlone = options.orderEffects
      ? (toolCall) => !isReadOnlyCall(this.#tools.get(toolCall.name)?.tool, toolCall.arguments)
      : undefined;
  }

  /** With `orderEffects`: true for a call that must run alone (its tool is not read-only, or unknown). */
  readonly runsAlone: ((toolCall: ToolCall) => boolean) | undefined;

  /** Adds a tool. Throws a UsageError on a duplicate or invalid name, or on parameters that are not an object schema. */
  add<P extends ToolParameters>(tool: Tool<P>): this {
    if (typeof tool?.name !== "string" || !namePattern.test(tool.name)) {
      throw new UsageError(`Tool name ${JSON.stringify(tool?.name)} is invalid: use 1–64 letters, digits, "_" or "-".`);
    }
    if (this.#tools.has(tool.name)) throw new UsageError(`A tool named "${tool.name}" is already registered; tool names must be unique.`);
    if (typeof tool.execute !== "function") throw new UsageError(`Tool "${tool.name}" has no execute function.`);
    const schema = tool.compileOnFirstCall
      ? compileToolSchemaOnFirstCall(tool.name, tool.parameters)
      : compileToolSchema(tool.name, tool.parameters);
    this.#tools.set(tool.name, { tool: tool as unknown as Tool, schema });
    this.#schemas = undefined;
    return this;
  }

  /**
   * Removes a tool (an MCP server's tool that its server no longer lists). A call already running finishes; a later
   * call is answered as a call to an unknown tool. Returns whether the tool was there.
   */
  remove(name: string): boolean {
    const removed = this.#tools.delete(name);
    if (removed) this.#schemas = undefined;
    return removed;
  }

  /**
   * Adds a permission check consulted before every call, after the arguments are validated (see {@link CanUseTool}):
   * checks run in the order added, and a deny or an ask stands, whatever the agent's `canUseTool` says. Plan mode is one.
   */
  addCheck(check: CanUseTool): this {
    if (typeof check !== "function") throw new UsageError("addCheck expects a function (call, context) => { behavior: … }.");
    this.#checks.push(check);
    return this;
  }

  /** The registered tool with this name, if any. */
  get(name: string): Tool | undefined {
    return this.#tools.get(name)?.tool;
  }

  /** Names of the registered tools, in the order they were added. */
  names(): string[] {
    return [...this.#tools.keys()];
  }

  /** The schemas to send to the model. The same array is returned until a tool is added. */
  schemas(): ToolSchema[] {
    this.#schemas ??= [...this.#tools.values()].map(({ tool, schema }) => ({
      name: tool.name,
      description: tool.description,
      parameters: schema.jsonSchema,
    }));
    return this.#schemas;
  }

  /**
   * Runs a tool call and returns the observation text. Never rejects for the model's mistakes; rejects when
   * aborted, and when the call waits for approval (which only a run can ask for: use {@link execute}).
   */
  async call(toolCall: ToolCall, options: ToolExecuteOptions = {}): Promise<string> {
    const outcome = await this.execute(toolCall, options);
    if ("pending" in outcome)
      throw new UsageError(
        `Tool "${toolCall.name}" needs approval${outcome.reason ? ` (${outcome.reason})` : ""}; run it through an Agent, or pass a canUseTool that decides.`,
      );
    return outcome.content;
  }

  /** Like {@link call}, and also says whether the observation reports a failure, or that the call waits for a decision. */
  execute(toolCall: ToolCall, options: ToolExecuteOptions = {}): Promise<ToolOutcome> {
    return executeToolCall(this.#tools.get(toolCall.name), toolCall, options, this.#settings);
  }
}

function positive(option: string, value: number): number {
  if (!(value > 0))
    throw new UsageError(
      `ToolRegistry option ${option} must be a positive number${option === "timeoutMs" ? " of milliseconds" : option === "maxArgumentDepth" ? " of levels" : " of characters"}, got ${value}.`,
    );
  return value;
}
