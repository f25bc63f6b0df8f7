import type { ToolChoice } from "../../core/types.js";
import type { OpenAIToolChoice } from "./openai-wire-types.js";

/**
 * Maps our tool choice to Chat Completions' `tool_choice`: the three modes by name, a named tool as
 * `{ type: "function", function: { name } }`.
 * @see https://platform.openai.com/docs/api-reference/chat/create#chat-create-tool_choice
 */
export function mapOpenAIToolChoice(toolChoice: ToolChoice): OpenAIToolChoice {
  return typeof toolChoice === "string" ? toolChoice : { type: "function", function: { name: toolChoice.name } };
}
