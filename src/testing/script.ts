import type { ModelResponse, ToolCall, Usage } from "../core/types.js";

/**
 * A scripted assistant turn for FakeModel (the book's `thought()` helper): some text and any number
 * of tool calls. With calls the stop reason is `tool_use`, without them `end_turn`.
 * @example new FakeModel([reply("Checking Beijing first.", toolCall("weather", { city: "北京" })), "Sunny."])
 */
export function reply(text: string, ...calls: ToolCall[]): ModelResponse {
  return {
    message: { role: "assistant", content: text, ...(calls.length > 0 && { toolCalls: calls }) },
    stopReason: calls.length > 0 ? "tool_use" : "end_turn",
  };
}

/** A tool call for a script. The id defaults to `name:arguments`, stable across runs. */
export function toolCall(name: string, args: Record<string, unknown> = {}, id = `${name}:${JSON.stringify(args)}`): ToolCall {
  return { id, name, arguments: args };
}

/** Adds usage figures to a scripted response. */
export function withUsage(response: ModelResponse, usage: Usage): ModelResponse {
  return { ...response, usage };
}
