import type { BedrockRuntimeClient } from "@aws-sdk/client-bedrock-runtime";
import type { Message, Model, ModelCallOptions, ModelResponse, ToolSchema } from "../../core/types.js";
import { UsageError } from "../../errors.js";
import { ProviderAttempts, type ProviderModelOptions } from "../provider-attempts.js";
import { ConversationToolCallIds } from "../tool-call-ids.js";
import type { BedrockCredentials, BedrockRequest } from "./bedrock-wire-types.js";
import { collectBedrockStream } from "./collect-bedrock-stream.js";
import { convertBedrockResponse } from "./convert-bedrock-response.js";
import { convertToBedrockMessages, convertToBedrockTools } from "./convert-to-bedrock-messages.js";
import { createBedrockError, createMalformedResponseError } from "./create-bedrock-error.js";
import { type BedrockSdk, loadBedrockSdk } from "./load-bedrock-sdk.js";
import { mapBedrockToolChoice } from "./map-bedrock-tool-choice.js";

/**
 * Settings of a {@link BedrockModel}. `fetch` is not among them: the AWS SDK sends its requests through its own
 * Node HTTP handler, not fetch; `endpoint` and `endpointSource` stand for `baseURL` and `baseURLSource`. `timeoutMs` bounds each attempt through the abort signal the SDK is given;
 * `idleTimeoutMs` is the handler's socket timeout (silence on the connection, headers and stream alike).
 */
export type BedrockModelOptions = Omit<ProviderModelOptions, "fetch" | "baseURLSource"> & {
  /**
   * The model: a model id ("anthropic.claude-sonnet-4-20250514-v1:0", "amazon.nova-micro-v1:0"), an inference
   * profile id ("us.anthropic.claude-sonnet-4-20250514-v1:0") or an ARN (of a profile or a provisioned model).
   * The SDK URL-encodes it into the path.
   */
  model: string;
  /** AWS region, e.g. "us-east-1". Default: the SDK's (`AWS_REGION`, `AWS_DEFAULT_REGION`, the profile's region). */
  region?: string | undefined;
  /** An endpoint URL instead of bedrock-runtime.<region>.amazonaws.com: a VPC endpoint, a proxy, a local test server. */
  endpoint?: string | undefined;
  /**
   * What set `endpoint`, named when the connection fails ("the connection to … (set by …) failed"). Default "the
   * endpoint option"; a resolver passes the variable or model string it read the URL from.
   */
  endpointSource?: string | undefined;
  /**
   * AWS credentials, or a function that provides them (e.g. `fromIni({ profile })` of `@aws-sdk/credential-providers`).
   * Default: the SDK's credential chain (environment variables, `AWS_PROFILE` and ~/.aws, SSO, container and
   * instance roles). A static secret access key is hidden from every error.
   */
  credentials?: BedrockCredentials | undefined;
  /** Most tokens the model may write per call (`inferenceConfig.maxTokens`). Default: the model's. */
  maxTokens?: number | undefined;
  /** Sampling temperature. */
  temperature?: number | undefined;
  /** Nucleus sampling (`inferenceConfig.topP`). */
  topP?: number | undefined;
  /** Sequences that stop generation (reported as the `stop_sequence` stop reason). */
  stopSequences?: string[] | undefined;
  /**
   * Fields of the model family's own request, sent as given: e.g. Claude's extended thinking,
   * `{ thinking: { type: "enabled", budget_tokens: 2048 } }` (while `thinking` is set, a forced `toolChoice` is
   * sent as `auto`, as the API refuses forced tool use with thinking).
   */
  additionalModelRequestFields?: Record<string, unknown> | undefined;
  /**
   * Honour a call's `responseFormat` through Converse's `outputConfig.textFormat` (JSON Schema structured
   * output). Only some models support it, so it is off by default and the engine then asks for typed output
   * through a final-answer tool, which every tool-using model can do. Turn it on for a model that supports it.
   * @see https://docs.aws.amazon.com/bedrock/latest/userguide/structured-output.html
   */
  nativeResponseFormat?: boolean | undefined;
};

