/**
 * The OpenAI Responses API shapes this adapter reads and writes (POST /v1/responses). Requests use the
 * SDK's types; what arrives is read loosely (fields may be missing or null on compatible servers), and
 * output items are kept whole, with fields this adapter does not know, to be sent back as received.
 * Vendor names stay in this folder.
 * @see https://platform.openai.com/docs/api-reference/responses
 */
import type OpenAI from "openai";

/** A request body, without `stream`. */
export type ResponsesRequest = Omit<OpenAI.Responses.ResponseCreateParamsNonStreaming, "stream">;
/** One item of a request's `input`. */
export type ResponsesInputItem = OpenAI.Responses.ResponseInputItem;
/** One input of a user message or of a function's output: text, an image, a file. */
export type ResponsesInputContent = OpenAI.Responses.ResponseInputContent;
/** A function tool definition sent with a request. */
export type ResponsesTool = OpenAI.Responses.FunctionTool;
/** How the model may use the tools of a request (`tool_choice`), in the forms this adapter sends. */
export type ResponsesToolChoice = OpenAI.Responses.ToolChoiceOptions | OpenAI.Responses.ToolChoiceFunction;
/** The `reasoning` settings of a request: how hard the model thinks, and whether it writes summaries of it. */
export type ResponsesReasoningSettings = Pick<OpenAI.Reasoning, "effort" | "summary">;

/** A part of a `message` output item: `output_text` (its `text`) or `refusal` (its `refusal`). */
export type ResponsesContentPart = { type?: string; text?: string; refusal?: string; [field: string]: unknown };

/**
 * One output item as received: `message`, `function_call` (answered by its `call_id`), `reasoning` (with
 * `summary` parts, and `encrypted_content` when asked for), or another kind this adapter only keeps.
 */
export type ResponsesOutputItem = {
  type?: string;
  id?: string;
  status?: string;
  role?: string;
  content?: ResponsesContentPart[] | null;
  call_id?: string;
  name?: string;
  arguments?: unknown;
  summary?: { type?: string; text?: string }[] | null;
  encrypted_content?: string | null;
  [field: string]: unknown;
};

/** Token usage as reported. `output_tokens` already includes the reasoning tokens. */
export type ResponsesUsage = {
  input_tokens?: number;
  output_tokens?: number;
  input_tokens_details?: { cached_tokens?: number | null } | null;
  output_tokens_details?: { reasoning_tokens?: number | null } | null;
};

/** The error of a failed response, or of an `error` event in a stream. */
export type ResponsesError = { code?: string | null; type?: string | null; message?: string | null; param?: string | null };

/** A response, received whole or carried by a stream's closing event. */
export type ResponsesResponse = {
  id?: string;
  status?: string | null;
  output?: ResponsesOutputItem[] | null;
  incomplete_details?: { reason?: string | null } | null;
  error?: ResponsesError | null;
  usage?: ResponsesUsage | null;
};

/** One streamed event (`response.output_text.delta`, `response.output_item.done`, `response.completed`…). */
export type ResponsesStreamEvent = {
  type?: string;
  output_index?: number;
  summary_index?: number;
  item_id?: string;
  delta?: string;
  item?: ResponsesOutputItem;
  response?: ResponsesResponse;
  error?: ResponsesError;
  [field: string]: unknown;
};

/**
 * What the adapter keeps in `Message.providerMetadata[provider]` of an assistant message: the response's
 * output items exactly as received and in their order (reasoning items with their `encrypted_content`, the
 * message and function_call items that follow them), sent back as they are on the next turn.
 */
export type ResponsesMessageMetadata = { output: ResponsesOutputItem[] };
