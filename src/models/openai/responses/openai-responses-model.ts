import OpenAI from "openai";
import type { Message, Model, ModelCallOptions, ModelResponse, ToolSchema } from "../../../core/types.js";
import { ProviderAttempts, type ProviderModelOptions } from "../../provider-attempts.js";
import { ConversationToolCallIds } from "../../tool-call-ids.js";
import { type WebSearchModel, type WebSearchOptions, type WebSearchOutcome, webSearchMessages } from "../../web-search.js";
import { createOpenAIError } from "../create-openai-error.js";
import { collectResponsesStream } from "./collect-responses-stream.js";
import { convertResponsesResponse } from "./convert-responses-response.js";
import { convertToResponsesInput, convertToResponsesTools } from "./convert-to-responses-input.js";
import { createTerminatedEventsFetch, createWholeEventsFetch } from "./create-whole-events-fetch.js";
import { mapResponsesToolChoice } from "./map-responses-tool-choice.js";
import type { ResponsesReasoningSettings, ResponsesRequest, ResponsesStreamEvent } from "./responses-wire-types.js";
import { collectResponsesWebSearch, responsesWebSearchTool, webSearchSourcesInclude } from "./search-responses-web.js";

/** Settings of an {@link OpenAIResponsesModel}. */
export type OpenAIResponsesModelOptions = ProviderModelOptions & {
  /** Model id, e.g. "gpt-5" or "gpt-4.1". */
  model: string;
  /**
   * API key. Default: the `OPENAI_API_KEY` environment variable, but only for OpenAI itself: with a
   * `baseURL`, pass the server's key here (or none), so your OpenAI key never reaches another host.
   */
  apiKey?: string | undefined;
  /** Another server speaking the Responses API (a proxy, Azure OpenAI's `/openai/v1`), e.g. "http://localhost:8080/v1". */
  baseURL?: string | undefined;
  /** Provider name in errors, traces and `providerMetadata`. Default: "openai", or "openai-compatible" with a `baseURL`. */
  provider?: string | undefined;
  /** Most tokens the model may write per call, reasoning included (`max_output_tokens`). */
  maxTokens?: number | undefined;
  /** Sampling temperature (reasoning models refuse it). */
  temperature?: number | undefined;
  /**
   * How hard a reasoning model thinks (`effort`) and whether it writes summaries of its reasoning
   * (`summary`: "auto", "concise", "detailed").
   */
  reasoning?: ResponsesReasoningSettings | undefined;
  /**
   * Ask for the encrypted reasoning (`include: ["reasoning.encrypted_content"]`) while `store` is false, so that
   * the reasoning goes back to the model on the next turn. Default: true when `reasoning` is set or the model id
   * names one of OpenAI's reasoning families (o1, o3, o4-mini, gpt-5 but not gpt-5-chat, codex); models that do not
   * reason refuse it (gpt-4o, gpt-4.1), so set false for another reasoning model's id that does not show it.
   */
  includeReasoning?: boolean | undefined;
  /**
   * Let OpenAI keep the responses (`store: true`, for its dashboard and evals). Default false: nothing is
   * kept on the server; every request carries the whole conversation, reasoning included.
   */
  store?: boolean | undefined;
};

/**
 * A model behind OpenAI's Responses API (POST /v1/responses), on the official `openai` SDK. Reasoning
 * items go back to the model on every turn as they were received (encrypted, with nothing stored on the
 * server by default); their summaries are readable in `message.reasoning`. Streams when the engine passes
 * `onEvent`, and resolves to the same response either way.
 * @example
 * const model = new OpenAIResponsesModel({ model: "gpt-5", reasoning: { effort: "low", summary: "auto" } });
 */
export class OpenAIResponsesModel implements Model, WebSearchModel {
  readonly provider: string;
  readonly modelId: string;
  /** Final answers can be held to a JSON Schema (`text.format` json_schema). */
  readonly supportsResponseFormat = true;
  readonly #client: OpenAI;
  readonly #options: OpenAIResponsesModelOptions;
  readonly #attempts: ProviderAttempts;
  /** Tool-call ids of each conversation seen, kept up to date as it grows, so no call rescans the history. */
  readonly #ids = new ConversationToolCallIds();

