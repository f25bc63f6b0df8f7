import type { GoogleGenAI, GoogleGenAIOptions, SafetySetting, ThinkingConfig } from "@google/genai";
import type { Message, Model, ModelCallOptions, ModelResponse, ToolSchema } from "../../core/types.js";
import { UsageError } from "../../errors.js";
import { ProviderAttempts, type ProviderModelOptions } from "../provider-attempts.js";
import { ConversationToolCallIds } from "../tool-call-ids.js";
import { collectGoogleStream } from "./collect-google-stream.js";
import { convertGoogleResponse } from "./convert-google-response.js";
import { convertToGoogleContents, convertToGoogleTools } from "./convert-to-google-contents.js";
import { createGoogleError } from "./create-google-error.js";
import type { GoogleAuthOptions, GoogleRequest, GoogleResponse } from "./google-wire-types.js";
import { loadGoogleSdk } from "./load-google-sdk.js";
import { mapGoogleToolChoice } from "./map-google-tool-choice.js";

/** Where a {@link GoogleModel} on Vertex AI runs, and with which Google Cloud credentials. */
export type GoogleVertexOptions = {
  /** Google Cloud project id. Default: the `GOOGLE_CLOUD_PROJECT` environment variable (one of the two is needed). */
  project?: string | undefined;
  /** Region, e.g. "us-central1". Default: the `GOOGLE_CLOUD_LOCATION` environment variable, else "global". */
  location?: string | undefined;
  /**
   * Credentials, as google-auth-library's `GoogleAuthOptions` (e.g. `{ keyFile }`, `{ credentials }`, `{ authClient }`).
   * Default: application-default credentials (`GOOGLE_APPLICATION_CREDENTIALS`, `gcloud auth application-default login`,
   * or the metadata server on Google Cloud), with the `cloud-platform` scope.
   */
  googleAuthOptions?: GoogleAuthOptions | undefined;
};

/** How much a Gemini model thinks, and whether its thought summaries come back (`generationConfig.thinkingConfig`). */
export type GoogleThinkingConfig = {
  /** Thinking tokens, where the model takes a budget (Gemini 2.5): 0 turns thinking off, -1 lets the model decide. */
  thinkingBudget?: number | undefined;
  /** Thinking effort, where the model takes a level (Gemini 3). */
  thinkingLevel?: "MINIMAL" | "LOW" | "MEDIUM" | "HIGH" | undefined;
  /** Return thought summaries (`thought: true` parts), kept in `message.reasoning`. */
  includeThoughts?: boolean | undefined;
};

/** Settings of a {@link GoogleModel}. */
export type GoogleModelOptions = ProviderModelOptions & {
  /** Model id, e.g. "gemini-2.5-flash". */
  model: string;
  /**
   * Gemini API key. Default: the `GOOGLE_API_KEY` environment variable, else `GEMINI_API_KEY` (the SDK's order:
   * `GOOGLE_API_KEY` wins when both are set). Not used on Vertex AI.
   */
  apiKey?: string | undefined;
  /**
   * Base URL of the API, e.g. a proxy or a local test server; the SDK appends `/<apiVersion>/models/<model>:generateContent`
   * (on Vertex AI `/<apiVersion>/projects/<project>/locations/<location>/publishers/google/models/<model>:…`).
   * Default: the SDK's (`GOOGLE_GEMINI_BASE_URL` / `GOOGLE_VERTEX_BASE_URL`, else Google's endpoints).
   */
  baseURL?: string | undefined;
  /**
   * Use Vertex AI instead of the Gemini API: `true` (project and location from the environment) or the settings.
   * Default: Vertex AI when `GOOGLE_GENAI_USE_VERTEXAI` is "true" (as in the SDK), else the Gemini API; `false` forces the Gemini API.
   */
  vertex?: GoogleVertexOptions | boolean | undefined;
  /** API version in the path. Default: the SDK's (`GOOGLE_GENAI_API_VERSION`, else v1 on the Gemini API and v1beta1 on Vertex AI with @google/genai 3.3). */
  apiVersion?: string | undefined;
  /** Most tokens the model may write per call (`maxOutputTokens`; thought tokens count against it). Default: the model's. */
  maxTokens?: number | undefined;
  /** Thinking budget or level, and whether thought summaries come back. */
  thinkingConfig?: GoogleThinkingConfig | undefined;
  /** Sampling temperature. */
  temperature?: number | undefined;
  /** Sequences that stop generation. */
  stopSequences?: string[] | undefined;
  /** Safety filter thresholds, sent as given, e.g. `[{ category: "HARM_CATEGORY_HARASSMENT", threshold: "BLOCK_ONLY_HIGH" }]`. */
  safetySettings?: SafetySetting[] | undefined;
};

