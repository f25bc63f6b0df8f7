/**
 * `minagent/anthropic`: Claude models through the official `@anthropic-ai/sdk`.
 * A separate entry point, so that `import "minagent"` never loads a provider SDK.
 */
export { AnthropicModel, type AnthropicModelOptions } from "./anthropic-model.js";
export type { AnthropicMessageMetadata, AnthropicOutputFormat, AnthropicServerTool, AnthropicToolChoice } from "./anthropic-wire-types.js";
export { type AnthropicConversionContext, convertAnthropicResponse } from "./convert-anthropic-response.js";
export { type AnthropicPrompt, convertToAnthropicMessages, convertToAnthropicTools } from "./convert-to-anthropic-messages.js";
export { createAnthropicError } from "./create-anthropic-error.js";
export { mapAnthropicOutputFormat } from "./map-anthropic-output-format.js";
export { mapAnthropicStopReason } from "./map-anthropic-stop-reason.js";
export { mapAnthropicToolChoice } from "./map-anthropic-tool-choice.js";
export { mapAnthropicUsage } from "./map-anthropic-usage.js";
