import OpenAI from "openai";
import type { Message, Model, ModelCallOptions, ModelResponse, ToolSchema } from "../../core/types.js";
import { UsageError } from "../../errors.js";
import { checkTimeouts, createAttemptSignal } from "../create-attempt-signal.js";
import { createGuardedFetch } from "../create-guarded-fetch.js";
import { hideSecretsInError } from "../hide-secrets-in-error.js";
import { ProviderError } from "../provider-error.js";
import { ConversationToolCallIds } from "../tool-call-ids.js";
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
  /**
   * Milliseconds one attempt may take, from sending the request to the last byte of the response or
   * stream, before it fails with a retryable `timeout` ProviderError (default: none, beyond the SDK's
   * 10 minutes for the response headers). Each retry gets the full time again.
   */
  timeoutMs?: number | undefined;
  /**
   * Milliseconds the server may stay silent once it has sent the response headers — between two chunks
   * of a stream, or before the body — before the attempt fails with a retryable `timeout` ProviderError
   * (0 turns it off). Default 120,000 for OpenAI; 300,000 with a `baseURL`, because a local server
   * (llama.cpp, vLLM) may send its headers at once and then read a long prompt for minutes in silence.
   */
  idleTimeoutMs?: number | undefined;
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
  readonly #apiKey: string | undefined;
  /** Tool-call ids of each conversation seen, kept up to date as it grows, so no call rescans the history. */
  readonly #ids = new ConversationToolCallIds();

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
    this.#apiKey = apiKey || undefined;
    this.#retry = resolveRetryOptions({ ...options.retry, maxRetries: options.maxRetries ?? 2 });
    const { idleTimeoutMs = official ? 120_000 : 300_000 } = checkTimeouts("OpenAIModel", options);
    this.#client = new OpenAI({
      // A keyless local server: the SDK insists on a key, so give it a placeholder and send no Authorization header.
      apiKey: apiKey || "no-key",
      maxRetries: 0, // the SDK retries every 429, even insufficient_quota; ours are in completeWithRetries
      ...(options.baseURL !== undefined && { baseURL: options.baseURL }),
      // No SDK timeout: the attempt signal bounds the whole attempt (headers, body, stream) and names it; two timers racing gave two messages.
      defaultHeaders: { ...options.headers, ...(!apiKey && { authorization: null }) },
      fetch: createGuardedFetch({ provider: this.provider, fetch: options.fetch, idleTimeoutMs }),
      // Failures come back as typed errors; the SDK's console logging (a stream's unparsable data) stays off unless asked for.
      ...(process.env.OPENAI_LOG === undefined && { logLevel: "off" }),
    });
  }

  async complete(messages: Message[], tools: ToolSchema[], options: ModelCallOptions = {}): Promise<ModelResponse> {
    const request = this.createRequest(messages, tools, options);
    const usedIds = () => this.#ids.of(messages);
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

  async #send(request: OpenAIRequest, usedIds: () => ReadonlySet<string>, { signal, onEvent }: ModelCallOptions): Promise<ModelResponse> {
    const context = { provider: this.provider, usedIds };
    const attempt = createAttemptSignal(this.provider, signal, this.#options.timeoutMs);
    const requestOptions = attempt.signal ? { signal: attempt.signal } : {};
    try {
      // Not streaming is the API's default: `stream` is sent only to stream (no framework-added tokens).
      if (!onEvent) return convertOpenAIResponse(await this.#client.chat.completions.create(request, requestOptions), context);
      const streamOptions = this.#options.streamUsage === false ? {} : { stream_options: { include_usage: true } };
      const stream = await this.#client.chat.completions.create({ ...request, stream: true, ...streamOptions }, requestOptions);
      const response = await collectOpenAIStream(stream as AsyncIterable<OpenAIChunk>, onEvent, context);
      attempt.signal?.throwIfAborted(); // the SDK ends an aborted stream quietly; the call must not look complete
      return response;
    } catch (error) {
      const failure = attempt.timedOut() ?? createOpenAIError(error, this.provider, signal);
      throw hideSecretsInError(explainNotFound(failure, this.#options.baseURL), [this.#apiKey]);
    } finally {
      attempt.dispose();
    }
  }
}

/**
 * A 404 from a server whose base URL has no path is most often a URL missing the `/v1` under which
 * OpenAI-compatible servers (vLLM, llama.cpp, LM Studio, Ollama) serve the API: say so.
 */
function explainNotFound(error: Error, baseURL: string | undefined): Error {
  if (!(error instanceof ProviderError) || error.status !== 404 || baseURL === undefined || !/^https?:\/\/[^/]+\/?$/.test(baseURL))
    return error;
  const suggested = `${baseURL.replace(/\/$/, "")}/v1`;
  const providerMessage = `${error.providerMessage} (the base URL ${baseURL} has no path; OpenAI-compatible servers usually serve the API under /v1: try ${suggested})`;
  return new ProviderError({ ...error.details(), providerMessage }, { cause: error.cause });
}
