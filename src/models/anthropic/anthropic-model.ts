import type Anthropic from "@anthropic-ai/sdk";
import type { Message, Model, ModelCallOptions, ModelResponse, ToolSchema } from "../../core/types.js";
import { UsageError } from "../../errors.js";
import { ProviderAttempts, type ProviderModelOptions, type RequestOptions } from "../provider-attempts.js";
import { ConversationToolCallIds } from "../tool-call-ids.js";
import { completeWebSearch, type WebSearchModel, type WebSearchOptions, type WebSearchOutcome } from "../web-search.js";
import type { AnthropicRequest, AnthropicServerTool, AnthropicStreamEvent } from "./anthropic-wire-types.js";
import { collectAnthropicStream } from "./collect-anthropic-stream.js";
import { convertAnthropicResponse } from "./convert-anthropic-response.js";
import { convertToAnthropicMessages, convertToAnthropicTools } from "./convert-to-anthropic-messages.js";
import { createAnthropicError } from "./create-anthropic-error.js";
import { mapAnthropicOutputFormat } from "./map-anthropic-output-format.js";
import { mapAnthropicToolChoice } from "./map-anthropic-tool-choice.js";
import { anthropicWebSearchTool, collectAnthropicWebSearch } from "./search-anthropic-web.js";

/** Settings of an {@link AnthropicModel}. */
export type AnthropicModelOptions = ProviderModelOptions & {
  /** Model id, e.g. "claude-sonnet-4-6". */
  model: string;
  /** API key. Default: the `ANTHROPIC_API_KEY` environment variable. */
  apiKey?: string | undefined;
  /** API base URL, e.g. a proxy or a local test server. Default: the SDK's (`ANTHROPIC_BASE_URL` or api.anthropic.com). */
  baseURL?: string | undefined;
  /** Most tokens the model may write per call (default 4096, or the thinking budget plus 4096). */
  maxTokens?: number | undefined;
  /**
   * Extended thinking: the model reasons before it answers, within this many tokens (at least 1024).
   * The API does not let a thinking model be forced to use a tool, so while thinking is on a call's
   * `toolChoice` of `"required"` or `{ name }` is sent as `auto` (the tools stay, the model chooses);
   * `"none"` and `"auto"` are sent as asked.
   * @see https://docs.claude.com/en/docs/build-with-claude/extended-thinking#extended-thinking-with-tool-use
   */
  thinking?: { budgetTokens: number } | undefined;
  /**
   * Tools Anthropic runs on its side, sent as given after the agent's own tools, e.g.
   * `[{ type: "web_search_20250305", name: "web_search", max_uses: 5 }]`. Their calls and results arrive
   * as blocks of the assistant message (kept and sent back as received); a long server-side turn may
   * stop with `pause_turn`, and the agent continues it. Some need a beta flag in `headers`.
   * @see https://docs.claude.com/en/docs/agents-and-tools/tool-use/web-search-tool
   */
  serverTools?: AnthropicServerTool[] | undefined;
  /** Sampling temperature (not allowed together with thinking). */
  temperature?: number | undefined;
  /** Sequences that stop generation (reported as the `stop_sequence` stop reason). */
  stopSequences?: string[] | undefined;
  /**
   * Answer an agent's output schema through the API's structured outputs (`output_config.format`, default true),
   * which constrain the final text to the schema while tools stay usable. Turn it off for a model without them
   * (those before Claude Sonnet 4.5 / Opus 4.5 / Haiku 4.5 answer 400): the agent then gives its answer through a
   * final-answer tool.
   * @see https://docs.claude.com/en/docs/build-with-claude/structured-outputs
   */
  structuredOutput?: boolean | undefined;
};

/**
 * A Claude model through the Messages API, on the official `@anthropic-ai/sdk`.
 * Streams when the engine passes `onEvent`, and resolves to the same response either way.
 * Retries are minagent's own ({@link withRetry}'s policy), not the SDK's, so that `maxRetries` is
 * exact and the backoff can be tuned.
 * @example
 * const model = new AnthropicModel({ model: "claude-sonnet-4-6", thinking: { budgetTokens: 2048 } });
 * const result = await new Agent(model, registry).run("What is 17 * 23?");
 */
export class AnthropicModel implements Model, WebSearchModel {
  readonly provider = "anthropic";
  readonly modelId: string;
  readonly supportsResponseFormat: boolean;
  /** The SDK's client, made at the first call: the SDK is some 300 modules a process need not load before it asks. */
  #client: Promise<Anthropic> | undefined;
  readonly #options: AnthropicModelOptions;
  readonly #maxTokens: number;
  readonly #attempts: ProviderAttempts;
  readonly #ids = new ConversationToolCallIds();

