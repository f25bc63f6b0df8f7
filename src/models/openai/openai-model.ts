import OpenAI from "openai";
import type { Message, Model, ModelCallOptions, ModelResponse, ToolSchema } from "../../core/types.js";
import { UsageError } from "../../errors.js";
import { completeWithRetries, type RetryOptions, type RetryPolicy, resolveRetryOptions } from "../with-retry.js";
import { collectOpenAIStream } from "./collect-openai-stream.js";
import { convertOpenAIResponse } from "./convert-openai-response.js";
import { convertToOpenAIMessages, convertToOpenAITools } from "./convert-to-openai-messages.js";
import { createOpenAIError } from "./create-openai-error.js";
import { mapOpenAIToolChoice } from "./map-openai-tool-choice.js";
import type { OpenAIChunk, OpenAIRequest } from "./openai-wire-types.js";

/** Settings of an {@link OpenAIModel}. */
export type OpenAIModelOptions = {
  /** Model id, e.g. "gpt-4.1" or, on a local server, "llama3.2". */
  model: string;
  /**
   * API key. Default: the `OPENAI_API_KEY` environment variable, but only for OpenAI itself: with a
   * `baseURL`, pass the server's key here (or none, for local servers), so your OpenAI key never
   * reaches another host.
   */
  apiKey?: string | undefined;
  /** An OpenAI-compatible server's base URL, e.g. "http://localhost:11434/v1" for Ollama. */
  baseURL?: string | undefined;
  /** Provider name in errors and traces. Default: "openai", or "openai-compatible" with a `baseURL`. */
  provider?: string | undefined;
  /** Most tokens the model may write per call (sent as `max_completion_tokens` to OpenAI, `max_tokens` to other servers). */
  maxTokens?: number | undefined;
  /** Sampling temperature. */
  temperature?: number | undefined;
  /** Sequences that stop generation. */
  stopSequences?: string[] | undefined;
  /**
   * Send the reasoning this server returned (`reasoning_content` or `reasoning`, kept in
   * `message.reasoning`) back as `reasoning_content` on later assistant messages (default false).
   * DeepSeek's thinking mode with tools wants it; OpenAI and most servers do not accept it.
   */
  sendReasoning?: boolean | undefined;
  /** Ask a stream to end with a usage chunk (`stream_options.include_usage`, default true). */
  streamUsage?: boolean | undefined;
  /**
   * Retries of a failed call (default 2): rate limits, server errors, dropped connections.
   * Wrapped in {@link withRetry}, the wrapper's policy replaces this one (they do not multiply).
   */
  maxRetries?: number | undefined;
  /** Backoff settings of those retries. */
  retry?: Omit<RetryOptions, "maxRetries"> | undefined;
  /** Milliseconds before one HTTP request is abandoned (default: the SDK's, 10 minutes). */
  timeoutMs?: number | undefined;
  /** Extra HTTP headers sent with every request. */
  headers?: Record<string, string> | undefined;
  /** A fetch implementation, e.g. to record traffic. Default: the global fetch. */
  fetch?: typeof fetch | undefined;
};

/**
 * A model behind the OpenAI Chat Completions API, on the official `openai` SDK: OpenAI itself, or any
 * OpenAI-compatible server (Ollama, vLLM, llama.cpp server, LM Studio) through `baseURL`.
 * Streams when the engine passes `onEvent`, and resolves to the same response either way.
 * @example
 * const local = new OpenAIModel({ model: "llama3.2", baseURL: "http://localhost:11434/v1" });
 */
export class OpenAIModel implements Model {
  readonly provider: string;
  readonly modelId: string;
  readonly #client: OpenAI;
  readonly #options: OpenAIModelOptions;
  readonly #retry: RetryPolicy;
  /** Tool-call ids of each conversation seen, kept up to date as it grows, so no call rescans the history. */
  readonly #conversationIds = new WeakMap<readonly Message[], ConversationIds>();

