import type { Model } from "../core/types.js";
import { UsageError } from "../errors.js";
import type { RetryOptions } from "./with-retry.js";

/** Which adapter serves a model string's provider. */
export type ModelProvider = "anthropic" | "openai" | "openai-chat" | "openai-compatible" | "ollama" | "google" | "vertex" | "bedrock";

/** Where a model string points. */
export type ModelSpec = {
  /** Which adapter serves it. */
  provider: ModelProvider;
  /** The model id sent to the server. */
  model: string;
  /** The server's base URL, for OpenAI-compatible servers. */
  baseURL?: string;
  /**
   * The environment variable the API key is read from (the one messages name). For Vertex and Bedrock, the first
   * variable their cloud's credential chain reads (GOOGLE_APPLICATION_CREDENTIALS, AWS_ACCESS_KEY_ID): their SDKs read it.
   */
  apiKeyVariable: string;
  /** Variables read, in order, when {@link apiKeyVariable} is not set (Gemini's `GOOGLE_API_KEY`). */
  apiKeyFallbackVariables?: string[];
  /** True when the provider cannot be used without that key (local servers need none; Vertex and Bedrock use their cloud's credentials). */
  apiKeyRequired: boolean;
};

/** Settings for {@link resolveModel}. */
export type ResolveModelOptions = {
  /** Where API keys are read from (default `process.env`). */
  env?: Record<string, string | undefined> | undefined;
  /** Retries of a failed call (default 2). Wrapped in `withRetry`, the wrapper's policy replaces this one. */
  maxRetries?: number | undefined;
  /** Backoff settings of those retries. */
  retry?: Omit<RetryOptions, "maxRetries"> | undefined;
  /** A fetch implementation (e.g. to record traffic). */
  fetch?: typeof fetch | undefined;
  /** Milliseconds one attempt at a model call may take, body and stream included (see the adapters' `timeoutMs`). */
  timeoutMs?: number | undefined;
  /** Milliseconds the server may stay silent while it sends a response (see the adapters' `idleTimeoutMs`). */
  idleTimeoutMs?: number | undefined;
  /** Extended thinking, for an Anthropic model (`AnthropicModelOptions.thinking`); other providers ignore it. */
  thinking?: { budgetTokens: number } | undefined;
};

/** Ollama's OpenAI-compatible endpoint on its default port. */
export const ollamaBaseURL = "http://localhost:11434/v1";

/** The model-string syntax, for help texts. */
export const modelSpecSyntax = `  anthropic:<model>                  Claude through the Anthropic API      (key: ANTHROPIC_API_KEY)
  openai:<model>                     OpenAI's Responses API                (key: OPENAI_API_KEY)
  openai-chat:<model>                OpenAI Chat Completions               (key: OPENAI_API_KEY)
  google:<model>                     Gemini through the Gemini API         (key: GOOGLE_API_KEY or GEMINI_API_KEY)
  vertex:<model>                     Gemini on Vertex AI                   (Google Cloud application-default
                                     credentials; GOOGLE_CLOUD_PROJECT, GOOGLE_CLOUD_LOCATION)
  bedrock:<model-id>                 any model on Amazon Bedrock           (the AWS credential chain; AWS_REGION)
  ollama:<model>                     a local Ollama at ${ollamaBaseURL}
  openai-compatible:<model>@<url>    any OpenAI-compatible server, e.g. vLLM, llama.cpp, LM Studio
                                     (key, if it needs one: OPENAI_COMPATIBLE_API_KEY)
  e.g. anthropic:claude-sonnet-4-6, openai:gpt-5, google:gemini-2.5-flash,
       bedrock:us.anthropic.claude-sonnet-4-5-20250929-v1:0, ollama:qwen3:8b,
       openai-compatible:meta-llama/Llama-3.1-8B-Instruct@http://localhost:8000/v1`;

const withURL = /^(.+)@(https?:\/\/.+)$/;

/**
 * Parses a model string: `anthropic:<model>`, `openai:<model>` (the Responses API), `openai-chat:<model>`
 * (Chat Completions), `google:<model>`, `vertex:<model>`, `bedrock:<model-id>`, `ollama:<model>` or
 * `openai-compatible:<model>@<base-url>` (an `@<base-url>` suffix also points `ollama:` at another
 * host; given as `http://host:11434`, without a path, it gets Ollama's `/v1`). Everything after the
 * first colon is the model id, so ids may contain colons and slashes (`ollama:qwen3:8b`). Throws a
 * UsageError saying what is accepted.
 */
