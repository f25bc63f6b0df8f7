import { afterEach, beforeEach, describe, expect, test } from "vitest";
import type { Message, Model } from "../../src/core/types.js";
import { AnthropicModel, type AnthropicModelOptions } from "../../src/models/anthropic/index.js";
import { OpenAIModel } from "../../src/models/openai/index.js";
import { ProviderError } from "../../src/models/provider-error.js";
import { resolveModel } from "../../src/models/resolve-model.js";
import { type RetryEvent, withRetry } from "../../src/models/with-retry.js";
import { withTokenCounting } from "../../src/testing/count-tokens.js";
import { RecordingModel } from "../../src/testing/recording-model.js";
import { startWireServer, type WireResponse, type WireServer } from "../../src/testing/wire-server.js";

// One retry implementation, composed: however a model is built, a run of retryable failures sends at most
// maxRetries + 1 requests per call, maxRetries being the outermost policy's (never inner × outer).

let server: WireServer;
beforeEach(async () => {
  server = await startWireServer();
});
afterEach(() => server.close());

const overloaded: WireResponse = { status: 529, json: { type: "error", error: { type: "overloaded_error", message: "Overloaded" } } };
const unavailable: WireResponse = { status: 503, json: { error: { message: "Service Unavailable", type: "server_error" } } };
const messages: Message[] = [{ role: "user", content: "hi" }];
const fast = { baseDelayMs: 1 };

/** The server answers every request with `response` (more than any policy here allows). */
function alwaysAnswer(response: WireResponse): void {
  server.reply(...Array.from({ length: 50 }, () => response));
}

function anthropic(options: Partial<AnthropicModelOptions> = {}): AnthropicModel {
  return new AnthropicModel({ model: "claude-test", apiKey: "sk-ant-test", baseURL: server.url, retry: fast, ...options });
}

/** Calls the model once; returns the error it gave up with and how many requests reached the server. */
async function failedCall(model: Model): Promise<{ requests: number; error: ProviderError }> {
  const error = await model.complete(messages, []).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(ProviderError);
  return { requests: server.requests.length, error: error as ProviderError };
}

describe("retries do not multiply: a run of 529s sends at most maxRetries + 1 requests", () => {
  test("resolveModel: the default policy, 2 retries → 3 requests", async () => {
    alwaysAnswer(overloaded);
    const model = await resolveModel("anthropic:claude-test", {
      env: { ANTHROPIC_API_KEY: "sk-ant-test", ANTHROPIC_BASE_URL: server.url },
      retry: fast,
    });
    const { requests, error } = await failedCall(model);
    expect(requests).toBe(3);
    expect(error).toMatchObject({ status: 529, attempts: 3 });
  });

  test("the adapter's own maxRetries: 4 → 5 requests", async () => {
    alwaysAnswer(overloaded);
    const { requests, error } = await failedCall(anthropic({ maxRetries: 4 }));
    expect(requests).toBe(5);
    expect(error.attempts).toBe(5);
  });

  test("withRetry around an adapter replaces the adapter's policy: (maxRetries 2) wrapped in { maxRetries: 1 } → 2 requests, not 6", async () => {
    alwaysAnswer(overloaded);
    const retries: RetryEvent[] = [];
    const model = withRetry(anthropic({ maxRetries: 2 }), { maxRetries: 1, ...fast, onRetry: (retry) => retries.push(retry) });
    const { requests, error } = await failedCall(model);
    expect(requests).toBe(2);
    expect(error.attempts).toBe(2);
    expect(retries.map((retry) => retry.attempt)).toEqual([1]);
  });

  test("withRetry with a larger budget than the adapter's also governs: (maxRetries 0) wrapped in { maxRetries: 3 } → 4 requests", async () => {
    alwaysAnswer(overloaded);
    expect((await failedCall(withRetry(anthropic({ maxRetries: 0 }), { maxRetries: 3, ...fast }))).requests).toBe(4);
  });

  test("nested withRetry: the outer policy alone decides", async () => {
    alwaysAnswer(overloaded);
    expect((await failedCall(withRetry(withRetry(anthropic(), { maxRetries: 3, ...fast }), { maxRetries: 1, ...fast }))).requests).toBe(2);
    const before = server.requests.length;
    const inner = withRetry(anthropic({ maxRetries: 5 }), { maxRetries: 0, ...fast });
    const { requests, error } = await failedCall(withRetry(inner, { maxRetries: 2, ...fast }));
    expect(requests - before).toBe(3);
    expect(error.attempts).toBe(3);
  });

  test("wrappers in between (recording, token counting) pass the outer policy through", async () => {
    alwaysAnswer(overloaded);
    const recording = new RecordingModel(anthropic({ maxRetries: 2 }));
    const model = withRetry(
      withTokenCounting(recording, (text) => text.length),
      { maxRetries: 1, ...fast },
    );
    expect((await failedCall(model)).requests).toBe(2);
    expect(recording.cassette.interactions).toHaveLength(2); // one per attempt, each recorded as it ended
  });

  test("OpenAI: 503s, the same rules", async () => {
    alwaysAnswer(unavailable);
    const openai = (maxRetries: number) =>
      new OpenAIModel({ model: "gpt-test", apiKey: "sk-test", baseURL: `${server.url}/v1`, maxRetries, retry: fast });
    expect((await failedCall(openai(4))).requests).toBe(5);
    expect((await failedCall(withRetry(openai(2), { maxRetries: 1, ...fast }))).requests).toBe(5 + 2);
    expect((await failedCall(withRetry(withRetry(openai(2), { maxRetries: 2, ...fast }), { maxRetries: 0 }))).requests).toBe(7 + 1);
  });

  test("a call that succeeds after failures still answers, within the outer budget", async () => {
    server.reply(overloaded, { json: { content: [{ type: "text", text: "Hello" }], stop_reason: "end_turn" } });
    const response = await withRetry(anthropic({ maxRetries: 0 }), { maxRetries: 1, ...fast }).complete(messages, []);
    expect(response.message.content).toBe("Hello");
    expect(server.requests).toHaveLength(2);
  });
});