/** The call options the request body depends on. */
export type GoogleRequestOptions = Pick<ModelCallOptions, "toolChoice" | "responseFormat">;

/**
 * A Gemini model through the Gemini API or Vertex AI, on the official `@google/genai` SDK (an optional peer
 * dependency, loaded on the first call). Streams when the engine passes `onEvent`, and resolves to the same
 * response either way. Retries and timeouts are minagent's (the SDK's retries and automatic continuation are
 * off); the SDK's HTTP goes through minagent's guarded fetch.
 * @example
 * const model = new GoogleModel({ model: "gemini-2.5-flash", thinkingConfig: { thinkingBudget: 1024 } });
 * const onVertex = new GoogleModel({ model: "gemini-2.5-pro", vertex: { project: "my-project", location: "us-central1" } });
 */
export class GoogleModel implements Model {
  readonly provider = "google";
  readonly modelId: string;
  /** Gemini's structured output: `responseMimeType` "application/json" with a `responseJsonSchema`. */
  readonly supportsResponseFormat = true;
  readonly #options: GoogleModelOptions;
  readonly #attempts: ProviderAttempts;
  readonly #clientOptions: GoogleGenAIOptions;
  readonly #ids = new ConversationToolCallIds();
  #client: Promise<GoogleGenAI> | undefined;

  constructor(options: GoogleModelOptions) {
    const vertex = resolveVertex(options?.vertex);
    const apiKey = vertex ? undefined : (options?.apiKey ?? (readEnv("GOOGLE_API_KEY") || readEnv("GEMINI_API_KEY")));
    const vertexSettings = vertex && vertexClientOptions(vertex);
    this.#attempts = new ProviderAttempts(
      { ...options, apiKey },
      {
        owner: "GoogleModel",
        provider: this.provider,
        exampleModel: "gemini-2.5-flash",
        keyVariable: "GEMINI_API_KEY",
        // The key may come from either of two variables (or none, on Vertex AI): checked below.
        officialKey: false,
        // The SDK has no logging switch; ProviderAttempts' quiet-logging option is not passed to it.
        logVariable: "GOOGLE_GENAI_LOG",
        // A thinking model streams nothing while it thinks unless thoughts are included: allow long silences.
        idleTimeoutMs: 300_000,
        toError: createGoogleError,
        defaultEndpoint: vertexSettings
          ? { url: vertexEndpoint(vertexSettings.location), variable: "GOOGLE_VERTEX_BASE_URL" }
          : { url: "https://generativelanguage.googleapis.com", variable: "GOOGLE_GEMINI_BASE_URL" },
      },
    );
    if (vertex && options.apiKey !== undefined)
      throw new UsageError(
        "GoogleModel: apiKey is for the Gemini API; on Vertex AI the credentials are Google Cloud's (vertex.googleAuthOptions).",
      );
    if (!vertex && !this.#attempts.apiKey)
      throw new UsageError(
        "GoogleModel needs an API key: set the GEMINI_API_KEY (or GOOGLE_API_KEY) environment variable or pass { apiKey }, or use Vertex AI with { vertex: { project, location } }.",
      );
    checkMaxTokens(options.maxTokens);
    this.modelId = options.model;
    this.#options = options;
    this.#clientOptions = {
      vertexai: vertex !== undefined,
      ...(vertexSettings || { apiKey: this.#attempts.apiKey as string }),
      ...(options.apiVersion !== undefined && { apiVersion: options.apiVersion }),
      // No httpOptions.timeout (it would start the SDK's own timer and send X-Server-Timeout) and no retryOptions (no SDK retries).
      httpOptions: {
        ...(options.baseURL !== undefined && { baseUrl: options.baseURL }),
        ...(options.headers && { headers: options.headers }),
        fetch: this.#attempts.clientOptions.fetch,
      },
    };
  }

  async complete(messages: Message[], tools: ToolSchema[], options: ModelCallOptions = {}): Promise<ModelResponse> {
    const request = this.createRequest(messages, tools, options);
    const client = await this.#loadClient();
    const context = { usedIds: () => this.#ids.of(messages) };
    return this.#attempts.complete(options, async ({ signal }, { onEvent }) => {
      const attempt = { ...request, config: { ...request.config, ...(signal && { abortSignal: signal }) } };
      if (!onEvent) return convertGoogleResponse(await client.models.generateContent(attempt), context);
      const stream = await client.models.generateContentStream(attempt);
      return collectGoogleStream(stream as AsyncIterable<GoogleResponse>, onEvent, context);
    });
  }

