import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test, vi } from "vitest";
import type { Message, ModelCallOptions, ToolSchema } from "../../src/core/types.js";
import { AnthropicModel, type AnthropicModelOptions } from "../../src/models/anthropic/index.js";
import { BedrockModel, type BedrockModelOptions } from "../../src/models/bedrock/index.js";
import { createToolCall } from "../../src/models/create-tool-call.js";
import { FakeModel } from "../../src/models/fake-model.js";
import {
  convertGoogleResponse,
  type GoogleConversionContext,
  GoogleModel,
  type GoogleModelOptions,
  type GoogleThinkingConfig,
  type GoogleVertexOptions,
} from "../../src/models/google/index.js";
import {
  convertOpenAIResponse,
  convertToOpenAIMessages,
  type OpenAIConversionContext,
  type OpenAIMessageConversionOptions,
  OpenAIModel,
  type OpenAIModelOptions,
  OpenAIResponsesModel,
  type OpenAIResponsesModelOptions,
} from "../../src/models/openai/index.js";
import { ProviderError, type ProviderErrorDetails } from "../../src/models/provider-error.js";
import { type ResolveModelOptions, resolveModel } from "../../src/models/resolve-model.js";
import { type RetryOptions, resolveRetryOptions, withRetry } from "../../src/models/with-retry.js";
import {
  type CassetteModelOptions,
  cassetteModel,
  formatServerSentEvents,
  RecordingModel,
  type RecordingModelOptions,
  ReplayModel,
  type ReplayModelOptions,
  type RequestMatchOptions,
  reply,
  startWireServer,
  type WireResponse,
  type WireServer,
  type WireServerOptions,
} from "../../src/testing/index.js";
import { temporaryFolder } from "../helpers/temporary-folder.js";

// Under exactOptionalPropertyTypes an option written `field?: T` refuses `{ field: undefined }`, so
// `new AnthropicModel({ model, apiKey: process.env.KEY })` would not compile. Every options type below is
// built with each of its optional fields set to undefined: `tsc -p tsconfig.check.json` compiles this file,
// so a field missing its `| undefined` fails the check. At runtime, undefined must mean "the default".

/** Every optional field of T, each set to undefined: the compiler makes the test list them all. */
type EveryOptionalUndefined<T> = { [K in keyof T as Pick<T, K> extends Required<Pick<T, K>> ? never : K]-?: undefined };

