import { inspect } from "node:util";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { Agent } from "../../../src/core/agent.js";
import type { Message, ModelStreamEvent } from "../../../src/core/types.js";
import { OpenAIModel, type OpenAIModelOptions } from "../../../src/models/openai/index.js";
import { ProviderError } from "../../../src/models/provider-error.js";
import { formatServerSentEvents, startWireServer, type WireServer } from "../../../src/testing/wire-server.js";
import { ToolRegistry } from "../../../src/tools/tool-registry.js";
import { fixtureJson, fixtureReply } from "../../helpers/provider-fixtures.js";

type OpenAIBody = {
  model: string;
  messages: Record<string, unknown>[];
  tools?: unknown[];
  stream?: boolean;
  stream_options?: unknown;
  max_completion_tokens?: number;
};

const apiKey = "sk-proj-SECRET-test-key-0123456789";
let server: WireServer;
beforeEach(async () => {
  server = await startWireServer();
});
afterEach(() => server.close());

function model(options: Partial<OpenAIModelOptions> = {}): OpenAIModel {
  // The SDK appends /chat/completions to the base URL; the key is passed explicitly because a baseURL is set.
  return new OpenAIModel({
    model: "gpt-test",
    apiKey,
    baseURL: `${server.url}/v1`,
    provider: "openai",
    retry: { baseDelayMs: 1 },
    ...options,
  });
}
const user: Message[] = [{ role: "user", content: "hi" }];
const body = (index: number) => server.requests[index]?.body as OpenAIBody;
const streaming = { onEvent: () => {} };

async function failure(promise: Promise<unknown>): Promise<ProviderError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(ProviderError);
  return error as ProviderError;
}

function fileTools(deleted: string[]) {
  return new ToolRegistry()
    .add({
      name: "delete_file",
      description: "Deletes a file",
      parameters: { type: "object", properties: { path: { type: "string" } } },
      execute: ({ path }) => {
        deleted.push(String(path));
        return "deleted";
      },
    })
    .add({
      name: "create_file",
      description: "Creates a file",
      parameters: { type: "object", properties: { path: { type: "string" } } },
      execute: () => "created",
    });
}

describe("OpenAIModel: a two-turn tool loop", () => {
  test("parallel tool calls run, their results go back by tool_call_id, and the run ends on stop", async () => {
    server.reply(fixtureReply("openai/chat-tool-calls-parallel.json"), fixtureReply("openai/chat-text-stop.json"));
    const deleted: string[] = [];
    const result = await new Agent(model(), fileTools(deleted), { system: "You manage files." }).run("Delete .env and create test.txt");
    expect(deleted).toEqual([".env"]);
    expect(result.messages.map((message) => message.role)).toEqual(["system", "user", "assistant", "tool", "tool", "assistant"]);
    expect(result.usage.inputTokens).toBe(
      71 + fixtureJson<{ usage: { prompt_tokens: number } }>("openai/chat-text-stop.json").usage.prompt_tokens,
    );

    expect(server.requests[0]?.path).toBe("/v1/chat/completions");
    expect(body(0).tools?.[0]).toEqual({
      type: "function",
      function: {
        name: "delete_file",
        description: "Deletes a file",
        parameters: { type: "object", properties: { path: { type: "string" } } },
      },
    });
    expect(body(0)).not.toHaveProperty("stream"); // non-streaming is the default: nothing framework-added on the wire
    expect(body(1).messages.slice(0, 1)).toEqual([{ role: "system", content: "You manage files." }]);
    expect(body(1).messages.slice(2)).toEqual([
      {
        role: "assistant",
        content: null,
        tool_calls: [
          { id: "call_jYdIdRZHxZTn5bWCq5jlMrJi", type: "function", function: { name: "delete_file", arguments: '{"path":".env"}' } },
          { id: "call_TmlTVWQbzrXCZ4jNsCVNbNqu", type: "function", function: { name: "create_file", arguments: '{"path":"test.txt"}' } },
        ],
      },
      { role: "tool", tool_call_id: "call_jYdIdRZHxZTn5bWCq5jlMrJi", content: "deleted" },
      { role: "tool", tool_call_id: "call_TmlTVWQbzrXCZ4jNsCVNbNqu", content: "created" },
    ]);
  });

  test("streamed: argument fragments are reassembled exactly and usage is asked for", async () => {
    server.reply(
      fixtureReply("openai/stream-tool-call-argument-fragments.sse", { chunkSize: 9 }),
      fixtureReply("openai/stream-text-stop-usage.sse", { chunkSize: 4 }),
    );
    const registry = new ToolRegistry().add({
      name: "get_weather",
      description: "Weather",
      parameters: { type: "object", properties: { city: { type: "string" } } },
      execute: ({ city }) => `rain in ${String(city)}`,
    });
    const deltas: string[] = [];
    let text = "";
    const result = await new Agent(model(), registry).run("Weather?", {
      stream: true,
      onEvent: (event) => {
        if (event.type === "tool-input-delta") deltas.push(event.argumentsDelta);
        if (event.type === "text-delta") text += event.text;
      },
    });
    const call = result.messages[1]?.toolCalls?.[0];
    expect(JSON.parse(deltas.join(""))).toEqual(call?.arguments); // the fragments are the whole JSON text
    expect(deltas.length).toBeGreaterThan(3);
    expect(body(0)).toMatchObject({ stream: true, stream_options: { include_usage: true } });
    expect(result.final).toBe(text);
    expect(result.usage.outputTokens).toBeGreaterThan(0);
  });
});