  /**
   * What this model asks the SDK for (which writes it as the request body): the system messages as
   * `systemInstruction`, the tools as function declarations with their JSON Schema, `toolConfig` only when
   * `options.toolChoice` is given and the request has tools (see {@link mapGoogleToolChoice}), JSON output for a
   * `responseFormat`, and the SDK's automatic function calling and continuation turned off.
   */
  createRequest(messages: readonly Message[], tools: readonly ToolSchema[], options: GoogleRequestOptions = {}): GoogleRequest {
    const { systemInstruction, contents } = convertToGoogleContents(messages);
    const { maxTokens, temperature, stopSequences, thinkingConfig, safetySettings } = this.#options;
    const { toolChoice, responseFormat } = options;
    const thinking = thinkingConfig && withoutUndefined(thinkingConfig);
    return {
      model: this.modelId,
      contents,
      config: {
        ...(systemInstruction !== undefined && { systemInstruction }),
        ...(tools.length > 0 && { tools: convertToGoogleTools(tools) }),
        ...(tools.length > 0 && toolChoice !== undefined && { toolConfig: { functionCallingConfig: mapGoogleToolChoice(toolChoice) } }),
        ...(responseFormat && { responseMimeType: "application/json", responseJsonSchema: responseFormat.schema }),
        ...(maxTokens !== undefined && { maxOutputTokens: maxTokens }),
        ...(temperature !== undefined && { temperature }),
        ...(stopSequences && { stopSequences }),
        ...(thinking && Object.keys(thinking).length > 0 && { thinkingConfig: thinking as ThinkingConfig }),
        ...(safetySettings && { safetySettings }),
        // Tool calls are the engine's to run, and a call is one request: a continuation hop would be a hidden retry.
        automaticFunctionCalling: { disable: true },
        automaticContinuation: false,
      },
    };
  }

  /** The SDK client, made on the first call (loading the optional peer then, once). */
  #loadClient(): Promise<GoogleGenAI> {
    this.#client ??= loadGoogleSdk().then(({ GoogleGenAI }) => new GoogleGenAI(this.#clientOptions));
    return this.#client;
  }
}

function resolveVertex(vertex: GoogleModelOptions["vertex"]): GoogleVertexOptions | undefined {
  if (vertex === undefined) return readEnv("GOOGLE_GENAI_USE_VERTEXAI")?.toLowerCase() === "true" ? {} : undefined;
  if (vertex === false) return undefined;
  return vertex === true ? {} : vertex;
}

function vertexClientOptions(vertex: GoogleVertexOptions): Partial<GoogleGenAIOptions> & { location: string } {
  const project = vertex.project ?? readEnv("GOOGLE_CLOUD_PROJECT");
  if (!project)
    throw new UsageError(
      "GoogleModel on Vertex AI needs a project: set the GOOGLE_CLOUD_PROJECT environment variable or pass { vertex: { project } }.",
    );
  const location = vertex.location ?? (readEnv("GOOGLE_CLOUD_LOCATION") || "global");
  return { project, location, ...(vertex.googleAuthOptions && { googleAuthOptions: vertex.googleAuthOptions }) };
}

/** The address the SDK sends Vertex AI requests to without a base URL (its choice by location). */
function vertexEndpoint(location: string): string {
  if (location === "global") return "https://aiplatform.googleapis.com";
  if (location === "us" || location === "eu") return `https://aiplatform.${location}.rep.googleapis.com`;
  return `https://${location}-aiplatform.googleapis.com`;
}

/** An environment variable, trimmed as the SDK reads it; undefined when unset or blank. */
function readEnv(name: string): string | undefined {
  return process.env[name]?.trim() || undefined;
}

function checkMaxTokens(maxTokens: number | undefined): void {
  if (maxTokens !== undefined && !(Number.isInteger(maxTokens) && maxTokens > 0))
    throw new UsageError(`GoogleModel maxTokens must be a positive whole number, got ${maxTokens}.`);
}

function withoutUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined)) as Partial<T>;
}
