import { inspect } from "node:util";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { Agent } from "../../../src/core/agent.js";
import type { Message, ModelStreamEvent } from "../../../src/core/types.js";
import { AbortError } from "../../../src/errors.js";
import { AnthropicModel, type AnthropicModelOptions } from "../../../src/models/anthropic/index.js";
import { ProviderError } from "../../../src/models/provider-error.js";
import type { RetryEvent } from "../../../src/models/with-retry.js";
import { formatServerSentEvents, startWireServer, type WireServer } from "../../../src/testing/wire-server.js";
import { ToolRegistry } from "../../../src/tools/tool-registry.js";
import { fixtureReply, fixtureText } from "../../helpers/provider-fixtures.js";

const apiKey = "sk-ant-api03-SECRET-test-key-0123456789";
let server: WireServer;
beforeEach(async () => {
  server = await startWireServer();
});
afterEach(() => server.close());

function model(options: Partial<AnthropicModelOptions> = {}): AnthropicModel {
  return new AnthropicModel({ model: "claude-test", apiKey, baseURL: server.url, retry: { baseDelayMs: 1 }, ...options });
}
const user: Message[] = [{ role: "user", content: "hi" }];
const overloaded = () => fixtureReply("anthropic/error-529-overloaded.json");
const success = () => fixtureReply("anthropic/messages-end-turn-text.json");

async function failure(promise: Promise<unknown>): Promise<ProviderError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(ProviderError);
  return error as ProviderError;
}

