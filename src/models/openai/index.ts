/**
 * `minagent/openai`: OpenAI and OpenAI-compatible servers through the official `openai` SDK.
 * A separate entry point, so that `import "minagent"` never loads a provider SDK.
 */

export { convertOpenAIResponse, type OpenAIConversionContext } from "./convert-openai-response.js";
export {
  convertToOpenAIMessages,
  convertToOpenAITools,
  type OpenAIMessageConversionOptions,
} from "./convert-to-openai-messages.js";
export { createOpenAIError } from "./create-openai-error.js";
export { mapOpenAIFinishReason } from "./map-openai-finish-reason.js";
export { mapOpenAIToolChoice } from "./map-openai-tool-choice.js";
export { mapOpenAIUsage } from "./map-openai-usage.js";
export { OpenAIModel, type OpenAIModelOptions } from "./openai-model.js";
export type { OpenAIToolChoice } from "./openai-wire-types.js";
