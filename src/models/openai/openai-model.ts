import OpenAI from "openai";
import type { Message, Model, ModelCallOptions, ModelResponse, ToolSchema } from "../../core/types.js";
import { ProviderAttempts, type ProviderModelOptions, type RequestOptions } from "../provider-attempts.js";
import { ProviderError } from "../provider-error.js";
import { ConversationToolCallIds } from "../tool-call-ids.js";
import { collectOpenAIStream } from "./collect-openai-stream.js";
import { convertOpenAIResponse } from "./convert-openai-response.js";
import { convertToOpenAIMessages, convertToOpenAITools } from "./convert-to-openai-messages.js";
import { createOpenAIError } from "./create-openai-error.js";
import { mapOpenAIToolChoice } from "./map-openai-tool-choice.js";
import type { OpenAIChunk, OpenAIRequest } from "./openai-wire-types.js";

/** Settings of an {@link OpenAIModel}. */
export type OpenAIModelOptions = ProviderModelOptions & {
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
   * Answer an agent's output schema through `response_format: { type: "json_schema" }` (default: true for OpenAI
   * itself, false with a `baseURL`). OpenAI-compatible servers differ in whether they honour it (vLLM and Ollama
   * do, others ignore it), so by default the agent gives its answer through a final-answer tool there; set true
   * for a server known to constrain its output.
   * @see https://platform.openai.com/docs/guides/structured-outputs
   */
  structuredOutput?: boolean | undefined;
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
  readonly supportsResponseFormat: boolean;
  readonly #client: OpenAI;
  readonly #options: OpenAIModelOptions;
  readonly #attempts: ProviderAttempts;
  /** Tool-call ids of each conversation seen, kept up to date as it grows, so no call rescans the history. */
  readonly #ids = new ConversationToolCallIds();

  constructor(options: OpenAIModelOptions) {
    const official = options?.baseURL === undefined;
    this.provider = options?.provider ?? (official ? "openai" : "openai-compatible");
    this.#attempts = new ProviderAttempts(options, {
      owner: "OpenAIModel",
      provider: this.provider,
      exampleModel: "gpt-4.1",
      keyVariable: "OPENAI_API_KEY",
      // With a baseURL the key is the server's, given or none: an OpenAI key from the environment never reaches another host.
      officialKey: official,
      logVariable: "OPENAI_LOG",
      // A local server (llama.cpp, vLLM) may send its headers at once and then read a long prompt for minutes in silence.
      idleTimeoutMs: official ? 120_000 : 300_000,
      toError: (error, signal) => explainNotFound(createOpenAIError(error, this.provider, signal), options.baseURL),
      defaultEndpoint: { url: "https://api.openai.com/v1", variable: "OPENAI_BASE_URL" },
    });
    this.modelId = options.model;
    this.supportsResponseFormat = options.structuredOutput ?? official;
    this.#options = options;
    const apiKey = this.#attempts.apiKey;
    this.#client = new OpenAI({
      // A keyless local server: the SDK insists on a key, so give it a placeholder and send no Authorization header.
      apiKey: apiKey ?? "no-key",
      ...this.#attempts.clientOptions,
      defaultHeaders: { ...options.headers, ...(!apiKey && { authorization: null }) },
    });
  }

  async complete(messages: Message[], tools: ToolSchema[], options: ModelCallOptions = {}): Promise<ModelResponse> {
    const request = this.createRequest(messages, tools, options);
    const context = { provider: this.provider, usedIds: () => this.#ids.of(messages) };
    return this.#attempts.complete(options, async (requestOptions, { onEvent }) => {
      // Not streaming is the API's default: `stream` is sent only to stream (no framework-added tokens).
      if (!onEvent) return convertOpenAIResponse(await this.#client.chat.completions.create(request, requestOptions), context);
      const streamOptions = this.#options.streamUsage === false ? {} : { stream_options: { include_usage: true } };
      const stream = await this.#client.chat.completions.create({ ...request, stream: true, ...streamOptions }, requestOptions);
      return collectOpenAIStream(stream as AsyncIterable<OpenAIChunk>, onEvent, context);
    });
  }

  /**
   * The Chat Completions body this model sends for a conversation (without `stream`): the limit as
   * `max_completion_tokens` to OpenAI and `max_tokens` to other servers, and `tool_choice` only when
   * `options.toolChoice` is given and the request has tools (see {@link mapOpenAIToolChoice}), and a
   * `response_format` of type `json_schema` for a `responseFormat` when the model uses structured output
   * (`strict: false`: strict mode refuses common schemas, and the engine validates the answer itself).
   */
  createRequest(messages: readonly Message[], tools: readonly ToolSchema[], options: RequestOptions = {}): OpenAIRequest {
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
      ...(options.responseFormat &&
        this.supportsResponseFormat && {
          response_format: {
            type: "json_schema",
            json_schema: { name: options.responseFormat.name, schema: options.responseFormat.schema, strict: false },
          },
        }),
    };
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
