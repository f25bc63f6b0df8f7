/**
 * The Anthropic Messages API shapes this adapter reads and writes (POST /v1/messages).
 * Vendor names stay in this folder; the rest of minagent speaks its own vocabulary.
 * @see https://docs.claude.com/en/api/messages
 */
import type Anthropic from "@anthropic-ai/sdk";

/** A request body, without `stream`. */
export type AnthropicRequest = Omit<Anthropic.MessageCreateParamsNonStreaming, "stream">;
/** One message of a request. */
export type AnthropicMessageParam = Anthropic.MessageParam;
/** A content block of a request message. */
export type AnthropicContentBlockParam = Anthropic.ContentBlockParam;
/** A tool definition sent with a request. */
export type AnthropicTool = Anthropic.Tool;
/**
 * A tool Anthropic defines and runs on its side, e.g. `{ type: "web_search_20250305", name: "web_search", max_uses: 5 }`.
 * @see https://docs.claude.com/en/docs/agents-and-tools/tool-use/overview#server-tools
 */
export type AnthropicServerTool = Exclude<Anthropic.ToolUnion, Anthropic.Tool>;
/** One server-sent event of a streamed response. */
export type AnthropicStreamEvent = Anthropic.RawMessageStreamEvent;
/** Token usage as the API reports it. */
export type AnthropicUsage = Partial<Anthropic.Usage>;

/**
 * A response message. Blocks are kept loose (`type` plus fields) because the API adds block types
 * over time; a streamed `tool_use` block holds its input as the JSON text received so far.
 */
export type AnthropicResponse = {
  id?: string;
  model?: string;
  content: AnthropicContentBlock[];
  stop_reason: string | null;
  stop_sequence?: string | null;
  usage?: AnthropicUsage;
};

/** A response content block: `text`, `thinking`, `redacted_thinking`, `tool_use`, or one this adapter passes over. */
export type AnthropicContentBlock = { type: string; [field: string]: unknown };

/**
 * What the adapter keeps in `Message.providerMetadata.anthropic`: the assistant message's content blocks
 * exactly as received (a streamed tool input parsed to its object), to send back unchanged.
 */
export type AnthropicMessageMetadata = { content: AnthropicContentBlock[] };

/** The structured output a request asks for (`output_config.format`). */
export type AnthropicOutputFormat = Anthropic.JSONOutputFormat;

/** How the model may use the tools of a request (`tool_choice`). */
export type AnthropicToolChoice = Anthropic.ToolChoice;