const retryUndefined: EveryOptionalUndefined<RetryOptions> = {
  maxRetries: undefined,
  baseDelayMs: undefined,
  maxDelayMs: undefined,
  onRetry: undefined,
};
const anthropicUndefined: EveryOptionalUndefined<AnthropicModelOptions> = {
  apiKey: undefined,
  baseURL: undefined,
  maxTokens: undefined,
  thinking: undefined,
  serverTools: undefined,
  temperature: undefined,
  stopSequences: undefined,
  maxRetries: undefined,
  retry: undefined,
  timeoutMs: undefined,
  idleTimeoutMs: undefined,
  headers: undefined,
  fetch: undefined,
  baseURLSource: undefined,
  structuredOutput: undefined,
};
const openaiUndefined: EveryOptionalUndefined<OpenAIModelOptions> = {
  apiKey: undefined,
  baseURL: undefined,
  provider: undefined,
  maxTokens: undefined,
  temperature: undefined,
  stopSequences: undefined,
  sendReasoning: undefined,
  streamUsage: undefined,
  maxRetries: undefined,
  retry: undefined,
  timeoutMs: undefined,
  idleTimeoutMs: undefined,
  headers: undefined,
  fetch: undefined,
  baseURLSource: undefined,
  structuredOutput: undefined,
};
const bedrockUndefined: EveryOptionalUndefined<BedrockModelOptions> = {
  region: undefined,
  endpoint: undefined,
  endpointSource: undefined,
  credentials: undefined,
  maxTokens: undefined,
  temperature: undefined,
  topP: undefined,
  stopSequences: undefined,
  additionalModelRequestFields: undefined,
  nativeResponseFormat: undefined,
  maxRetries: undefined,
  retry: undefined,
  timeoutMs: undefined,
  idleTimeoutMs: undefined,
  headers: undefined,
};
const googleUndefined: EveryOptionalUndefined<GoogleModelOptions> = {
  apiKey: undefined,
  baseURL: undefined,
  vertex: undefined,
  apiVersion: undefined,
  maxTokens: undefined,
  thinkingConfig: undefined,
  temperature: undefined,
  stopSequences: undefined,
  safetySettings: undefined,
  maxRetries: undefined,
  retry: undefined,
  timeoutMs: undefined,
  idleTimeoutMs: undefined,
  headers: undefined,
  fetch: undefined,
  baseURLSource: undefined,
};
const responsesUndefined: EveryOptionalUndefined<OpenAIResponsesModelOptions> = {
  apiKey: undefined,
  baseURL: undefined,
  provider: undefined,
  maxTokens: undefined,
  temperature: undefined,
  reasoning: undefined,
  includeReasoning: undefined,
  store: undefined,
  maxRetries: undefined,
  retry: undefined,
  timeoutMs: undefined,
  idleTimeoutMs: undefined,
  headers: undefined,
  fetch: undefined,
  baseURLSource: undefined,
};
const googleThinkingUndefined: EveryOptionalUndefined<GoogleThinkingConfig> = {
  thinkingBudget: undefined,
  thinkingLevel: undefined,
  includeThoughts: undefined,
};
const googleVertexUndefined: EveryOptionalUndefined<GoogleVertexOptions> = {
  project: undefined,
  location: undefined,
  googleAuthOptions: undefined,
};
const googleContextUndefined: EveryOptionalUndefined<GoogleConversionContext> = { usedIds: undefined, callIds: undefined };
const resolveUndefined: EveryOptionalUndefined<ResolveModelOptions> = {
  env: undefined,
  maxRetries: undefined,
  retry: undefined,
  fetch: undefined,
  timeoutMs: undefined,
  idleTimeoutMs: undefined,
  thinking: undefined,
};
const callUndefined: EveryOptionalUndefined<ModelCallOptions> = {
  signal: undefined,
  onEvent: undefined,
  toolChoice: undefined,
  responseFormat: undefined,
};
const recordingUndefined: EveryOptionalUndefined<RecordingModelOptions> = { path: undefined, secrets: undefined, secretKeys: undefined };
const replayUndefined: EveryOptionalUndefined<ReplayModelOptions> = { match: undefined, secrets: undefined, secretKeys: undefined };
const matchUndefined: EveryOptionalUndefined<RequestMatchOptions> = {
  systemPrompt: undefined,
  messages: undefined,
  tools: undefined,
  toolChoice: undefined,
};
const cassetteUndefined: EveryOptionalUndefined<CassetteModelOptions> = {
  mode: undefined,
  match: undefined,
  secrets: undefined,
  secretKeys: undefined,
};
const wireServerUndefined: EveryOptionalUndefined<WireServerOptions> = { keepCredentials: undefined };
const detailsUndefined: EveryOptionalUndefined<ProviderErrorDetails> = {
  kind: undefined,
  status: undefined,
  errorType: undefined,
  retryAfterMs: undefined,
  requestId: undefined,
  attempts: undefined,
};
const conversionUndefined: EveryOptionalUndefined<OpenAIMessageConversionOptions> = { reasoningProvider: undefined };
const contextUndefined: EveryOptionalUndefined<OpenAIConversionContext> = { usedIds: undefined };

const messages: Message[] = [{ role: "user", content: "hi" }];
const tools: ToolSchema[] = [{ name: "weather", description: "Weather", parameters: { type: "object" } }];
const anthropicText = { json: { content: [{ type: "text", text: "Hello" }], stop_reason: "end_turn" } };
const openaiText = { json: { choices: [{ index: 0, message: { role: "assistant", content: "Hello" }, finish_reason: "stop" }] } };
/** A 529 that asks for no wait, so the default retry budget is spent at once. */
const overloadedNow: WireResponse = {
  status: 529,
  headers: { "retry-after-ms": "0" },
  json: { type: "error", error: { type: "overloaded_error", message: "Overloaded" } },
};