/** The call options a request body depends on. */
export type BedrockRequestOptions = Pick<ModelCallOptions, "toolChoice" | "responseFormat">;

/**
 * Any model on Amazon Bedrock (Claude, Nova, Llama, Mistral, …) through the Converse API, on
 * `@aws-sdk/client-bedrock-runtime` (an optional peer dependency, loaded on the first call). Streams through
 * ConverseStream when the engine passes `onEvent`, and resolves to the same response either way. Requests are
 * SigV4-signed with the given credentials or the AWS credential chain. Retries are minagent's (`maxRetries`),
 * the SDK makes one attempt.
 * @example
 * const model = new BedrockModel({ model: "us.anthropic.claude-sonnet-4-20250514-v1:0", region: "us-east-1" });
 * const result = await new Agent(model, registry).run("What is 17 * 23?");
 */
export class BedrockModel implements Model {
  readonly provider = "bedrock";
  readonly modelId: string;
  /** True when `nativeResponseFormat` is set. */
  readonly supportsResponseFormat?: true;
  readonly #options: BedrockModelOptions;
  readonly #attempts: ProviderAttempts;
  readonly #ids = new ConversationToolCallIds();
  #connection: Promise<{ client: BedrockRuntimeClient; sdk: BedrockSdk }> | undefined;