  constructor(options: OpenAIModelOptions) {
    if (typeof options?.model !== "string" || options.model === "")
      throw new UsageError('OpenAIModel needs a model id, e.g. { model: "gpt-4.1" }.');
    const official = options.baseURL === undefined;
    const apiKey = options.apiKey ?? (official ? process.env.OPENAI_API_KEY : undefined);
    if (!apiKey && official)
      throw new UsageError("OpenAIModel needs an API key: set the OPENAI_API_KEY environment variable or pass { apiKey }.");
    this.provider = options.provider ?? (official ? "openai" : "openai-compatible");
    this.modelId = options.model;
    this.#options = options;
    this.#retry = resolveRetryOptions({ ...options.retry, maxRetries: options.maxRetries ?? 2 });
    this.#client = new OpenAI({
      // A keyless local server: the SDK insists on a key, so give it a placeholder and send no Authorization header.
      apiKey: apiKey || "no-key",
      maxRetries: 0, // the SDK retries every 429, even insufficient_quota; ours are in completeWithRetries
      ...(options.baseURL !== undefined && { baseURL: options.baseURL }),
      ...(options.timeoutMs !== undefined && { timeout: options.timeoutMs }),
      defaultHeaders: { ...options.headers, ...(!apiKey && { authorization: null }) },
      ...(options.fetch && { fetch: options.fetch }),
    });
  }

  async complete(messages: Message[], tools: ToolSchema[], options: ModelCallOptions = {}): Promise<ModelResponse> {
    const request = this.createRequest(messages, tools, options);
    const usedIds = () => this.#usedIds(messages);
    return completeWithRetries((attempt) => this.#send(request, usedIds, attempt), options, this.#retry);
  }

  /**
   * The request body this model sends for a conversation (without `stream`). `tool_choice` is sent only
   * when `options.toolChoice` is given and the request has tools (see {@link mapOpenAIToolChoice}).
   */
  createRequest(
    messages: readonly Message[],
    tools: readonly ToolSchema[],
    options: Pick<ModelCallOptions, "toolChoice"> = {},
  ): OpenAIRequest {
    const { maxTokens, temperature, stopSequences, baseURL, sendReasoning } = this.#options;
    return {
      model: this.modelId,
      messages: convertToOpenAIMessages(messages, sendReasoning ? { reasoningProvider: this.provider } : {}),
      ...(tools.length > 0 && { tools: convertToOpenAITools(tools) }),
      ...(tools.length > 0 && options.toolChoice !== undefined && { tool_choice: mapOpenAIToolChoice(options.toolChoice) }),
      // OpenAI's newer models reject max_tokens; compatible servers have understood max_tokens for longer.
      ...(maxTokens !== undefined && (baseURL === undefined ? { max_completion_tokens: maxTokens } : { max_tokens: maxTokens })),
      ...(temperature !== undefined && { temperature }),
      ...(stopSequences && { stop: stopSequences }),
    };
  }

  /**
   * The tool-call ids in a conversation, for telling a server's repeated id (some reuse "call_0" every
   * turn) from a new one. The engine appends to the same array on every call, so only new messages are read.
   */
  #usedIds(messages: readonly Message[]): ReadonlySet<string> {
    let known = this.#conversationIds.get(messages);
    // A shorter or rewritten conversation is read again from the start.
    if (!known || known.read > messages.length || (known.read > 0 && messages[known.read - 1] !== known.last)) {
      known = { ids: new Set(), read: 0, last: undefined };
      this.#conversationIds.set(messages, known);
    }
    for (let i = known.read; i < messages.length; i++) for (const call of messages[i]?.toolCalls ?? []) known.ids.add(call.id);
    known.read = messages.length;
    known.last = messages[messages.length - 1];
    return known.ids;
  }

  async #send(request: OpenAIRequest, usedIds: () => ReadonlySet<string>, { signal, onEvent }: ModelCallOptions): Promise<ModelResponse> {
    const context = { provider: this.provider, usedIds };
    const requestOptions = signal ? { signal } : {};
    try {
      // Not streaming is the API's default: `stream` is sent only to stream (no framework-added tokens).
      if (!onEvent) return convertOpenAIResponse(await this.#client.chat.completions.create(request, requestOptions), context);
      const streamOptions = this.#options.streamUsage === false ? {} : { stream_options: { include_usage: true } };
      const stream = await this.#client.chat.completions.create({ ...request, stream: true, ...streamOptions }, requestOptions);
      const response = await collectOpenAIStream(stream as AsyncIterable<OpenAIChunk>, onEvent, context);
      signal?.throwIfAborted(); // the SDK ends an aborted stream quietly; the call must not look complete
      return response;
    } catch (error) {
      throw createOpenAIError(error, this.provider, signal);
    }
  }
}

/** The tool-call ids of a conversation's first `read` messages, the last of which was `last`. */
type ConversationIds = { ids: Set<string>; read: number; last: Message | undefined };