let server: WireServer;
beforeEach(async () => {
  server = await startWireServer(wireServerUndefined);
});
afterEach(async () => {
  vi.unstubAllEnvs();
  await server.close();
});

describe("explicit undefined options mean the defaults", () => {
  test("AnthropicModelOptions: the key and base URL from the environment, max_tokens 4096, nothing else sent, 2 retries", async () => {
    vi.stubEnv("ANTHROPIC_API_KEY", "sk-ant-from-env");
    vi.stubEnv("ANTHROPIC_BASE_URL", server.url);
    const model = new AnthropicModel({ model: "claude-test", ...anthropicUndefined });
    server.reply(anthropicText);
    expect((await model.complete(messages, tools, callUndefined)).message.content).toBe("Hello");
    expect(server.requests[0]?.body).toEqual({
      model: "claude-test",
      max_tokens: 4096,
      messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }],
      tools: [{ name: "weather", description: "Weather", input_schema: { type: "object" } }],
    });
    expect(server.requests[0]?.headers.authorization).toBe("<redacted>"); // keepCredentials: undefined → redacted

    server.reply(overloadedNow, overloadedNow, overloadedNow, anthropicText);
    await expect(model.complete(messages, [])).rejects.toMatchObject({ status: 529, attempts: 3 });
    expect(server.requests).toHaveLength(1 + 3);
  });

  test("OpenAIModelOptions: OpenAI itself (key and base URL from the environment), only model and messages, usage asked of streams", async () => {
    vi.stubEnv("OPENAI_API_KEY", "sk-from-env");
    vi.stubEnv("OPENAI_BASE_URL", `${server.url}/v1`);
    const model = new OpenAIModel({ model: "gpt-test", ...openaiUndefined });
    expect(model.provider).toBe("openai");
    server.reply(openaiText, { sse: formatServerSentEvents([{ data: JSON.stringify(openaiText.json) }], { done: true }) });
    await model.complete(messages, [], callUndefined);
    expect(server.requests[0]?.body).toEqual({ model: "gpt-test", messages: [{ role: "user", content: "hi" }] });
    await model.complete(messages, [], { onEvent: () => {} });
    expect(server.requests[1]?.body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
  });

  test("BedrockModelOptions: region, credentials and endpoint from the AWS environment, only the messages sent, 2 retries", async () => {
    // The SDK's own defaults, from the environment alone: no ~/.aws file is read.
    vi.stubEnv("AWS_CONFIG_FILE", join(temporaryFolder("minagent-aws-"), "none"));
    vi.stubEnv("AWS_SHARED_CREDENTIALS_FILE", join(temporaryFolder("minagent-aws-"), "none"));
    vi.stubEnv("AWS_PROFILE", "");
    vi.stubEnv("AWS_REGION", "eu-west-3");
    vi.stubEnv("AWS_ACCESS_KEY_ID", "AKIDFROMENVIRONMENT");
    vi.stubEnv("AWS_SECRET_ACCESS_KEY", "secret-from-environment");
    vi.stubEnv("AWS_ENDPOINT_URL_BEDROCK_RUNTIME", server.url);
    const model = new BedrockModel({ model: "amazon.nova-micro-v1:0", ...bedrockUndefined });
    expect(model.supportsResponseFormat).toBeUndefined();
    const text = { json: { output: { message: { role: "assistant", content: [{ text: "Hello" }] } }, stopReason: "end_turn" } };
    server.reply(text);
    expect((await model.complete(messages, [], callUndefined)).message.content).toBe("Hello");
    expect(server.requests[0]?.path).toBe("/model/amazon.nova-micro-v1%3A0/converse");
    expect(server.requests[0]?.body).toEqual({ messages: [{ role: "user", content: [{ text: "hi" }] }] });
    expect(server.requests[0]?.headers["x-amz-date"]).toMatch(/^\d{8}T\d{6}Z$/); // SigV4-signed: the chain found the keys
    expect(server.requests[0]?.headers.authorization).toBe("<redacted>");
    const throttled: WireResponse = { status: 429, headers: { "x-amzn-errortype": "ThrottlingException" }, json: { message: "slow down" } };
    server.reply(throttled, throttled, throttled);
    await expect(model.complete(messages, [])).rejects.toMatchObject({ status: 429, attempts: 3 });
    expect(server.requests).toHaveLength(1 + 3);
  });

  test("GoogleModelOptions: the Gemini API, the key and base URL from the environment, nothing sent but the contents, 2 retries", async () => {
    vi.stubEnv("GOOGLE_API_KEY", "");
    vi.stubEnv("GOOGLE_GENAI_USE_VERTEXAI", "");
    vi.stubEnv("GEMINI_API_KEY", "gemini-from-env");
    vi.stubEnv("GOOGLE_GEMINI_BASE_URL", server.url);
    const model = new GoogleModel({ model: "gemini-test", ...googleUndefined, thinkingConfig: googleThinkingUndefined });
    const geminiText = { json: { candidates: [{ content: { role: "model", parts: [{ text: "Hello" }] }, finishReason: "STOP" }] } };
    server.reply(geminiText);
    expect((await model.complete(messages, [], callUndefined)).message.content).toBe("Hello");
    expect(server.requests[0]?.path).toBe("/v1/models/gemini-test:generateContent");
    expect(server.requests[0]?.body).toEqual({ contents: [{ role: "user", parts: [{ text: "hi" }] }], generationConfig: {} });
    expect(server.requests[0]?.headers["x-goog-api-key"]).toBe("<redacted>"); // keepCredentials: undefined → redacted
    const unavailable: WireResponse = { status: 503, json: { error: { code: 503, message: "Overloaded", status: "UNAVAILABLE" } } };
    server.reply(unavailable, unavailable, unavailable);
    await expect(
      new GoogleModel({ model: "gemini-test", ...googleUndefined, retry: { baseDelayMs: 1 } }).complete(messages, []),
    ).rejects.toMatchObject({ status: 503, attempts: 3 });
    expect(server.requests).toHaveLength(1 + 3);
    expect(() => new GoogleModel({ model: "gemini-test", vertex: googleVertexUndefined })).toThrow(
      /needs a project: set the GOOGLE_CLOUD_PROJECT/,
    );
    const call = { functionCall: { name: "t", args: {} } };
    const response = convertGoogleResponse({ candidates: [{ content: { parts: [call] } }] }, googleContextUndefined);
    expect(response.message.toolCalls?.[0]?.id).toMatch(/^call_/);
  });

  test("OpenAIResponsesModelOptions: OpenAI itself (key and base URL from the environment), model, input and store: false only", async () => {
    vi.stubEnv("OPENAI_API_KEY", "sk-from-env");
    vi.stubEnv("OPENAI_BASE_URL", `${server.url}/v1`);
    const model = new OpenAIResponsesModel({ model: "gpt-test", ...responsesUndefined });
    expect(model.provider).toBe("openai");
    const output = [{ type: "message", role: "assistant", content: [{ type: "output_text", text: "Hello" }] }];
    server.reply({ json: { status: "completed", output } });
    expect((await model.complete(messages, [], callUndefined)).message.content).toBe("Hello");
    expect(server.requests[0]?.body).toEqual({ model: "gpt-test", input: [{ role: "user", content: "hi" }], store: false });
    expect(server.requests[0]?.path).toBe("/v1/responses");
  });

  test("RetryOptions: the documented defaults, no onRetry", () => {
    expect(resolveRetryOptions(retryUndefined)).toStrictEqual({ maxRetries: 2, baseDelayMs: 500, maxDelayMs: 60_000 });
    expect(() => withRetry(new FakeModel([]), retryUndefined)).not.toThrow();
  });

  test("ResolveModelOptions: process.env, the default retries", async () => {
    vi.stubEnv("ANTHROPIC_API_KEY", "sk-ant-from-env");
    vi.stubEnv("ANTHROPIC_BASE_URL", server.url);
    const model = await resolveModel("anthropic:claude-test", resolveUndefined);
    server.reply(overloadedNow, overloadedNow, overloadedNow);
    await expect(model.complete(messages, [])).rejects.toMatchObject({ attempts: 3 });
    expect(server.requests).toHaveLength(3);
  });

  test("ModelCallOptions on a FakeModel: nothing recorded but the messages and tools", async () => {
    const fake = new FakeModel(["ok"]);
    await fake.complete(messages, tools, callUndefined);
    expect(fake.requests[0]).toStrictEqual({ messages, tools });
  });

  test("RecordingModelOptions, ReplayModelOptions, RequestMatchOptions, CassetteModelOptions: record, replay, full matching", async () => {
    const recorder = new RecordingModel(new FakeModel([reply("Hello")]), recordingUndefined);
    await recorder.complete(messages, tools);
    expect(() => recorder.save()).toThrow(/needs a path/);

    for (const options of [replayUndefined, { ...replayUndefined, match: matchUndefined }]) {
      const replay = new ReplayModel(recorder.cassette, options);
      await expect(replay.complete([{ role: "user", content: "changed" }], tools)).rejects.toThrow(/does not match/);
    }
    const replay = new ReplayModel(recorder.cassette, { ...replayUndefined, match: matchUndefined });
    await expect(replay.complete(messages, tools, { toolChoice: "required" })).rejects.toThrow(/toolChoice/);
    expect((await new ReplayModel(recorder.cassette, replayUndefined).complete(messages, tools)).message.content).toBe("Hello");

    const path = join(temporaryFolder("minagent-undefined-"), "cassette.json");
    expect(cassetteModel(path, () => new FakeModel(["ok"]), cassetteUndefined)).toBeInstanceOf(RecordingModel); // mode "auto", no file yet
  });

  test("WireResponse and formatServerSentEvents: status 200, the whole body at once", async () => {
    server.reply(
      { json: { ok: true }, status: undefined, headers: undefined, dropAfterBytes: undefined, stallAfterBytes: undefined },
      { sse: "data: 1\n\n", chunkSize: undefined, chunkDelayMs: undefined, dropAfterBytes: undefined, stallAfterBytes: undefined },
      {
        bytes: new Uint8Array([0, 1, 255]),
        chunkSize: undefined,
        chunkDelayMs: undefined,
        dropAfterBytes: undefined,
        stallAfterBytes: undefined,
      },
    );
    const json = await fetch(server.url);
    expect([json.status, await json.json()]).toEqual([200, { ok: true }]);
    expect(await (await fetch(server.url)).text()).toBe("data: 1\n\n");
    const binary = await fetch(server.url);
    expect([binary.headers.get("content-type"), [...new Uint8Array(await binary.arrayBuffer())]]).toEqual([
      "application/octet-stream",
      [0, 1, 255],
    ]);
    expect(formatServerSentEvents([{ event: undefined, data: "x" }], { done: undefined })).toBe("data: x\n\n");
  });

  test("ProviderErrorDetails, createToolCall, the OpenAI conversions", () => {
    expect(new ProviderError({ provider: "p", providerMessage: "m", retryable: true, ...detailsUndefined }).attempts).toBe(1);
    expect(createToolCall("id", "t", "{oops", { truncated: undefined }).argumentsError).toMatch(/not valid JSON/);
    const reasoning: Message = { role: "assistant", content: "a", reasoning: [{ text: "r", provider: "deepseek" }] };
    expect(convertToOpenAIMessages([reasoning], conversionUndefined)).toEqual([{ role: "assistant", content: "a" }]);
    const call = { id: "call_1", type: "function", function: { name: "t", arguments: "{}" } };
    const response = { choices: [{ message: { role: "assistant", content: null, tool_calls: [call] }, finish_reason: "tool_calls" }] };
    expect(convertOpenAIResponse(response, { provider: "openai", ...contextUndefined }).message.toolCalls?.[0]?.id).toBe("call_1");
  });
});
