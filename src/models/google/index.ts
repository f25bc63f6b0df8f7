/**
 * `minagent/google`: Gemini models through the Gemini API or Vertex AI, on the official `@google/genai` SDK
 * (an optional peer dependency, loaded on the first call). A separate entry point, so that `import "minagent"`
 * never loads a provider SDK.
 */
export { collectGoogleStream } from "./collect-google-stream.js";
export { convertGoogleResponse, type GoogleConversionContext } from "./convert-google-response.js";
export { convertToGoogleContents, convertToGoogleTools, type GooglePrompt } from "./convert-to-google-contents.js";
export { createGoogleError } from "./create-google-error.js";
export {
  GoogleModel,
  type GoogleModelOptions,
  type GoogleRequestOptions,
  type GoogleThinkingConfig,
  type GoogleVertexOptions,
} from "./google-model.js";
export type { GoogleAuthOptions, GoogleMessageMetadata, GooglePart, GoogleRequest, GoogleResponse } from "./google-wire-types.js";
export { mapGoogleFinishReason } from "./map-google-finish-reason.js";
export { mapGoogleToolChoice } from "./map-google-tool-choice.js";
export { mapGoogleUsage } from "./map-google-usage.js";
