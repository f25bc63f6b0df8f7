import type { ToolCall } from "./types.js";

/**
 * What may happen to one tool call: it runs (`allow`, optionally with rewritten arguments, which are
 * validated again), the model reads `message` instead (`deny`), or the run stops and waits for a person's
 * decision (`ask`: the run ends `interrupted`, and `Agent.resume` goes on once the call is decided).
 */
export type PermissionDecision =
  | { behavior: "allow"; arguments?: Record<string, unknown> | undefined }
  | { behavior: "deny"; message: string }
  | { behavior: "ask"; reason?: string | undefined };

/**
 * The tool a permission check is asked about. The core passes checks along without knowing what a tool is made of,
 * so this interface is empty here: src/tools/permission.ts completes it with the tools layer's `Tool` (declaration
 * merging), and a check receives the registry's tool with every field typed while src/core/ imports nothing from
 * the layers above it.
 */
// biome-ignore lint/suspicious/noEmptyInterface: completed by declaration merging in src/tools/permission.ts.
export interface PermissionTool {}

/** What a permission check knows besides the call. */
export type PermissionContext = {
  /** The run the call belongs to. */
  runId: string;
  /** The tool that would run. */
  tool: PermissionTool;
  /** Aborted when the run is: a check that asks a person should stop waiting. */
  signal: AbortSignal;
  /** What the tool's own `needsApproval` says of these arguments (false when it declares none). */
  needsApproval: boolean;
};

/**
 * Decides whether a call may run, after its arguments are validated and before `execute`. On an Agent
 * (`canUseTool`) its decision is final; without one, a tool whose `needsApproval` holds is "ask".
 * On a registry (`addCheck`), checks run first, in order: a deny or an ask there stands.
 * @example
 * const canUseTool: CanUseTool = (call, { tool }) =>
 *   tool.readOnly ? { behavior: "allow" } : { behavior: "ask", reason: `${call.name} changes files` };
 */
export type CanUseTool = (
  call: Pick<ToolCall, "id" | "name" | "arguments">,
  context: PermissionContext,
) => PermissionDecision | Promise<PermissionDecision>;