  constructor(options: OpenAIResponsesModelOptions) {
    const official = options?.baseURL === undefined;
    this.provider = options?.provider ?? (official ? "openai" : "openai-compatible");
    // A whole last line missing its break is completed under the guarded fetch (which drops a partial last line).
    this.#attempts = new ProviderAttempts(
      { ...options, fetch: createTerminatedEventsFetch(options.fetch) },
      {
        owner: "OpenAIResponsesModel",
        provider: this.provider,
        exampleModel: "gpt-5",
        keyVariable: "OPENAI_API_KEY",
        // With a baseURL the key is the server's, given or none: an OpenAI key from the environment never reaches another host.
        officialKey: official,
        logVariable: "OPENAI_LOG",
        // A reasoning model may think for minutes before its first output event, but OpenAI sends progress events meanwhile.
        idleTimeoutMs: official ? 120_000 : 300_000,
        toError: (error, signal) => createOpenAIError(error, this.provider, signal),
        defaultEndpoint: { url: "https://api.openai.com/v1", variable: "OPENAI_BASE_URL" },
      },
    );
    this.modelId = options.model;
    this.#options = options;
    const apiKey = this.#attempts.apiKey;
    this.#client = new OpenAI({
      // A keyless server: the SDK insists on a key, so give it a placeholder and send no Authorization header.
      apiKey: apiKey ?? "no-key",
      ...this.#attempts.clientOptions,
      // Over the guarded fetch (which times the raw bytes), only whole events reach the SDK.
      fetch: createWholeEventsFetch(this.#attempts.clientOptions.fetch),
      defaultHeaders: { ...options.headers, ...(!apiKey && { authorization: null }) },
    });
  }

  async complete(messages: Message[], tools: ToolSchema[], options: ModelCallOptions = {}): Promise<ModelResponse> {
    const request = this.createRequest(messages, tools, options);
    const context = { provider: this.provider, usedIds: () => this.#ids.of(messages) };
    return this.#attempts.complete(options, async (requestOptions, { onEvent }) => {
      if (!onEvent) return convertResponsesResponse(await this.#client.responses.create(request, requestOptions), context);
      const stream = await this.#client.responses.create({ ...request, stream: true }, requestOptions);
      return collectResponsesStream(stream as AsyncIterable<ResponsesStreamEvent>, onEvent, context);
    });
  }

  /**
   * Searches the web with OpenAI's `web_search` tool: one separate call of this model whose request offers only that
   * tool (the allowed domains as its filter) and asks for the sources it read. The results are the response's
   * `url_citation` annotations and sources; blocked domains, which the API does not take, are dropped from them.
   * @see https://platform.openai.com/docs/guides/tools-web-search
   */
  async searchWeb(query: string, options: WebSearchOptions = {}): Promise<WebSearchOutcome> {
    const messages = webSearchMessages(query);
    const base = this.createRequest(messages, []);
    const request: ResponsesRequest = {
      ...base,
      tools: [responsesWebSearchTool(options)],
      include: [...(base.include ?? []), webSearchSourcesInclude],
    };
    const context = { provider: this.provider, usedIds: () => this.#ids.of(messages) };
    const response = await this.#attempts.complete(options.signal ? { signal: options.signal } : {}, async (requestOptions) =>
      convertResponsesResponse(await this.#client.responses.create(request, requestOptions), context),
    );
    return collectResponsesWebSearch(response, this.provider, options);
  }

  /**
   * The Responses body this model sends for a conversation (without `stream`): `store: false` unless asked
   * otherwise, the leading system prompt as `instructions`, `tool_choice` only when `options.toolChoice` is
   * given and the request has tools, and `responseFormat` as a `json_schema` text format.
   */
  createRequest(
    messages: readonly Message[],
    tools: readonly ToolSchema[],
    options: Pick<ModelCallOptions, "toolChoice" | "responseFormat"> = {},
  ): ResponsesRequest {
    const {
      maxTokens,
      temperature,
      reasoning,
      includeReasoning = reasoning !== undefined || reasoningModel.test(this.modelId),
    } = this.#options;
    const store = this.#options.store ?? false;
    const { instructions, input } = convertToResponsesInput(messages, { provider: this.provider, store });
    const format = options.responseFormat;
    return {
      model: this.modelId,
      ...(instructions !== undefined && { instructions }),
      input,
      // Sent either way: the API's own default is to store.
      store,
      ...(tools.length > 0 && { tools: convertToResponsesTools(tools) }),
      ...(tools.length > 0 && options.toolChoice !== undefined && { tool_choice: mapResponsesToolChoice(options.toolChoice) }),
      ...(maxTokens !== undefined && { max_output_tokens: maxTokens }),
      ...(temperature !== undefined && { temperature }),
      ...(reasoning !== undefined && { reasoning }),
      // Without stored responses, the reasoning can only go back to the model encrypted.
      ...(includeReasoning && !store && { include: ["reasoning.encrypted_content"] }),
      ...(format && { text: { format: { type: "json_schema", name: format.name, schema: format.schema, strict: false } } }),
    };
  }
}

/** OpenAI's reasoning model ids: o1, o3, o4-mini, gpt-5 (and its -mini, -nano, -codex, dated versions, not -chat), codex-mini. */
const reasoningModel = /^(o\d|gpt-5(?!.*-chat)|codex)/i;
