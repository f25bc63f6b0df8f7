/**
 * The OpenAI Chat Completions shapes this adapter reads and writes (POST /v1/chat/completions), loose
 * enough for OpenAI-compatible servers (Ollama, vLLM, llama.cpp, LM Studio, gateways), which omit,
 * rename or retype fields. Vendor names stay in this folder.
 * @see https://platform.openai.com/docs/api-reference/chat
 */
import type OpenAI from "openai";

/** A request body, without `stream`. */
export type OpenAIRequest = Omit<OpenAI.ChatCompletionCreateParamsNonStreaming, "stream">;
/**
 * An assistant message of a request. `reasoning_content` is DeepSeek's, sent only when asked for
 * (OpenAI itself has no such field).
 */
export type OpenAIAssistantMessageParam = OpenAI.ChatCompletionAssistantMessageParam & { reasoning_content?: string };
/** One message of a request. */
export type OpenAIMessageParam = OpenAI.ChatCompletionMessageParam | OpenAIAssistantMessageParam;
/** A tool definition sent with a request. */
export type OpenAITool = OpenAI.ChatCompletionFunctionTool;
/** One part of a user message's content: text, an image, a file. */
export type OpenAIContentPart = OpenAI.ChatCompletionContentPart;

/** A tool call in a response. Compatible servers may leave out `id`, `type` or `index`, or send `arguments` as an object. */
export type OpenAIToolCall = {
  id?: string | null;
  type?: string;
  index?: number;
  function?: { name?: string | null; arguments?: unknown };
};

/** The assistant message of a response choice. `reasoning_content` / `reasoning` come from DeepSeek, vLLM and Ollama. */
export type OpenAIResponseMessage = {
  role?: string;
  content?: string | null | { type?: string; text?: string }[];
  refusal?: string | null;
  reasoning_content?: string | null;
  reasoning?: string | null;
  tool_calls?: OpenAIToolCall[] | null;
};

/** Token usage as reported; compatible servers may send none. */
export type OpenAIUsage = {
  prompt_tokens?: number;
  completion_tokens?: number;
  prompt_tokens_details?: { cached_tokens?: number | null } | null;
  completion_tokens_details?: { reasoning_tokens?: number | null } | null;
};

/** A chat completion, received whole or collected from a stream. */
export type OpenAIResponse = {
  id?: string;
  model?: string;
  choices: { index?: number; message?: OpenAIResponseMessage; finish_reason?: string | null }[];
  usage?: OpenAIUsage | null;
};

/** One streamed chunk. */
export type OpenAIChunk = {
  id?: string;
  model?: string;
  choices?: { index?: number; delta?: OpenAIResponseMessage; finish_reason?: string | null }[];
  usage?: OpenAIUsage | null;
};

/** How the model may use the tools of a request (`tool_choice`), in the forms this adapter sends. */
export type OpenAIToolChoice = "auto" | "none" | "required" | OpenAI.ChatCompletionNamedToolChoice;
