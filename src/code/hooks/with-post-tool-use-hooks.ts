import { type Tool, ToolError, type ToolParameters } from "../../engine.js";
import { serialize } from "../../tools/execute-tool-call.js";
import type { HookRunner } from "./hook-runner.js";

/**
 * The tool, with the PostToolUse hooks run after each call that returns (one that throws or times out is reported
 * as it is, without hooks). The model then reads:
 * - the result, or what a hook replaced it with (`updatedOutput`), followed by the hooks' `additionalContext`;
 * - for a block (`decision: "block"`, exit code 2) — and for a hook that fails, unless it fails open — an error
 *   observation saying that the tool ran but its result is withheld, and why. The result is withheld rather than
 *   shown because a PostToolUse hook may be the filter between a tool's output and the model (redacting secrets):
 *   when it fails, the unfiltered output must not pass. The model is told the tool ran, so it does not simply repeat it.
 * The hooks' time counts in the tool's timeout; the tool's `name`, schema and other fields are the tool's own.
 * @example registry.add(withPostToolUseHooks(bash, hooks))
 */
export function withPostToolUseHooks<P extends ToolParameters>(tool: Tool<P>, hooks: HookRunner): Tool<P> {
  const execute: Tool<P>["execute"] = async (args, context) => {
    const response = await tool.execute(args, context);
    if (!hooks.hasHooks("PostToolUse", tool.name)) return response;
    const outcome = await hooks.runPostToolUseHooks(
      { toolUseId: context.toolCallId, toolName: tool.name, toolInput: args as Record<string, unknown>, toolResponse: response },
      context.signal,
    );
    if (outcome.blocked !== undefined) throw new ToolError(outcome.blocked);
    return outcome.context === undefined ? outcome.response : `${serialize(outcome.response)}\n\n${outcome.context}`;
  };
  // The wrapper inherits every field of the tool (a class instance's getters and methods included) and replaces execute.
  return Object.create(tool, { execute: { value: execute, enumerable: true, writable: true, configurable: true } }) as Tool<P>;
}
