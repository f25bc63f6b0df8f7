import { afterEach, beforeEach, describe, expect, test, vi } from "vitest";
import type { Message } from "../../../src/core/types.js";
import { OpenAIResponsesModel, type OpenAIResponsesModelOptions } from "../../../src/models/openai/index.js";
import { ProviderError } from "../../../src/models/provider-error.js";
import { formatServerSentEvents, startWireServer, type WireServer } from "../../../src/testing/wire-server.js";
import { fixtureJson, fixtureReply } from "../../helpers/provider-fixtures.js";
import { responsesOutput, responsesResponse, responsesStream } from "../../helpers/wire-bodies.js";

let server: WireServer;
beforeEach(async () => {
  server = await startWireServer({ keepCredentials: true });
});
afterEach(async () => {
  vi.unstubAllEnvs();
  await server.close();
});

function model(options: Partial<OpenAIResponsesModelOptions> = {}): OpenAIResponsesModel {
  return new OpenAIResponsesModel({
    model: "gpt-test",
    apiKey: "sk-test",
    baseURL: `${server.url}/v1`,
    provider: "openai",
    retry: { baseDelayMs: 1 },
    ...options,
  });
}
const user: Message[] = [{ role: "user", content: "hi" }];
const text = () => ({ json: responsesResponse(responsesOutput("ok", [])) });
const streaming = { onEvent: () => {} };

async function failure(promise: Promise<unknown>): Promise<ProviderError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(ProviderError);
  return error as ProviderError;
}

describe("OpenAIResponsesModel: errors are typed ProviderErrors", () => {
  test("400 for a reasoning item sent without its follower: invalid_request_error, not retried", async () => {
    server.reply(fixtureReply("openai-responses/error-400-reasoning-without-following-item.json"), text());
    const error = await failure(model().complete(user, []));
    expect(error).toMatchObject({ provider: "openai", kind: "api", status: 400, errorType: "invalid_request_error", retryable: false });
    expect(error.providerMessage).toMatch(/of type 'reasoning' was provided without its required following item/);
    expect(server.requests).toHaveLength(1);
  });

  test("429 insufficient_quota is not retryable (waiting does not refill a quota)", async () => {
    server.reply(fixtureReply("openai-responses/error-429-insufficient-quota.json", { status: 429 }), text());
    const error = await failure(model().complete(user, []));
    expect(error).toMatchObject({ status: 429, errorType: "insufficient_quota", retryable: false, attempts: 1 });
    expect(server.requests).toHaveLength(1);
  });

  test("an HTTP 400 on a streaming request is JSON, not a stream: its code, not retried", async () => {
    server.reply(fixtureReply("openai-responses/error-400-decimal-below-min-value.json"));
    const error = await failure(model({ temperature: -1 }).complete(user, [], streaming));
    expect(error).toMatchObject({ status: 400, errorType: "decimal_below_min_value", retryable: false });
    expect(server.requests[0]?.body).toMatchObject({ stream: true, temperature: -1 });
  });

  test("an error event inside an HTTP 200 stream (then response.failed): insufficient_quota, no status, not retried", async () => {
    server.reply(fixtureReply("openai-responses/stream-error-insufficient-quota.chunks.jsonl", { chunkSize: 50 }), text());
    const error = await failure(model().complete(user, [], streaming));
    expect(error).toMatchObject({ kind: "api", status: undefined, errorType: "insufficient_quota", retryable: false });
    expect(error.providerMessage).toMatch(/^You exceeded your current quota/);
    expect(server.requests).toHaveLength(1);
  });

  test("response.failed alone: a server_error is retried, an invalid prompt is not", async () => {
    const failed = (code: string) => ({
      sse: formatServerSentEvents([
        {
          event: "response.failed",
          data: JSON.stringify({
            type: "response.failed",
            response: { status: "failed", output: [], error: { code, message: `failed: ${code}` } },
          }),
        },
      ]),
    });
    server.reply(failed("server_error"), { sse: responsesStream(responsesResponse(responsesOutput("recovered", []))) });
    expect((await model().complete(user, [], streaming)).message.content).toBe("recovered");
    expect(server.requests).toHaveLength(2);

    server.reply(failed("invalid_prompt"), text());
    const error = await failure(model().complete(user, [], streaming));
    expect(error).toMatchObject({ errorType: "invalid_prompt", providerMessage: "failed: invalid_prompt", retryable: false });
    expect(server.requests).toHaveLength(3);
  });

  test("a response received whole with status failed is its error; a body without output is malformed", async () => {
    server.reply({ json: { status: "failed", output: [], error: { code: "server_error", message: "boom" } } }, { json: { id: "resp_1" } });
    expect(await failure(model({ maxRetries: 0 }).complete(user, []))).toMatchObject({ errorType: "server_error", retryable: true });
    expect(await failure(model({ maxRetries: 0 }).complete(user, []))).toMatchObject({ kind: "malformed_response", retryable: false });
  });
});