export function parseModelSpec(spec: string): ModelSpec {
  const colon = spec.indexOf(":");
  const provider = colon === -1 ? spec : spec.slice(0, colon);
  const rest = colon === -1 ? "" : spec.slice(colon + 1);
  const [, model = rest, baseURL] = withURL.exec(rest) ?? [];
  const fail = (problem: string) => new UsageError(`Model "${spec}": ${problem}. Use one of:\n${modelSpecSyntax}`);
  if (colon === -1) throw fail("name the provider before the model, as <provider>:<model>");
  if (model === "") throw fail("no model id after the provider");
  const cloud = (name: string) => {
    if (baseURL) throw fail(`${name}: takes no URL; for another server use openai-compatible:<model>@<url>`);
  };
  switch (provider) {
    case "anthropic":
    case "openai":
    case "openai-chat":
      cloud(provider);
      return { provider, model, apiKeyVariable: provider === "anthropic" ? "ANTHROPIC_API_KEY" : "OPENAI_API_KEY", apiKeyRequired: true };
    case "google":
      cloud(provider);
      // The SDK's order: GOOGLE_API_KEY wins when both are set.
      return { provider, model, apiKeyVariable: "GOOGLE_API_KEY", apiKeyFallbackVariables: ["GEMINI_API_KEY"], apiKeyRequired: true };
    // Vertex and Bedrock sign in with their cloud's credential chain, which their SDKs read; no key is passed.
    case "vertex":
      cloud(provider);
      return { provider, model, apiKeyVariable: "GOOGLE_APPLICATION_CREDENTIALS", apiKeyRequired: false };
    case "bedrock":
      cloud(provider);
      return { provider, model, apiKeyVariable: "AWS_ACCESS_KEY_ID", apiKeyRequired: false };
    case "ollama":
      return { provider, model, baseURL: ollamaURL(baseURL, fail), apiKeyVariable: "OLLAMA_API_KEY", apiKeyRequired: false };
    case "openai-compatible":
      if (!baseURL) throw fail("an OpenAI-compatible server needs its URL: openai-compatible:<model>@<url>");
      return { provider, model, baseURL, apiKeyVariable: "OPENAI_COMPATIBLE_API_KEY", apiKeyRequired: false };
    default:
      throw fail(`unknown provider "${provider}"`);
  }
}

/** The API key a model string's provider reads from `env`: its variable, else its fallbacks in order; undefined when none is set. */
export function findApiKey(spec: ModelSpec, env: Record<string, string | undefined>): string | undefined {
  for (const variable of [spec.apiKeyVariable, ...(spec.apiKeyFallbackVariables ?? [])]) if (env[variable]) return env[variable];
  return undefined;
}

/** The variables a missing key may be set in, for messages: "GOOGLE_API_KEY (or GEMINI_API_KEY)". */
export function describeApiKeyVariables(spec: ModelSpec): string {
  const fallbacks = spec.apiKeyFallbackVariables ?? [];
  return fallbacks.length === 0 ? spec.apiKeyVariable : `${spec.apiKeyVariable} (or ${fallbacks.join(", ")})`;
}

/**
 * Ollama's OpenAI-compatible API lives under `/v1`: a URL without a path (`http://gpu-box:11434`) gets it;
 * one pointing at Ollama's native API (`/api`), which speaks another protocol, is refused with the URL to use.
 * Other paths are kept (a reverse proxy may serve Ollama under a prefix).
 */
function ollamaURL(baseURL: string | undefined, fail: (problem: string) => UsageError): string {
  if (baseURL === undefined) return ollamaBaseURL;
  let url: URL;
  try {
    url = new URL(baseURL);
  } catch {
    throw fail(`"${baseURL}" is not a URL`);
  }
  const path = url.pathname.replace(/\/+$/, "");
  if (/^\/api(\/|$)/.test(path))
    throw fail(
      `${url.protocol}//${url.host}${path} is Ollama's native API; minagent speaks its OpenAI-compatible API, under /v1: use ${url.protocol}//${url.host}/v1`,
    );
  if (path !== "") return baseURL;
  url.pathname = "/v1";
  return url.toString();
}

/** The variables the SDKs read their base URL from, honoured from the same environment (a proxy, a gateway, a test server). */
const baseURLVariables: Partial<Record<ModelProvider, string>> = {
  anthropic: "ANTHROPIC_BASE_URL",
  openai: "OPENAI_BASE_URL",
  "openai-chat": "OPENAI_BASE_URL",
  google: "GOOGLE_GEMINI_BASE_URL",
  vertex: "GOOGLE_VERTEX_BASE_URL",
};

/**
 * Creates the model a model string names, reading its API key from the environment (and a base URL from the
 * SDK's own variable, `ANTHROPIC_BASE_URL` / `OPENAI_BASE_URL`, when set). Provider SDKs are loaded only
 * here, on demand, so importing minagent stays free of them.
 * Throws a UsageError for an unknown string or a missing key (naming the variable to set).
 * @example const model = await resolveModel("anthropic:claude-sonnet-4-6");
 */