describe("AnthropicModel: retries", () => {
  test("a 429 with retry-after waits as asked, then succeeds", async () => {
    server.reply(fixtureReply("anthropic/error-429-rate-limit.json", { headers: { "retry-after": "0.05" } }), success());
    const retries: RetryEvent[] = [];
    const started = Date.now();
    const response = await model({ retry: { baseDelayMs: 1, onRetry: (retry) => retries.push(retry) } }).complete(user, []);
    expect(response.stopReason).toBe("end_turn");
    expect(server.requests).toHaveLength(2);
    expect(retries.map(({ attempt, delayMs, error }) => [attempt, delayMs, error.status, error.errorType])).toEqual([
      [1, 50, 429, "rate_limit_error"],
    ]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(45);
  });

  test("529 until the budget is spent: a typed error with status, type, message and attempts, promptly", async () => {
    server.reply(
      overloaded(),
      fixtureReply("anthropic/error-529-overloaded-with-request-id.json"),
      fixtureReply("anthropic/error-529-overloaded-docs-link.json"),
      success(),
    );
    const started = Date.now();
    const error = await failure(model({ maxRetries: 2 }).complete(user, []));
    expect(Date.now() - started).toBeLessThan(1000);
    expect(server.requests).toHaveLength(3);
    expect(error).toMatchObject({
      name: "ProviderError",
      provider: "anthropic",
      status: 529,
      errorType: "overloaded_error",
      attempts: 3,
      retryable: true,
      requestId: "req_011CZTGFbArQvnRwr6evz8ca",
    });
    expect(error.providerMessage).toBe("Overloaded. https://docs.claude.com/en/api/errors");
    expect(error.message).toBe(
      "anthropic 529 overloaded_error: Overloaded. https://docs.claude.com/en/api/errors (gave up after 3 attempts) [request req_011CZTGFbArQvnRwr6evz8ca]",
    );
  });

  test.each([0, 1, 4])("maxRetries: %i is honoured exactly", async (maxRetries) => {
    for (let index = 0; index < 6; index++) server.reply(overloaded());
    const error = await failure(model({ maxRetries }).complete(user, []));
    expect(server.requests).toHaveLength(maxRetries + 1);
    expect(error.attempts).toBe(maxRetries + 1);
    expect(server.requests.map((request) => request.headers["x-stainless-retry-count"])).toEqual(Array(maxRetries + 1).fill("0")); // the SDK's own retries are off
  });

  test.each([
    ["anthropic/error-400-invalid-request.json", 400, "invalid_request_error"],
    ["anthropic/error-404-not-found.json", 404, "not_found_error"],
  ])("%s is not retried", async (fixture, status, errorType) => {
    server.reply(fixtureReply(fixture), success());
    const error = await failure(model().complete(user, []));
    expect(server.requests).toHaveLength(1);
    expect(error).toMatchObject({ status, errorType, retryable: false, attempts: 1 });
  });

  test("x-should-retry: false is obeyed even on a 529", async () => {
    server.reply({ ...overloaded(), headers: { "x-should-retry": "false" } }, success());
    const error = await failure(model().complete(user, []));
    expect(error.retryable).toBe(false);
    expect(server.requests).toHaveLength(1);
  });

  test("a retry-after longer than maxDelayMs is not waited for", async () => {
    server.reply(fixtureReply("anthropic/error-429-rate-limit-output-tokens.json", { headers: { "retry-after": "120" } }), success());
    const error = await failure(model({ retry: { maxDelayMs: 10_000 } }).complete(user, []));
    expect(error).toMatchObject({ status: 429, retryAfterMs: 120_000, attempts: 1 });
  });

  test("a dropped connection is retried", async () => {
    server.reply({ reset: true }, success());
    const response = await model().complete(user, []);
    expect(response.stopReason).toBe("end_turn");
    expect(server.requests).toHaveLength(2);
  });

  test("connection resets past the budget give a connection_error", async () => {
    server.reply({ reset: true }, { reset: true });
    const error = await failure(model({ maxRetries: 1 }).complete(user, []));
    expect(error).toMatchObject({ status: undefined, errorType: "connection_error", attempts: 2, retryable: true });
  });

  test("an error event inside a 200 stream, before any output, is retried", async () => {
    const start = fixtureText("anthropic/stream-stop-sequence.sse").split("\n\n")[0];
    server.reply(
      { sse: `${start}\n\n${fixtureText("anthropic/stream-midstream-error-overloaded.sse")}` },
      fixtureReply("anthropic/stream-stop-sequence.sse"),
    );
    const response = await model().complete(user, [], { onEvent: () => {} });
    expect(response.stopReason).toBe("stop_sequence");
    expect(server.requests).toHaveLength(2);
  });

  test("an error event after text was streamed is retried; the listener hears model-call-retry between the two attempts' text", async () => {
    const stream = fixtureText("anthropic/stream-stop-sequence.sse").split("\n\n");
    const prefix = stream.slice(0, stream.findIndex((frame) => frame.includes("text_delta")) + 1).join("\n\n");
    server.reply(
      { sse: `${prefix}\n\n${fixtureText("anthropic/stream-midstream-error-overloaded.sse")}` },
      fixtureReply("anthropic/stream-stop-sequence.sse"),
    );
    const events: ModelStreamEvent[] = [];
    const response = await model().complete(user, [], { onEvent: (event) => events.push(event) });
    expect(response.stopReason).toBe("stop_sequence");
    expect(server.requests).toHaveLength(2);
    const retry = events.findIndex((event) => event.type === "model-call-retry");
    expect(events[retry]).toMatchObject({
      attempt: 1,
      streamed: true,
      error: { provider: "anthropic", kind: "api", errorType: "overloaded_error" },
    });
    expect(events.slice(0, retry).some((event) => event.type === "text-delta")).toBe(true);
    const retried = events.slice(retry + 1).flatMap((event) => (event.type === "text-delta" ? [event.text] : []));
    expect(retried.join("")).toBe(response.message.content);
  });

  test("a stream cut off before message_stop is an error, not a short answer", async () => {
    const stream = fixtureText("anthropic/stream-stop-sequence.sse").split("\n\n");
    server.reply({ sse: `${stream.slice(0, 3).join("\n\n")}\n\n` });
    const error = await failure(model({ maxRetries: 0 }).complete(user, [], { onEvent: () => {} }));
    expect(error).toMatchObject({ errorType: "incomplete_stream" });
  });

  test("a retry never runs a tool twice", async () => {
    server.reply(
      fixtureReply("anthropic/messages-tool-use-text-then-tool.json"),
      overloaded(),
      overloaded(),
      fixtureReply("anthropic/messages-end-turn-after-tool-result.json"),
    );
    let runs = 0;
    const registry = new ToolRegistry().add({
      name: "test_tool",
      description: "counts",
      parameters: { type: "object" },
      execute: () => ++runs,
    });
    const result = await new Agent(model({ maxRetries: 2 }), registry).run("go");
    expect(runs).toBe(1);
    expect(server.requests).toHaveLength(4);
    expect(result.messages.filter((message) => message.role === "tool")).toHaveLength(1);
  });
});

describe("AnthropicModel: malformed responses and aborts", () => {
  test.each([
    ["a body that is not JSON", { body: "<html>502 Bad Gateway</html>" }, /malformed response: the body is not valid JSON/],
    [
      "JSON that is not a message",
      { json: { hello: "world" } },
      /malformed response: expected a message object with a "content" array, got \{"hello":"world"\}/,
    ],
    [
      "a text/plain body",
      { body: "upstream timeout", headers: { "content-type": "text/plain" } },
      /malformed response: .*"upstream timeout"/,
    ],
    ["blocks without a type", { json: { content: [{ text: "hi" }], stop_reason: "end_turn" } }, /every content block needs a "type"/],
  ])("%s gives a clear, non-retryable error", async (_name, reply, message) => {
    server.reply(reply, success());
    const error = await failure(model().complete(user, []));
    expect(error.errorType).toBe("malformed_response");
    expect(error.retryable).toBe(false);
    expect(error.message).toMatch(message);
    expect(server.requests).toHaveLength(1);
  });

  test("a stream whose data is not JSON gives a clear error", async () => {
    server.reply({ sse: formatServerSentEvents([{ event: "message_start", data: "{not json" }]) });
    const error = await failure(model().complete(user, [], { onEvent: () => {} }));
    expect(error.errorType).toBe("malformed_response");
  });

  test("aborting the signal rejects promptly with an AbortError, also while waiting to retry", async () => {
    server.reply(fixtureReply("anthropic/error-429-rate-limit.json", { headers: { "retry-after": "30" } }));
    const controller = new AbortController();
    const started = Date.now();
    const pending = model({ retry: { maxDelayMs: 60_000 } }).complete(user, [], { signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    await expect(pending).rejects.toBeInstanceOf(AbortError);
    expect(Date.now() - started).toBeLessThan(2000);
  });
});

describe("AnthropicModel: secrets", () => {
  test("the key is sent to the API, but never appears in an error, its cause or the captured requests", async () => {
    const keeping = await startWireServer({ keepCredentials: true });
    try {
      keeping.reply(fixtureReply("anthropic/error-400-invalid-request.json"));
      const sent = await failure(new AnthropicModel({ model: "claude-test", apiKey, baseURL: keeping.url }).complete(user, []));
      expect(`${keeping.requests[0]?.headers.authorization}${keeping.requests[0]?.headers["x-api-key"]}`).toContain(apiKey);
      expect(inspect(sent, { depth: 20, showHidden: true })).not.toContain("SECRET");
    } finally {
      await keeping.close();
    }
    server.reply(overloaded(), overloaded(), { reset: true }, { body: "not json" });
    const errors = [await failure(model({ maxRetries: 1 }).complete(user, [])), await failure(model({ maxRetries: 1 }).complete(user, []))];
    for (const error of errors) {
      expect(inspect(error, { depth: 20, showHidden: true })).not.toContain("SECRET");
      expect(JSON.stringify(error)).not.toContain("SECRET");
      expect(String(error.stack)).not.toContain("SECRET");
    }
    expect(JSON.stringify(server.requests)).not.toContain("SECRET");
  });

  test("a missing key is a usage error naming the variable", () => {
    const saved = process.env.ANTHROPIC_API_KEY;
    delete process.env.ANTHROPIC_API_KEY;
    try {
      expect(() => new AnthropicModel({ model: "claude-test" })).toThrow(/ANTHROPIC_API_KEY/);
    } finally {
      if (saved !== undefined) process.env.ANTHROPIC_API_KEY = saved;
    }
  });

  test("a large max_tokens is streamed even without a listener (the SDK refuses it otherwise)", async () => {
    server.reply(fixtureReply("anthropic/stream-stop-sequence.sse"));
    const response = await model({ maxTokens: 64_000 }).complete(user, []);
    expect(response.stopReason).toBe("stop_sequence");
    expect(server.requests[0]?.body).toMatchObject({ stream: true, max_tokens: 64_000 });
  });

  test("thinking settings are checked early", () => {
    expect(() => model({ thinking: { budgetTokens: 100 } })).toThrow(/budgetTokens must be a whole number ≥ 1024/);
    expect(() => model({ thinking: { budgetTokens: 2048 }, maxTokens: 1024 })).toThrow(/must be larger than thinking.budgetTokens/);
  });
});
