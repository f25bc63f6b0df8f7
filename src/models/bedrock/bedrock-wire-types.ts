/**
 * The Bedrock Converse API shapes this adapter reads and writes (POST /model/{modelId}/converse and
 * /converse-stream), as `@aws-sdk/client-bedrock-runtime` types them. Vendor names stay in this folder.
 * Types only: importing this file loads no SDK.
 * @see https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html
 */
import type {
  BedrockRuntimeClientConfig,
  ContentBlock,
  ConverseStreamCommandInput,
  ConverseStreamOutput,
  DocumentBlock,
  ImageBlock,
  Message,
  Tool,
  ToolChoice,
} from "@aws-sdk/client-bedrock-runtime";

/** A Converse request (the same body serves ConverseStream). */
export type BedrockRequest = ConverseStreamCommandInput;
/** One message of a request. */
export type BedrockMessage = Message;
/** A content block of a request message. */
export type BedrockContentBlockParam = ContentBlock;
/** An image, a document or a note in words: the blocks that carry a message's parts, in a message or a tool result. */
export type BedrockPartBlock = { text: string } | { image: ImageBlock } | { document: DocumentBlock };
/** A tool definition sent with a request. */
export type BedrockTool = Tool;
/** How the model may use the tools of a request (`toolConfig.toolChoice`). */
export type BedrockToolChoice = ToolChoice;
/** One event of a ConverseStream response, as the SDK decodes the event-stream frames. */
export type BedrockStreamEvent = ConverseStreamOutput;
/** AWS credentials: an access key pair (with an optional session token) or a function that provides one. */
export type BedrockCredentials = NonNullable<BedrockRuntimeClientConfig["credentials"]>;

/** Token usage as the API reports it. */
export type BedrockUsage = {
  inputTokens?: number | undefined;
  outputTokens?: number | undefined;
  cacheReadInputTokens?: number | undefined;
  cacheWriteInputTokens?: number | undefined;
};

/**
 * A response content block, kept loose (one member naming its kind: `text`, `reasoningContent`,
 * `toolUse`, …) because the API adds kinds over time. A streamed `toolUse` holds its input as the
 * JSON text received.
 */
export type BedrockContentBlock = { [member: string]: unknown };

/** The assistant message of a response (received whole or collected from a stream) with its stop reason and usage. */
export type BedrockResponse = {
  content: BedrockContentBlock[];
  stopReason?: string | undefined;
  usage?: BedrockUsage | undefined;
};

/**
 * A content block as kept in `Message.providerMetadata.bedrock`, in JSON: `text`, `reasoningContent`
 * (`reasoningText` with its `signature`, or `redactedContent` as base64 text) or `toolUse`
 * (`toolUseId`, `name`, `input` only).
 */
export type BedrockStoredBlock =
  | { text: string }
  | { reasoningContent: { reasoningText: { text: string; signature?: string } } | { redactedContent: string } }
  | { toolUse: { toolUseId: string; name: string; input: Record<string, unknown> } };

/** What the adapter keeps in `Message.providerMetadata.bedrock`: the assistant turn's blocks as received, in their order. */
export type BedrockMessageMetadata = { content: BedrockStoredBlock[] };