export async function resolveModel(spec: string, options: ResolveModelOptions = {}): Promise<Model> {
  const parsed = parseModelSpec(spec);
  const env = options.env ?? process.env;
  const apiKey = parsed.apiKeyRequired || parsed.baseURL !== undefined ? findApiKey(parsed, env) : undefined;
  if (parsed.apiKeyRequired && !apiKey)
    throw new UsageError(`Model "${spec}" needs an API key: set the ${describeApiKeyVariables(parsed)} environment variable.`);
  const common = {
    model: parsed.model,
    ...(apiKey && { apiKey }),
    ...(options.maxRetries !== undefined && { maxRetries: options.maxRetries }),
    ...(options.retry && { retry: options.retry }),
    ...(options.fetch && { fetch: options.fetch }),
    ...(options.timeoutMs !== undefined && { timeoutMs: options.timeoutMs }),
    ...(options.idleTimeoutMs !== undefined && { idleTimeoutMs: options.idleTimeoutMs }),
  };
  const variable = baseURLVariables[parsed.provider];
  const fromVariable = variable === undefined ? undefined : env[variable] || undefined;
  const baseURL = parsed.baseURL ?? fromVariable;
  // What set the URL, named if the connection fails: the model string's @<url>, Ollama's default, or the variable.
  const urlInSpec = withURL.test(spec.slice(spec.indexOf(":") + 1));
  const baseURLSource = urlInSpec ? `the model string "${spec}"` : parsed.provider === "ollama" ? "Ollama's default address" : variable;
  const location = { ...(baseURL && { baseURL, baseURLSource }) };
  switch (parsed.provider) {
    case "anthropic": {
      const { AnthropicModel } = await import("./anthropic/anthropic-model.js");
      return new AnthropicModel({ ...common, ...location, ...(options.thinking && { thinking: options.thinking }) });
    }
    case "google":
    case "vertex": {
      const { GoogleModel } = await import("./google/google-model.js");
      return new GoogleModel({
        ...common,
        ...location,
        ...(parsed.provider === "vertex" ? { vertex: vertexSettings(env) } : { vertex: false }),
      });
    }
    case "bedrock": {
      const { BedrockModel } = await import("./bedrock/bedrock-model.js");
      const { apiKey: _none, ...signed } = common;
      return new BedrockModel({ ...signed, ...bedrockSettings(env) });
    }
    case "openai": {
      const { OpenAIResponsesModel } = await import("./openai/responses/openai-responses-model.js");
      return new OpenAIResponsesModel({ ...common, ...location, provider: "openai" });
    }
    case "openai-chat": {
      const { OpenAIModel } = await import("./openai/openai-model.js");
      return new OpenAIModel({ ...common, ...location, provider: "openai" });
    }
    default: {
      const { OpenAIModel } = await import("./openai/openai-model.js");
      return new OpenAIModel({ ...common, ...location, provider: parsed.provider });
    }
  }
}

/** Vertex AI's project, location and credentials file from `env` (the SDK and google-auth-library would read process.env). */
function vertexSettings(env: Record<string, string | undefined>) {
  const keyFile = env.GOOGLE_APPLICATION_CREDENTIALS || undefined;
  return {
    ...(env.GOOGLE_CLOUD_PROJECT && { project: env.GOOGLE_CLOUD_PROJECT }),
    ...(env.GOOGLE_CLOUD_LOCATION && { location: env.GOOGLE_CLOUD_LOCATION }),
    ...(keyFile && { googleAuthOptions: { keyFile } }),
  };
}

/**
 * Bedrock's region, endpoint and keys from `env`, where they are set there: the AWS SDK's chain would read only
 * process.env (and, without them, the shared config files, SSO and the instance's role, which it still does).
 */
function bedrockSettings(env: Record<string, string | undefined>) {
  const region = env.AWS_REGION || env.AWS_DEFAULT_REGION || undefined;
  const endpointVariable = ["AWS_ENDPOINT_URL_BEDROCK_RUNTIME", "AWS_ENDPOINT_URL"].find((name) => env[name]);
  const { AWS_ACCESS_KEY_ID: accessKeyId, AWS_SECRET_ACCESS_KEY: secretAccessKey, AWS_SESSION_TOKEN: sessionToken } = env;
  return {
    ...(region && { region }),
    ...(endpointVariable && { endpoint: env[endpointVariable], endpointSource: endpointVariable }),
    ...(accessKeyId && secretAccessKey && { credentials: { accessKeyId, secretAccessKey, ...(sessionToken && { sessionToken }) } }),
  };
}
