import type { StandardJSONSchemaV1, StandardSchemaV1 } from "@standard-schema/spec";
import type { RunContext } from "../core/run-context.js";
import type { ContentPart, JsonSchema } from "../core/types.js";

/** What a tool's `execute` receives besides its arguments. */
export type ToolContext = {
  /** Aborted when the run is aborted or the tool's timeout passes; long work should stop. */
  signal: AbortSignal;
  /** Id of the tool call being answered. */
  toolCallId: string;
  /**
   * A key naming this call, the same every time the call is executed: made from the run's id and the tool call's
   * id. A durable run (`minagent/dbos`) re-executes a tool that was running when its process died, with the same
   * run id and call id, so a tool with side effects can pass this key to the service it calls (a payment API's
   * `Idempotency-Key`) or record it, and do its effect once however often it is executed. Always set when a
   * ToolRegistry runs the tool; absent only from a context made by hand (a test calling `execute` itself).
   */
  readonly idempotencyKey?: string;
  /**
   * The run that called the tool. Pass the whole context as a child run's parent, and the child's events reach
   * this run's listeners, aborting this run aborts it, and its usage counts in this run's:
   * `await subagent.run(task, { parent: context })`.
   */
  run: RunContext;
};

/**
 * A schema library object usable as tool parameters: any Standard Schema that can also convert
 * itself to JSON Schema (zod 4, for one). It validates the arguments; its JSON Schema is sent to the model.
 */
export type StandardToolSchema<Input = unknown, Output = Input> = StandardSchemaV1<Input, Output> & StandardJSONSchemaV1<Input, Output>;

/** Tool parameters: a JSON Schema object (`{ type: "object", … }`) or a {@link StandardToolSchema}. */
export type ToolParameters = JsonSchema | StandardToolSchema;

/** The arguments `execute` receives for given parameters: inferred from a schema library, else a plain record. */
export type ToolArguments<P> = P extends StandardSchemaV1<unknown, infer Output> ? Output : Record<string, unknown>;

const toolOutputMark: unique symbol = Symbol("minagent.toolOutput");

/** What a tool returns when the model should see images or documents with its text: made by {@link toolOutput}. */
export type ToolOutput = { readonly text: string; readonly parts: readonly ContentPart[]; readonly [toolOutputMark]: true };

/**
 * A tool's result with images or documents beside its text (a screenshot, a PDF's pages, a chart). The text is
 * cut to the registry's `maxResultLength` as any result is; the parts go to the model whole, as the provider's
 * image and document blocks.
 * @example return toolOutput("The screenshot:", [{ type: "image", mediaType: "image/png", data: base64 }]);
 */
export function toolOutput(text: string, parts: readonly ContentPart[]): ToolOutput {
  return { text, parts: [...parts], [toolOutputMark]: true };
}

/** Whether a tool's returned value is a {@link toolOutput}. */
export function isToolOutput(value: unknown): value is ToolOutput {
  return typeof value === "object" && value !== null && (value as { [toolOutputMark]?: unknown })[toolOutputMark] === true;
}

/** A capability the model can call. */
export interface Tool<P extends ToolParameters = ToolParameters> {
  /** Unique name the model calls the tool by (letters, digits, `_` and `-`, at most 64). */
  name: string;
  /** What the tool does and when to use it: the model reads this. */
  description: string;
  /** The arguments' schema; arguments are validated against it before `execute` runs. */
  parameters: P;
  /**
   * Does the work. Return a string (the observation), any value (sent as JSON), or {@link toolOutput} for text
   * with images or documents the model should see.
   * Throw to report a failure the model can read; throw a ToolError to choose the exact text.
   */
  execute(args: ToolArguments<P>, context: ToolContext): unknown;
  /** Milliseconds before the call is abandoned with a timeout observation. Default: the registry's. */
  timeoutMs?: number | undefined;
  /** True when the tool only reads and changes nothing (plan mode allows only these). */
  readOnly?: boolean | undefined;
  /**
   * For a tool whose calls differ (the Agent tool: a read-only subagent type or another): whether a call with these
   * arguments only reads. Where given, it decides instead of `readOnly` wherever the call is known (the registry's
   * order of effects, plan mode, the permission modes), and `readOnly` should be true only if every call reads.
   * The arguments may not be validated yet.
   */
  readOnlyCall?: ((args: Record<string, unknown>) => boolean) | undefined;
  /**
   * True (or a function of the validated arguments that says true) when a call needs a person's approval:
   * the run stops `interrupted` with the call pending, unless the agent's `canUseTool` decides otherwise.
   */
  needsApproval?: boolean | ((args: ToolArguments<P>) => boolean | Promise<boolean>) | undefined;
  /**
   * True to compile a JSON Schema `parameters` at the tool's first call instead of when it is added: for a process
   * that offers many tools and calls few of them (minagent code's start). `add` still checks that they describe an
   * object; a schema that is not valid JSON Schema is then reported at that first call, so check such tools in
   * your tests (compile them with `checkToolParameters`). A zod schema needs no compiling either way.
   */
  compileOnFirstCall?: boolean | undefined;
}

/**
 * Identity function that infers `execute`'s argument type from `parameters`.
 * @example
 * const weather = defineTool({
 *   name: "weather", description: "Current weather of a city",
 *   parameters: z.object({ city: z.string() }),
 *   execute: ({ city }) => lookUp(city),
 * });
 */
export function defineTool<P extends ToolParameters>(tool: Tool<P>): Tool<P> {
  return tool;
}

/** True when `parameters` is a schema-library object rather than a plain JSON Schema. */
export function isStandardSchema(parameters: ToolParameters): parameters is StandardToolSchema {
  return typeof parameters === "object" && parameters !== null && "~standard" in parameters;
}

/** Whether this call of `tool` only reads: its `readOnlyCall` when it has one, else its `readOnly`. */
export function isReadOnlyCall(tool: Pick<Tool, "readOnly" | "readOnlyCall"> | undefined, args: Record<string, unknown>): boolean {
  if (!tool) return false;
  return tool.readOnlyCall ? tool.readOnlyCall(args) === true : tool.readOnly === true;
}
