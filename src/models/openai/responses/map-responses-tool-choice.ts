import type { ToolChoice } from "../../../core/types.js";
import type { ResponsesToolChoice } from "./responses-wire-types.js";

/**
 * Maps our tool choice to the Responses API's `tool_choice`: the three modes by name, a named tool as
 * `{ type: "function", name }` (flat, unlike Chat Completions' `function: { name }`).
 * @see https://platform.openai.com/docs/api-reference/responses/create#responses-create-tool_choice
 */
export function mapResponsesToolChoice(toolChoice: ToolChoice): ResponsesToolChoice {
  return typeof toolChoice === "string" ? toolChoice : { type: "function", name: toolChoice.name };
}
