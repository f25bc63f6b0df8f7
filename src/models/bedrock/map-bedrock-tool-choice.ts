import type { ToolChoice } from "../../core/types.js";
import type { BedrockToolChoice } from "./bedrock-wire-types.js";

/**
 * Maps our tool choice to Converse's `toolConfig.toolChoice`: `"auto"` → `{ auto: {} }`, `"required"` →
 * `{ any: {} }`, `{ name }` → `{ tool: { name } }`. Converse has no "none": the model leaves `"none"` out
 * (undefined here) and sends no tools instead (see BedrockModel.createRequest). With Claude's extended
 * thinking (`thinking` in additionalModelRequestFields) a forced choice is refused by the API, so it is
 * sent as `auto`, as the Anthropic adapter does.
 * @see https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ToolChoice.html
 */
export function mapBedrockToolChoice(toolChoice: ToolChoice, { thinking }: { thinking: boolean }): BedrockToolChoice | undefined {
  if (toolChoice === "none") return undefined;
  if (toolChoice === "auto" || thinking) return { auto: {} };
  return toolChoice === "required" ? { any: {} } : { tool: { name: toolChoice.name } };
}
