/**
 * What the official SDKs' own retries do, checked against the local wire server. These findings are
 * why both adapters pass `maxRetries: 0` to their SDK and retry with minagent's policy instead:
 * the SDKs retry every 429 (even `insufficient_quota`, which waiting cannot fix) and 408/409, and
 * their backoff (0.5 s doubling) cannot be tuned. They do honour `retry-after(-ms)` and `x-should-retry`.
 */
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { startWireServer, type WireServer } from "../../src/testing/wire-server.js";
import { fixtureReply } from "../helpers/provider-fixtures.js";

let server: WireServer;
beforeEach(async () => {
  server = await startWireServer();
});
afterEach(() => server.close());

const prompt = { model: "test", max_tokens: 16, messages: [{ role: "user" as const, content: "hi" }] };
const soon = { "retry-after-ms": "1" }; // keeps these checks fast; the SDKs read it first

const anthropic = (maxRetries: number) => new Anthropic({ apiKey: "test", baseURL: server.url, maxRetries });
const openai = (maxRetries: number) => new OpenAI({ apiKey: "test", baseURL: `${server.url}/v1`, maxRetries });
const chat = { model: "test", messages: [{ role: "user" as const, content: "hi" }] };

describe("@anthropic-ai/sdk 1.10 retries (why AnthropicModel turns them off)", () => {
  test("maxRetries is exact, and 529 is retried", async () => {
    for (let index = 0; index < 4; index++)
      server.reply(fixtureReply("anthropic/error-529-overloaded-with-request-id.json", { headers: soon }));
    await expect(anthropic(2).messages.create(prompt)).rejects.toMatchObject({ status: 529 });
    expect(server.requests).toHaveLength(3);
    expect(server.requests.map((request) => request.headers["x-stainless-retry-count"])).toEqual(["0", "1", "2"]);
  });

  test("it retries a 409 (a 4xx other than 429), which the issue says must not be retried", async () => {
    server.reply(
      { status: 409, headers: soon, json: { type: "error", error: { type: "conflict_error", message: "conflict" } } },
      fixtureReply("anthropic/messages-end-turn-text.json"),
    );
    await anthropic(1).messages.create(prompt);
    expect(server.requests).toHaveLength(2);
  });

  test("it obeys x-should-retry: false", async () => {
    server.reply(fixtureReply("anthropic/error-529-overloaded.json", { headers: { ...soon, "x-should-retry": "false" } }));
    await expect(anthropic(2).messages.create(prompt)).rejects.toMatchObject({ status: 529 });
    expect(server.requests).toHaveLength(1);
  });

  test("without retry-after it waits its fixed backoff (≥ 375 ms), which a test cannot shorten", async () => {
    server.reply(
      fixtureReply("anthropic/error-529-overloaded.json", { headers: { "x-should-retry": "true" } }),
      fixtureReply("anthropic/messages-end-turn-text.json"),
    );
    const started = Date.now();
    await anthropic(1).messages.create(prompt);
    expect(Date.now() - started).toBeGreaterThanOrEqual(370);
  });

  test("an error event inside a 200 stream is not retried", async () => {
    server.reply(fixtureReply("anthropic/stream-midstream-error-overloaded.sse"), fixtureReply("anthropic/stream-stop-sequence.sse"));
    const stream = await anthropic(2).messages.create({ ...prompt, stream: true });
    await expect(
      (async () => {
        for await (const _event of stream) {
          // drain
        }
      })(),
    ).rejects.toMatchObject({ type: "overloaded_error" });
    expect(server.requests).toHaveLength(1);
  });
});

describe("openai 7.55 retries (why OpenAIModel turns them off)", () => {
  test("it retries a 429 insufficient_quota, which waiting cannot fix", async () => {
    for (let index = 0; index < 3; index++) server.reply(fixtureReply("openai/error-429-insufficient-quota.json", { headers: soon }));
    await expect(openai(2).chat.completions.create(chat)).rejects.toMatchObject({ status: 429, code: "insufficient_quota" });
    expect(server.requests).toHaveLength(3);
  });

  test("it retries a request larger than the tokens-per-minute limit", async () => {
    server.reply(
      fixtureReply("openai/error-429-request-too-large-tpm.json", { headers: soon }),
      fixtureReply("openai/chat-text-stop.json"),
    );
    await openai(1).chat.completions.create(chat);
    expect(server.requests).toHaveLength(2);
  });

  test("it honours retry-after (seconds) on a 429", async () => {
    server.reply(
      fixtureReply("openai/error-429-rate-limit-requests.json", { headers: { "retry-after": "0.2" } }),
      fixtureReply("openai/chat-text-stop.json"),
    );
    const started = Date.now();
    await openai(1).chat.completions.create(chat);
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
  });
});