describe("OpenAIModel: streaming", () => {
  test("parallel streamed calls are told apart by index and complete in order", async () => {
    server.reply(fixtureReply("openai/stream-tool-calls-parallel.sse", { chunkSize: 1 }));
    const events: ModelStreamEvent[] = [];
    const response = await model().complete(user, [], { onEvent: (event) => events.push(event) });
    const calls = response.message.toolCalls ?? [];
    expect(calls.map((call) => [call.id, call.name])).toEqual([
      ["call_3rqTYrA6H21AYUaRGP4F66oq", "get_country"],
      ["call_Xw9XMKBJU48kAAd78WgIswDx", "get_product_name"],
    ]);
    expect(
      events.filter((event) => event.type === "tool-input-start").map((event) => (event.type === "tool-input-start" ? event.index : -1)),
    ).toEqual([0, 1]);
    const ends = events.flatMap((event) => (event.type === "tool-input-end" ? [event.toolCall] : []));
    expect(ends).toEqual(calls);
    expect(response.stopReason).toBe("tool_use");
    expect(events.at(-1)).toEqual({ type: "usage", usage: response.usage });
  });

  test.each([1, 2, 3, 5, 8, 13, 64])("re-chunked every %i bytes, a stream gives the same response", async (chunkSize) => {
    server.reply(
      fixtureReply("openai/stream-tool-calls-parallel.sse"),
      fixtureReply("openai/stream-tool-calls-parallel.sse", { chunkSize }),
    );
    const whole = await model().complete(user, [], streaming);
    const pieces = await model().complete(user, [], streaming);
    expect(pieces).toEqual(whole);
  });

  test("Azure: a first chunk without choices or id, content filter results on every chunk", async () => {
    server.reply(fixtureReply("openai/stream-azure-content-filter.chunks.jsonl"));
    const response = await model().complete(user, [], streaming);
    expect(response.message.content).toMatch(/^Capital/);
    expect(response.stopReason).toBe("end_turn");
    expect(response.usage?.inputTokens).toBeGreaterThan(0);
  });

  test("a refusal streamed in delta.refusal is the answer, with stop reason refusal", async () => {
    server.reply(fixtureReply("openai/stream-refusal-structured-output.sse"));
    let text = "";
    const response = await model().complete(user, [], {
      onEvent: (event) => {
        if (event.type === "text-delta") text += event.text;
      },
    });
    expect(response.stopReason).toBe("refusal");
    expect(response.message.content).toMatch(/^I'm (very )?sorry/);
    expect(text).toBe(response.message.content);
  });

  test("a stream that ends without a finish_reason is an incomplete-stream error", async () => {
    server.reply({ sse: formatServerSentEvents([{ data: JSON.stringify({ choices: [{ index: 0, delta: { content: "Hel" } }] }) }]) });
    const error = await failure(model({ maxRetries: 0 }).complete(user, [], streaming));
    expect(error).toMatchObject({ errorType: "incomplete_stream", provider: "openai" });
  });

  test("an error chunk inside the stream becomes a ProviderError", async () => {
    server.reply(
      { sse: formatServerSentEvents([{ data: JSON.stringify({ error: { message: "The server had an error", type: "server_error" } }) }]) },
      fixtureReply("openai/stream-text-stop-usage.sse"),
    );
    const response = await model().complete(user, [], streaming);
    expect(response.stopReason).toBe("end_turn");
    expect(server.requests).toHaveLength(2);
  });
});

describe("OpenAIModel: finish reasons and usage", () => {
  const completion = (finish_reason: string, message: Record<string, unknown> = { role: "assistant", content: "x" }) => ({
    json: { choices: [{ index: 0, message, finish_reason }] },
  });

  test.each([
    ["stop", "end_turn"],
    ["length", "max_tokens"],
    ["content_filter", "refusal"],
  ])("%s → %s", async (finishReason, stopReason) => {
    server.reply(completion(finishReason));
    expect((await model().complete(user, [])).stopReason).toBe(stopReason);
  });

  test("tool_calls → tool_use (recorded)", async () => {
    server.reply(fixtureReply("openai/chat-tool-call-single-empty-args.json"));
    const response = await model().complete(user, []);
    expect(response.stopReason).toBe("tool_use");
    expect(response.message.toolCalls?.[0]?.arguments).toEqual({});
  });

  test("usage maps cached and reasoning tokens", async () => {
    server.reply(fixtureReply("openai-compatible/deepseek-tool-call-reasoning-content.json"));
    expect((await model().complete(user, [])).usage).toEqual({
      inputTokens: 339,
      outputTokens: 92,
      cacheReadTokens: 320,
      reasoningTokens: 48,
    });
  });

  test("invalid-JSON arguments become an error observation; the other calls still run", async () => {
    const calls = [
      { id: "call_1", type: "function", function: { name: "delete_file", arguments: '{"path": ".env"' } },
      { id: "call_2", type: "function", function: { name: "delete_file", arguments: '{"path": "a.txt"}' } },
      { id: "call_3", type: "function", function: { name: "delete_file", arguments: '["a.txt"]' } },
    ];
    server.reply(
      completion("tool_calls", { role: "assistant", content: null, tool_calls: calls }),
      fixtureReply("openai/chat-text-stop.json"),
    );
    const deleted: string[] = [];
    const result = await new Agent(model(), fileTools(deleted)).run("Delete");
    expect(deleted).toEqual(["a.txt"]);
    const observations = result.messages.filter((message) => message.role === "tool");
    expect(observations.map((message) => message.isError ?? false)).toEqual([true, false, true]);
    expect(observations[0]?.content).toMatch(
      /^Invalid arguments for tool "delete_file": the arguments are not valid JSON \(.+\)\. Received: \{"path": "\.env"\./,
    );
    expect(observations[2]?.content).toMatch(/the arguments are not a JSON object\. Received: \["a\.txt"\]/);
    expect(body(1).messages[1]).toMatchObject({
      tool_calls: [{ function: { arguments: "{}" } }, { function: { arguments: '{"path":"a.txt"}' } }, { function: { arguments: "{}" } }],
    });
  });
});

describe("OpenAIModel: retries and errors", () => {
  test("a 429 rate limit with retry-after waits, then succeeds", async () => {
    server.reply(
      fixtureReply("openai/error-429-rate-limit-requests.json", { headers: { "retry-after-ms": "30" } }),
      fixtureReply("openai/chat-text-stop.json"),
    );
    const delays: number[] = [];
    const response = await model({ retry: { onRetry: ({ delayMs }) => delays.push(delayMs) } }).complete(user, []);
    expect(response.stopReason).toBe("end_turn");
    expect(delays).toEqual([30]);
  });

  test.each([
    ["openai/error-429-insufficient-quota.json", "insufficient_quota"],
    ["openai/error-429-request-too-large-tpm.json", "rate_limit_exceeded"],
  ])("%s is a 429 that is not retried", async (fixture, errorType) => {
    server.reply(fixtureReply(fixture), fixtureReply("openai/chat-text-stop.json"));
    const error = await failure(model().complete(user, []));
    expect(error).toMatchObject({ status: 429, errorType, retryable: false, attempts: 1 });
    expect(server.requests).toHaveLength(1);
  });

  test.each([
    ["openai/error-400-unsupported-value.json", 400, "unsupported_value"],
    ["openai/error-400-unsupported-parameter.json", 400, "unsupported_parameter"],
    ["openai/error-404-model-not-found.json", 404, "model_not_found"],
  ])("%s is not retried", async (fixture, status, errorType) => {
    server.reply(fixtureReply(fixture, { status }), fixtureReply("openai/chat-text-stop.json"));
    const error = await failure(model().complete(user, []));
    expect(error).toMatchObject({ status, errorType, retryable: false });
    expect(server.requests).toHaveLength(1);
  });

  test("500s until the budget is spent: attempts counted, promptly", async () => {
    for (let index = 0; index < 4; index++)
      server.reply({
        status: 500,
        json: { error: { message: "The server had an error while processing your request.", type: "server_error" } },
      });
    const error = await failure(model({ maxRetries: 3 }).complete(user, [], streaming));
    expect(error).toMatchObject({ provider: "openai", status: 500, errorType: "server_error", attempts: 4 });
    expect(server.requests).toHaveLength(4);
  });

  test.each([
    ["a body that is not JSON", { body: "<html>" }],
    ["JSON without choices", { json: { object: "chat.completion" } }],
    ["tool_calls that are not a list", { json: { choices: [{ message: { tool_calls: "x" }, finish_reason: "stop" }] } }],
  ])("%s gives a clear malformed-response error", async (_name, reply) => {
    server.reply(reply);
    const error = await failure(model().complete(user, []));
    expect(error).toMatchObject({ errorType: "malformed_response", retryable: false });
    expect(error.message).toMatch(/^openai malformed_response: malformed response: /);
  });

  test("the key is sent, but appears in no error and no captured request", async () => {
    const keeping = await startWireServer({ keepCredentials: true });
    try {
      keeping.reply(fixtureReply("openai/error-429-insufficient-quota.json"));
      const error = await failure(new OpenAIModel({ model: "gpt-test", apiKey, baseURL: keeping.url }).complete(user, []));
      expect(keeping.requests[0]?.headers.authorization).toBe(`Bearer ${apiKey}`);
      expect(inspect(error, { depth: 20, showHidden: true })).not.toContain("SECRET");
    } finally {
      await keeping.close();
    }
    server.reply({ reset: true }, { status: 503, json: { error: { message: "busy" } } });
    const error = await failure(model({ maxRetries: 1 }).complete(user, []));
    expect(inspect(error, { depth: 20, showHidden: true })).not.toContain("SECRET");
    expect(JSON.stringify(server.requests)).not.toContain("SECRET");
  });

  test("OpenAI itself needs a key (OPENAI_API_KEY), named in the error", () => {
    const saved = process.env.OPENAI_API_KEY;
    delete process.env.OPENAI_API_KEY;
    try {
      expect(() => new OpenAIModel({ model: "gpt-4.1" })).toThrow(/OPENAI_API_KEY/);
    } finally {
      if (saved !== undefined) process.env.OPENAI_API_KEY = saved;
    }
  });
});