  constructor(options: AnthropicModelOptions) {
    this.#attempts = new ProviderAttempts(options, {
      owner: "AnthropicModel",
      provider: this.provider,
      exampleModel: "claude-sonnet-4-6",
      keyVariable: "ANTHROPIC_API_KEY",
      officialKey: true,
      logVariable: "ANTHROPIC_LOG",
      idleTimeoutMs: 120_000,
      toError: createAnthropicError,
      defaultEndpoint: { url: "https://api.anthropic.com", variable: "ANTHROPIC_BASE_URL" },
    });
    this.modelId = options.model;
    this.supportsResponseFormat = options.structuredOutput ?? true;
    this.#options = options;
    this.#maxTokens = checkTokens(options);
  }

  #sdkClient(): Promise<Anthropic> {
    this.#client ??= import("@anthropic-ai/sdk").then(
      ({ default: Sdk }) =>
        new Sdk({
          apiKey: this.#attempts.apiKey,
          ...this.#attempts.clientOptions,
          ...(this.#options.headers && { defaultHeaders: this.#options.headers }),
        }),
    );
    return this.#client;
  }

  async complete(messages: Message[], tools: ToolSchema[], options: ModelCallOptions = {}): Promise<ModelResponse> {
    const request = this.createRequest(messages, tools, options);
    const context = { usedIds: () => this.#ids.of(messages) };
    return this.#attempts.complete(options, async (requestOptions, { onEvent: listener }) => {
      // The SDK refuses non-streaming requests that may run past 10 minutes (large max_tokens); stream those quietly.
      const onEvent = listener ?? (request.max_tokens > nonStreamingTokenLimit ? () => {} : undefined);
      // Not streaming is the API's default: `stream` is sent only to stream.
      const client = await this.#sdkClient();
      if (!onEvent) return convertAnthropicResponse(await client.messages.create(request, requestOptions), context);
      const stream = await client.messages.create({ ...request, stream: true }, requestOptions);
      return collectAnthropicStream(stream as AsyncIterable<AnthropicStreamEvent>, onEvent, context);
    });
  }

  /**
   * Searches the web with Anthropic's web search tool, as Claude Code's WebSearch does: one separate call of this
   * model (same connection settings, no thinking) whose request offers only `web_search` with the domain lists, its
   * `pause_turn` stops continued until the turn ends. The results are those of its `web_search_tool_result` blocks.
   * @see https://docs.claude.com/en/docs/agents-and-tools/tool-use/web-search-tool
   */
  async searchWeb(query: string, options: WebSearchOptions = {}): Promise<WebSearchOutcome> {
    const searcher = new AnthropicModel({ ...this.#options, thinking: undefined, serverTools: [anthropicWebSearchTool(options)] });
    return collectAnthropicWebSearch(await completeWebSearch(searcher, query, options.signal));
  }

  /**
   * The Messages API body this model sends for a conversation (without `stream`): the system messages as `system`,
   * the agent's tools followed by the `serverTools`, and `tool_choice` only when `options.toolChoice` is given and
   * the request has tools (see {@link mapAnthropicToolChoice}), and `output_config.format` for a `responseFormat`
   * (see {@link mapAnthropicOutputFormat}) unless `structuredOutput` is false. A tool named like a server tool is a
   * UsageError.
   */
  createRequest(messages: readonly Message[], tools: readonly ToolSchema[], options: RequestOptions = {}): AnthropicRequest {
    const { system, messages: converted } = convertToAnthropicMessages(messages);
    const { thinking, temperature, stopSequences, serverTools = [] } = this.#options;
    const clash = tools.find((tool) => serverTools.some((serverTool) => "name" in serverTool && serverTool.name === tool.name));
    if (clash) throw new UsageError(`AnthropicModel: the tool "${clash.name}" has the name of one of the serverTools; rename one of them.`);
    const allTools = [...convertToAnthropicTools(tools), ...serverTools];
    return {
      model: this.modelId,
      max_tokens: this.#maxTokens,
      messages: converted,
      ...(system !== undefined && { system }),
      ...(allTools.length > 0 && { tools: allTools }),
      ...(allTools.length > 0 &&
        options.toolChoice !== undefined && {
          tool_choice: mapAnthropicToolChoice(options.toolChoice, { thinking: thinking !== undefined }),
        }),
      ...(thinking && { thinking: { type: "enabled", budget_tokens: thinking.budgetTokens } }),
      ...(options.responseFormat &&
        this.supportsResponseFormat && { output_config: { format: mapAnthropicOutputFormat(options.responseFormat) } }),
      ...(temperature !== undefined && { temperature }),
      ...(stopSequences && { stop_sequences: stopSequences }),
    };
  }
}

/** Above this max_tokens the SDK expects a non-streaming call to outlast its 10-minute limit (60 min × tokens / 128,000). */
const nonStreamingTokenLimit = 21_333;

function checkTokens({ maxTokens, thinking }: AnthropicModelOptions): number {
  if (thinking && !(Number.isInteger(thinking.budgetTokens) && thinking.budgetTokens >= 1024)) {
    throw new UsageError(`AnthropicModel thinking.budgetTokens must be a whole number ≥ 1024, got ${thinking.budgetTokens}.`);
  }
  const tokens = maxTokens ?? (thinking ? thinking.budgetTokens + 4096 : 4096);
  if (!Number.isInteger(tokens) || tokens < 1)
    throw new UsageError(`AnthropicModel maxTokens must be a positive whole number, got ${tokens}.`);
  if (thinking && tokens <= thinking.budgetTokens) {
    throw new UsageError(`AnthropicModel maxTokens (${tokens}) must be larger than thinking.budgetTokens (${thinking.budgetTokens}).`);
  }
  return tokens;
}
