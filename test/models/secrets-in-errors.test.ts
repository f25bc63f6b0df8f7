import { inspect } from "node:util";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import type { Message, ModelStreamEvent } from "../../src/core/types.js";
import { AnthropicModel } from "../../src/models/anthropic/index.js";
import { BedrockModel } from "../../src/models/bedrock/index.js";
import { GoogleModel } from "../../src/models/google/index.js";
import { OpenAIModel, OpenAIResponsesModel } from "../../src/models/openai/index.js";
import { ProviderError } from "../../src/models/provider-error.js";
import type { RetryEvent } from "../../src/models/with-retry.js";
import { formatServerSentEvents, startWireServer, type WireResponse, type WireServer } from "../../src/testing/wire-server.js";

// Some servers echo the key in an error body ("invalid key abc…"). The key below has no recognisable
// shape (no sk- prefix), so only the adapter's knowledge of its own key can remove it.
const apiKey = "proxy-7f3a9c2e41d84b0c-credential";

let server: WireServer;
beforeEach(async () => {
  server = await startWireServer();
});
afterEach(() => server.close());

const user: Message[] = [{ role: "user", content: "hi" }];

const adapters = [
  {
    name: "anthropic",
    model: (retries: RetryEvent[] = []) =>
      new AnthropicModel({
        model: "claude-test",
        apiKey,
        baseURL: server.url,
        retry: { baseDelayMs: 1, onRetry: (retry) => retries.push(retry) },
      }),
    echo: (status: number): WireResponse => ({
      status,
      json: {
        type: "error",
        error: { type: status === 401 ? "authentication_error" : "api_error", message: `the credential ${apiKey} is not valid` },
      },
    }),
  },
  {
    name: "openai",
    model: (retries: RetryEvent[] = []) =>
      new OpenAIModel({
        model: "gpt-test",
        apiKey,
        baseURL: `${server.url}/v1`,
        retry: { baseDelayMs: 1, onRetry: (retry) => retries.push(retry) },
      }),
    echo: (status: number): WireResponse => ({
      status,
      json: {
        error: {
          message: `Incorrect API key provided: ${apiKey}. Bearer ${apiKey}`,
          type: "invalid_request_error",
          code: "invalid_api_key",
        },
      },
    }),
  },
  {
    name: "google",
    model: (retries: RetryEvent[] = []) =>
      new GoogleModel({
        model: "gemini-test",
        apiKey,
        baseURL: server.url,
        retry: { baseDelayMs: 1, onRetry: (retry) => retries.push(retry) },
      }),
    echo: (status: number): WireResponse => ({
      status,
      json: {
        error: {
          code: status,
          message: `API key not valid: ${apiKey}. Please pass a valid API key.`,
          status: status === 401 ? "UNAUTHENTICATED" : "INTERNAL",
        },
      },
    }),
  },
  {
    name: "openai-responses",
    model: (retries: RetryEvent[] = []) =>
      new OpenAIResponsesModel({
        model: "gpt-test",
        apiKey,
        baseURL: `${server.url}/v1`,
        retry: { baseDelayMs: 1, onRetry: (retry) => retries.push(retry) },
      }),
    echo: (status: number): WireResponse => ({
      status,
      json: {
        error: { message: `Incorrect API key provided: ${apiKey}.`, type: "invalid_request_error", param: null, code: "invalid_api_key" },
      },
    }),
  },
  {
    // Bedrock has no API key: its secret is the AWS secret access key the requests are signed with.
    name: "bedrock",
    model: (retries: RetryEvent[] = []) =>
      new BedrockModel({
        model: "amazon.nova-micro-v1:0",
        region: "us-east-1",
        endpoint: server.url,
        credentials: { accessKeyId: "AKIDTEST", secretAccessKey: apiKey },
        retry: { baseDelayMs: 1, onRetry: (retry) => retries.push(retry) },
      }),
    echo: (status: number): WireResponse => ({
      status,
      headers: { "x-amzn-errortype": status === 401 ? "UnrecognizedClientException" : "InternalServerException" },
      json: { message: `The security token included in the request is invalid: ${apiKey}` },
    }),
  },
];

function everythingShown(error: unknown): string {
  const provider = error as ProviderError;
  return [
    provider.message,
    provider.providerMessage,
    String(error),
    inspect(error, { depth: 20, showHidden: true }),
    JSON.stringify(error),
    String(provider.stack),
    inspect(provider.cause, { depth: 20, showHidden: true }),
  ].join("\n");
}

describe.each(adapters)("$name: an error body that echoes the API key", (adapter) => {
  test("a 401 keeps the provider's words but not the key: message, providerMessage, String, inspect, cause", async () => {
    server.reply(adapter.echo(401));
    const error = await adapter
      .model()
      .complete(user, [])
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).status).toBe(401);
    expect((error as ProviderError).providerMessage).toMatch(/\[redacted\]/);
    expect(everythingShown(error)).not.toContain(apiKey);
    expect(everythingShown(error)).not.toContain("7f3a9c2e");
  });

  test("retries report the failure without the key: onRetry and the model-call-retry event", async () => {
    server.reply(adapter.echo(500), adapter.echo(500), adapter.echo(500));
    const retries: RetryEvent[] = [];
    const events: ModelStreamEvent[] = [];
    const error = await adapter
      .model(retries)
      .complete(user, [], { onEvent: (event) => events.push(event) })
      .catch((caught: unknown) => caught);
    expect(retries).toHaveLength(2);
    expect(events.filter((event) => event.type === "model-call-retry")).toHaveLength(2);
    const shown = [
      ...retries.map((retry) => `${retry.error.message} ${retry.error.providerMessage} ${inspect(retry.error, { depth: 20 })}`),
      JSON.stringify(events),
      everythingShown(error),
    ].join("\n");
    expect(shown).not.toContain(apiKey);
  });
});

test("anthropic: an error event inside a stream that echoes the key", async () => {
  const event = { type: "error", error: { type: "invalid_request_error", message: `key ${apiKey} is not allowed here` } };
  server.reply({ sse: formatServerSentEvents([{ event: "error", data: JSON.stringify(event) }]) });
  const error = await adapter0()
    .complete(user, [], { onEvent: () => {} })
    .catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(ProviderError);
  expect(everythingShown(error)).not.toContain(apiKey);
});

function adapter0() {
  return adapters[0]?.model() as AnthropicModel;
}
