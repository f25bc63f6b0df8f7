import { AbortError, type Tool, ToolError, type ToolParameters } from "../../engine.js";
import { serialize } from "../../text.js";
import type { HookRunner } from "./hook-runner.js";

/**
 * The tool, with the PostToolUse hooks run after each call that returns, or that throws (a ToolError's text can
 * hold output: Bash's timeout says "Output so far"); the hooks then receive the error's text, as the model would
 * read it, as the response. After a throw, the PostToolUseFailure hooks run too, on the error text as the
 * PostToolUse hooks left it. Only the run's abort passes without hooks. The model then reads:
 * - the result or error text, or what a hook replaced it with (`updatedOutput`), followed by the hooks'
 *   `additionalContext` (PostToolUse's, then PostToolUseFailure's); an error stays an error;
 * - for a block (`decision: "block"`, exit code 2) — and for a hook that fails, unless it fails open — an error
 *   observation saying that the tool ran but its result is withheld, and why. The result is withheld rather than
 *   shown because a PostToolUse hook may be the filter between a tool's output and the model (redacting secrets):
 *   when it fails, the unfiltered output must not pass. The model is told the tool ran, so it does not simply repeat it.
 * The hooks' time counts in the tool's timeout; the tool's `name`, schema and other fields are the tool's own.
 * @example registry.add(withPostToolUseHooks(bash, hooks))
 */
export function withPostToolUseHooks<P extends ToolParameters>(tool: Tool<P>, hooks: HookRunner): Tool<P> {
  const execute: Tool<P>["execute"] = async (args, context) => {
    let response: unknown;
    let failure: unknown;
    const started = performance.now();
    try {
      response = await tool.execute(args, context);
    } catch (error) {
      // The run's abort is not the tool's answer; any other throw is text the model would read, so it meets the hooks.
      if (error instanceof AbortError || context.signal.aborted) throw error;
      failure = error;
      response = error instanceof ToolError ? error.message : error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    }
    const call = { toolUseId: context.toolCallId, toolName: tool.name, toolInput: args as Record<string, unknown> };
    const durationMs = Math.round(performance.now() - started);
    const outcome = hooks.hasHooks("PostToolUse", tool.name)
      ? await hooks.runPostToolUseHooks({ ...call, toolResponse: response, durationMs }, context.signal)
      : { response, context: undefined, blocked: undefined };
    if (outcome.blocked !== undefined) throw new ToolError(outcome.blocked);
    if (failure === undefined)
      return outcome.context === undefined ? outcome.response : `${serialize(outcome.response)}\n\n${outcome.context}`;
    const text = serialize(outcome.response);
    const failed = hooks.hasHooks("PostToolUseFailure", tool.name)
      ? await hooks.runPostToolUseFailureHooks({ ...call, error: text, durationMs }, context.signal)
      : {};
    const contexts = [outcome.context, failed.context].filter((part) => part !== undefined);
    if (outcome.response === response && contexts.length === 0) throw failure;
    throw new ToolError([text, ...contexts].join("\n\n"), { cause: failure });
  };
  // The wrapper inherits every field of the tool (a class instance's getters and methods included) and replaces execute.
  return Object.create(tool, { execute: { value: execute, enumerable: true, writable: true, configurable: true } }) as Tool<P>;
}
