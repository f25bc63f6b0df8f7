import Anthropic from "@anthropic-ai/sdk";
import type { Message, Model, ModelCallOptions, ModelResponse, ToolSchema } from "../../core/types.js";
import { UsageError } from "../../errors.js";
import { checkTimeouts, createAttemptSignal } from "../create-attempt-signal.js";
import { createGuardedFetch } from "../create-guarded-fetch.js";
import { hideSecretsInError } from "../hide-secrets-in-error.js";
import { ConversationToolCallIds } from "../tool-call-ids.js";
import { completeWithRetries, type RetryOptions, type RetryPolicy, resolveRetryOptions } from "../with-retry.js";
import type { AnthropicRequest, AnthropicServerTool, AnthropicStreamEvent } from "./anthropic-wire-types.js";
import { collectAnthropicStream } from "./collect-anthropic-stream.js";
import { convertAnthropicResponse } from "./convert-anthropic-response.js";
import { convertToAnthropicMessages, convertToAnthropicTools } from "./convert-to-anthropic-messages.js";
import { createAnthropicError } from "./create-anthropic-error.js";
import { mapAnthropicToolChoice } from "./map-anthropic-tool-choice.js";

/** Settings of an {@link AnthropicModel}. */
export type AnthropicModelOptions = {
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
   * Retries of a failed call (default 2): rate limits, overload (529), server errors, dropped connections.
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
   * (default 120,000; 0 turns it off). Anthropic streams text as it is written and sends pings meanwhile.
   */
  idleTimeoutMs?: number | undefined;
  /** Extra HTTP headers sent with every request (e.g. an `anthropic-beta` flag). */
  headers?: Record<string, string> | undefined;
  /** A fetch implementation, e.g. to record traffic. Default: the global fetch. */
  fetch?: typeof fetch | undefined;
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
export class AnthropicModel implements Model {
  readonly provider = "anthropic";
  readonly modelId: string;
  readonly #client: Anthropic;
  readonly #options: AnthropicModelOptions;
  readonly #maxTokens: number;
  readonly #retry: RetryPolicy;
  readonly #apiKey: string;
  readonly #ids = new ConversationToolCallIds();

  constructor(options: AnthropicModelOptions) {
    if (typeof options?.model !== "string" || options.model === "")
      throw new UsageError('AnthropicModel needs a model id, e.g. { model: "claude-sonnet-4-6" }.');
    const apiKey = options.apiKey ?? process.env.ANTHROPIC_API_KEY;
    if (!apiKey)
      throw new UsageError("AnthropicModel needs an API key: set the ANTHROPIC_API_KEY environment variable or pass { apiKey }.");
    this.modelId = options.model;
    this.#options = options;
    this.#apiKey = apiKey;
    this.#maxTokens = checkTokens(options);
    this.#retry = resolveRetryOptions({ ...options.retry, maxRetries: options.maxRetries ?? 2 });
    const { idleTimeoutMs = 120_000 } = checkTimeouts("AnthropicModel", options);
    this.#client = new Anthropic({
      apiKey,
      maxRetries: 0, // the SDK's retries cannot be tuned, and they also retry 409 and 408; ours are in completeWithRetries
      ...(options.baseURL !== undefined && { baseURL: options.baseURL }),
      // No SDK timeout: the attempt signal bounds the whole attempt (headers, body, stream) and names it; two timers racing gave two messages.
      ...(options.headers && { defaultHeaders: options.headers }),
      fetch: createGuardedFetch({ provider: this.provider, fetch: options.fetch, idleTimeoutMs }),
      // Failures come back as typed errors; the SDK's console logging (a stream's unparsable data) stays off unless asked for.
      ...(process.env.ANTHROPIC_LOG === undefined && { logLevel: "off" }),
    });
  }

  async complete(messages: Message[], tools: ToolSchema[], options: ModelCallOptions = {}): Promise<ModelResponse> {
    const request = this.createRequest(messages, tools, options);
    const usedIds = () => this.#ids.of(messages);
    return completeWithRetries((attempt) => this.#send(request, usedIds, attempt), options, this.#retry);
  }

  /**
   * The request body this model sends for a conversation (without `stream`). `tool_choice` is sent only
   * when `options.toolChoice` is given and the request has tools (see {@link mapAnthropicToolChoice}).
   */
  createRequest(
    messages: readonly Message[],
    tools: readonly ToolSchema[],
    options: Pick<ModelCallOptions, "toolChoice"> = {},
  ): AnthropicRequest {
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
      ...(temperature !== undefined && { temperature }),
      ...(stopSequences && { stop_sequences: stopSequences }),
    };
  }

  async #send(
    request: AnthropicRequest,
    usedIds: () => ReadonlySet<string>,
    { signal, onEvent: listener }: ModelCallOptions,
  ): Promise<ModelResponse> {
    const attempt = createAttemptSignal(this.provider, signal, this.#options.timeoutMs);
    const requestOptions = attempt.signal ? { signal: attempt.signal } : {};
    const context = { usedIds };
    // The SDK refuses non-streaming requests that may run past 10 minutes (large max_tokens); stream those quietly.
    const onEvent = listener ?? (request.max_tokens > nonStreamingTokenLimit ? () => {} : undefined);
    try {
      // Not streaming is the API's default: `stream` is sent only to stream.
      if (!onEvent) return convertAnthropicResponse(await this.#client.messages.create(request, requestOptions), context);
      const stream = await this.#client.messages.create({ ...request, stream: true }, requestOptions);
      const response = await collectAnthropicStream(stream as AsyncIterable<AnthropicStreamEvent>, onEvent, context);
      attempt.signal?.throwIfAborted(); // the SDK ends an aborted stream quietly; the call must not look complete
      return response;
    } catch (error) {
      throw hideSecretsInError(attempt.timedOut() ?? createAnthropicError(error, signal), [this.#apiKey]);
    } finally {
      attempt.dispose();
    }
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