describe("OpenAIResponsesModel: options", () => {
  test("maxTokens, temperature, reasoning, toolChoice and responseFormat map to the Responses fields", async () => {
    server.reply(text());
    const openai = model({ maxTokens: 300, temperature: 0.2, reasoning: { effort: "low", summary: "detailed" } });
    expect(openai.supportsResponseFormat).toBe(true);
    const tools = [{ name: "lookup", description: "Looks up", parameters: { type: "object" } }];
    const schema = { type: "object", properties: { answer: { type: "string" } }, required: ["answer"] };
    await openai.complete(user, tools, { toolChoice: { name: "lookup" }, responseFormat: { name: "answer", schema } });
    expect(server.requests[0]?.body).toEqual({
      model: "gpt-test",
      input: [{ role: "user", content: "hi" }],
      store: false,
      tools: [{ type: "function", name: "lookup", description: "Looks up", parameters: { type: "object" }, strict: false }],
      tool_choice: { type: "function", name: "lookup" },
      max_output_tokens: 300,
      temperature: 0.2,
      reasoning: { effort: "low", summary: "detailed" },
      include: ["reasoning.encrypted_content"],
      text: { format: { type: "json_schema", name: "answer", schema, strict: false } },
    });
  });

  test("store: true is sent, and the encrypted reasoning is not asked for (the server keeps it); no tools, no tool_choice", async () => {
    server.reply(text());
    await model({ store: true, reasoning: { effort: "low" } }).complete(user, [], { toolChoice: "required" });
    expect(server.requests[0]?.body).toEqual({ model: "gpt-test", input: user, store: true, reasoning: { effort: "low" } });
  });

  test("the key: OPENAI_API_KEY only for OpenAI itself; with a baseURL the given key or none", async () => {
    vi.stubEnv("OPENAI_API_KEY", "sk-from-env");
    server.reply(text(), text());
    await model({ apiKey: undefined }).complete(user, []);
    expect(server.requests[0]?.headers.authorization).toBeUndefined();
    await model({ apiKey: "sk-server" }).complete(user, []);
    expect(server.requests[1]?.headers.authorization).toBe("Bearer sk-server");
    vi.stubEnv("OPENAI_API_KEY", "");
    expect(() => new OpenAIResponsesModel({ model: "gpt-5" })).toThrow(/needs an API key: set the OPENAI_API_KEY/);
    expect(() => new OpenAIResponsesModel({ model: "", apiKey: "k" })).toThrow(/needs a model id/);
  });

  test("the default provider names the server: openai, or openai-compatible with a baseURL", () => {
    expect(new OpenAIResponsesModel({ model: "gpt-5", apiKey: "k" }).provider).toBe("openai");
    expect(new OpenAIResponsesModel({ model: "m", baseURL: `${server.url}/v1` }).provider).toBe("openai-compatible");
  });

  test("usage reports cached input tokens and reasoning tokens", async () => {
    const recorded = fixtureJson<Record<string, unknown>>("openai-responses/responses-text.json");
    server.reply({
      json: {
        ...recorded,
        usage: {
          input_tokens: 2000,
          input_tokens_details: { cached_tokens: 1536 },
          output_tokens: 300,
          output_tokens_details: { reasoning_tokens: 256 },
        },
      },
    });
    expect((await model().complete(user, [])).usage).toEqual({
      inputTokens: 2000,
      outputTokens: 300,
      cacheReadTokens: 1536,
      reasoningTokens: 256,
    });
  });
});
