/**
 * `minagent/openai`: OpenAI through the official `openai` SDK, on the Responses API (OpenAIResponsesModel)
 * or Chat Completions (OpenAIModel, also for OpenAI-compatible servers).
 * A separate entry point, so that `import "minagent"` never loads a provider SDK.
 */

export { convertOpenAIResponse, type OpenAIConversionContext } from "./convert-openai-response.js";
export {
  convertToOpenAIMessages,
  convertToOpenAITools,
  type OpenAIMessageConversionOptions,
} from "./convert-to-openai-messages.js";
export { createOpenAIError, createOpenAIResponseFailure } from "./create-openai-error.js";
export { mapOpenAIFinishReason } from "./map-openai-finish-reason.js";
export { mapOpenAIToolChoice } from "./map-openai-tool-choice.js";
export { mapOpenAIUsage } from "./map-openai-usage.js";
export { OpenAIModel, type OpenAIModelOptions } from "./openai-model.js";
export type { OpenAIToolChoice } from "./openai-wire-types.js";
export { convertResponsesResponse, type ResponsesConversionContext } from "./responses/convert-responses-response.js";
export {
  convertToResponsesInput,
  convertToResponsesTools,
  type ResponsesInputOptions,
  type ResponsesPrompt,
} from "./responses/convert-to-responses-input.js";
export { mapResponsesStopReason, type ResponsesOutcome } from "./responses/map-responses-stop-reason.js";
export { mapResponsesToolChoice } from "./responses/map-responses-tool-choice.js";
export { mapResponsesUsage } from "./responses/map-responses-usage.js";
export { OpenAIResponsesModel, type OpenAIResponsesModelOptions } from "./responses/openai-responses-model.js";
export type { ResponsesMessageMetadata, ResponsesReasoningSettings, ResponsesToolChoice } from "./responses/responses-wire-types.js";
