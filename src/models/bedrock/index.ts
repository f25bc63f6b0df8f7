/**
 * `minagent/bedrock`: any model on Amazon Bedrock through the Converse API, on `@aws-sdk/client-bedrock-runtime`
 * (an optional peer dependency, loaded on the first call: importing this entry point loads no SDK).
 */
export { BedrockModel, type BedrockModelOptions, type BedrockRequestOptions } from "./bedrock-model.js";
export type {
  BedrockCredentials,
  BedrockMessageMetadata,
  BedrockRequest,
  BedrockStoredBlock,
  BedrockToolChoice,
} from "./bedrock-wire-types.js";
export { collectBedrockStream } from "./collect-bedrock-stream.js";
export { type BedrockConversionContext, convertBedrockResponse } from "./convert-bedrock-response.js";
export { type BedrockPrompt, convertToBedrockMessages, convertToBedrockTools } from "./convert-to-bedrock-messages.js";
export { createBedrockError } from "./create-bedrock-error.js";
export { mapBedrockStopReason } from "./map-bedrock-stop-reason.js";
export { mapBedrockToolChoice } from "./map-bedrock-tool-choice.js";
export { mapBedrockUsage } from "./map-bedrock-usage.js";
