import type { ToolChoice } from "../../core/types.js";
import type { AnthropicToolChoice } from "./anthropic-wire-types.js";

/**
 * Maps our tool choice to Anthropic's `tool_choice`: `"auto"` → `auto`, `"none"` → `none`, `"required"` →
 * `any`, `{ name }` → `tool`. With extended thinking the API accepts only `auto` and `none`, so a forced
 * choice (`"required"`, `{ name }`) becomes `auto` there rather than failing the call: the tools are still
 * sent and a pattern that forces a tool (Plan-and-Solve's plan) keeps working on thinking models.
 * @see https://docs.claude.com/en/docs/agents-and-tools/tool-use/implement-tool-use#forcing-tool-use
 */
export function mapAnthropicToolChoice(toolChoice: ToolChoice, { thinking }: { thinking: boolean }): AnthropicToolChoice {
  if (toolChoice === "auto" || toolChoice === "none") return { type: toolChoice };
  if (thinking) return { type: "auto" };
  return toolChoice === "required" ? { type: "any" } : { type: "tool", name: toolChoice.name };
}