  constructor(options: BedrockModelOptions) {
    const credentials = options?.credentials;
    const secret = credentials && typeof credentials === "object" ? credentials.secretAccessKey : undefined;
    // There is no API key: the secret access key, when given, is what ProviderAttempts hides from errors.
    this.#attempts = new ProviderAttempts(
      { ...options, apiKey: secret, baseURL: options?.endpoint, baseURLSource: options?.endpointSource ?? "the endpoint option" },
      {
        owner: "BedrockModel",
        provider: this.provider,
        exampleModel: "us.anthropic.claude-sonnet-4-20250514-v1:0",
        keyVariable: "AWS_SECRET_ACCESS_KEY",
        officialKey: false,
        logVariable: "AWS_SDK_LOG",
        idleTimeoutMs,
        // Without an endpoint the SDK goes to the region's address, or to the URL AWS's own variable sets.
        defaultEndpoint: { url: defaultEndpointURL(options?.region), variable: "AWS_ENDPOINT_URL_BEDROCK_RUNTIME" },
        toError: (error, signal) => createBedrockError(error, signal, { idleTimeoutMs: options.idleTimeoutMs ?? idleTimeoutMs }),
      },
    );
    this.modelId = options.model;
    this.#options = options;
    if (options.maxTokens !== undefined && !(Number.isInteger(options.maxTokens) && options.maxTokens > 0))
      throw new UsageError(`BedrockModel maxTokens must be a positive whole number, got ${options.maxTokens}.`);
    if (options.nativeResponseFormat) this.supportsResponseFormat = true;
  }

  async complete(messages: Message[], tools: ToolSchema[], options: ModelCallOptions = {}): Promise<ModelResponse> {
    const request = this.createRequest(messages, tools, options);
    const context = { usedIds: () => this.#ids.of(messages) };
    return this.#attempts.complete(options, async ({ signal }, { onEvent }) => {
      const { client, sdk } = await this.#connect();
      // The SDK's HTTP handler is not fetch: the attempt's signal (the caller's, and the timeoutMs deadline) reaches it here.
      const sendOptions = signal ? { abortSignal: signal } : {};
      if (!onEvent) return convertBedrockResponse(await client.send(new sdk.ConverseCommand(request), sendOptions), context);
      const response = await client.send(new sdk.ConverseStreamCommand(request), sendOptions);
      if (!response.stream) throw createMalformedResponseError("ConverseStream answered without an event stream");
      return collectBedrockStream(response.stream, onEvent, context);
    });
  }

  /**
   * The Converse request this model sends for a conversation (ConverseStream takes the same). Tools go in
   * `toolConfig` with their JSON Schemas as given, `toolChoice` only when the call asks for one. Converse has no
   * "none": a `"none"` call is sent without tools, unless the conversation already holds tool calls or results,
   * which the API accepts only with a `toolConfig` (then the tools are sent, without a `toolChoice`).
   */
  createRequest(messages: readonly Message[], tools: readonly ToolSchema[], options: BedrockRequestOptions = {}): BedrockRequest {
    const { system, messages: converted } = convertToBedrockMessages(messages);
    const { maxTokens, temperature, topP, stopSequences, additionalModelRequestFields } = this.#options;
    const holdsToolBlocks = converted.some((message) => message.content?.some((block) => "toolUse" in block || "toolResult" in block));
    const sendTools = tools.length > 0 && (options.toolChoice !== "none" || holdsToolBlocks);
    const thinking = additionalModelRequestFields?.thinking !== undefined;
    const toolChoice = sendTools && options.toolChoice ? mapBedrockToolChoice(options.toolChoice, { thinking }) : undefined;
    const inferenceConfig = {
      ...(maxTokens !== undefined && { maxTokens }),
      ...(temperature !== undefined && { temperature }),
      ...(topP !== undefined && { topP }),
      ...(stopSequences && { stopSequences }),
    };
    const { responseFormat } = options;
    return {
      modelId: this.modelId,
      messages: converted,
      ...(system.length > 0 && { system }),
      ...(Object.keys(inferenceConfig).length > 0 && { inferenceConfig }),
      ...(sendTools && { toolConfig: { tools: convertToBedrockTools(tools), ...(toolChoice && { toolChoice }) } }),
      ...(additionalModelRequestFields && { additionalModelRequestFields: additionalModelRequestFields as never }),
      ...(responseFormat &&
        this.supportsResponseFormat && {
          outputConfig: {
            textFormat: {
              type: "json_schema",
              structure: { jsonSchema: { name: responseFormat.name, schema: JSON.stringify(responseFormat.schema) } },
            },
          },
        }),
    };
  }

  /** The SDK client, made on the first call (loading the SDK then): one attempt per send, the HTTP/1.1 handler, the options' headers. */
  #connect(): Promise<{ client: BedrockRuntimeClient; sdk: BedrockSdk }> {
    this.#connection ??= loadBedrockSdk().then((sdk) => ({ sdk, client: this.#createClient(sdk) }));
    // A failed load (the package is missing) is not kept: installing it makes the next call work.
    this.#connection.catch(() => {
      this.#connection = undefined;
    });
    return this.#connection;
  }

  #createClient(sdk: BedrockSdk): BedrockRuntimeClient {
    const { region, endpoint, credentials, headers, idleTimeoutMs: idle = idleTimeoutMs } = this.#options;
    const client = new sdk.BedrockRuntimeClient({
      // minagent's retries replace the SDK's (see ProviderAttempts): the SDK tries once.
      maxAttempts: 1,
      ...(region !== undefined && { region }),
      ...(endpoint !== undefined && { endpoint }),
      ...(credentials !== undefined && { credentials }),
      requestHandler: new sdk.NodeHttpHandler({ socketTimeout: idle > 0 ? idle : undefined }),
    });
    if (headers && Object.keys(headers).length > 0) {
      // Added before signing, so the headers are signed with the request.
      client.middlewareStack.add(
        (next) => (args) => {
          Object.assign((args.request as { headers: Record<string, string> }).headers, headers);
          return next(args);
        },
        { step: "build", name: "minagentHeaders" },
      );
    }
    return client;
  }
}

/** The Bedrock runtime address of the region (as the SDK will find it), for connection errors. */
function defaultEndpointURL(region: string | undefined): string {
  const resolved = region ?? process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION ?? "<region>";
  return `https://bedrock-runtime.${resolved}.amazonaws.com`;
}

/** Milliseconds of silence allowed on the connection when `idleTimeoutMs` is not given. */
const idleTimeoutMs = 120_000;
