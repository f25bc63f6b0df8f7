import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { Agent } from "../../../src/core/agent.js";
import type { Message, ModelResponse, ModelStreamEvent } from "../../../src/core/types.js";
import { OpenAIModel, type OpenAIModelOptions } from "../../../src/models/openai/index.js";
import { ProviderError } from "../../../src/models/provider-error.js";
import { formatServerSentEvents, startWireServer, type WireServer } from "../../../src/testing/wire-server.js";
import { ToolRegistry } from "../../../src/tools/tool-registry.js";
import { fixtureJson, fixtureReply } from "../../helpers/provider-fixtures.js";

let server: WireServer;
beforeEach(async () => {
  server = await startWireServer({ keepCredentials: true });
});
afterEach(() => server.close());

function model(options: Partial<OpenAIModelOptions> = {}): OpenAIModel {
  return new OpenAIModel({ model: "local-model", baseURL: `${server.url}/v1`, provider: "ollama", retry: { baseDelayMs: 1 }, ...options });
}
const user: Message[] = [{ role: "user", content: "hi" }];

async function complete(
  fixture: string,
  streamed: boolean,
  history: Message[] = user,
): Promise<{ response: ModelResponse; events: ModelStreamEvent[] }> {
  server.reply(fixtureReply(fixture, streamed ? { chunkSize: 7 } : {}));
  const events: ModelStreamEvent[] = [];
  const response = await model().complete(history, [], streamed ? { onEvent: (event) => events.push(event) } : {});
  return { response, events };
}

describe("OpenAI-compatible servers: known deviations", () => {
  test("a keyless local server gets no Authorization header, and OPENAI_API_KEY is not sent to it", async () => {
    const saved = process.env.OPENAI_API_KEY;
    process.env.OPENAI_API_KEY = "sk-proj-SECRET-should-not-leave";
    try {
      server.reply(fixtureReply("openai-compatible/ollama-v1-tool-call.json"));
      await model().complete(user, []);
      expect(server.requests[0]?.headers.authorization).toBeUndefined();
      expect(JSON.stringify(server.requests[0])).not.toContain("SECRET");
    } finally {
      if (saved === undefined) delete process.env.OPENAI_API_KEY;
      else process.env.OPENAI_API_KEY = saved;
    }
  });

  test("arguments delivered as an object and a missing id (Ollama's native tool call, in a chat completion)", async () => {
    const native = fixtureJson<{ message: Record<string, unknown> }>("openai-compatible/ollama-api-chat-tool-call.json");
    const twoCalls = {
      ...native.message,
      tool_calls: [...(native.message.tool_calls as unknown[]), ...(native.message.tool_calls as unknown[])],
    };
    server.reply(
      { json: { choices: [{ index: 0, message: twoCalls, finish_reason: "stop" }] } },
      { json: { choices: [{ index: 0, message: { role: "assistant", content: "18°C in Paris" }, finish_reason: "stop" }] } },
    );
    let runs = 0;
    const registry = new ToolRegistry().add({
      name: "get_current_weather",
      description: "Weather",
      parameters: { type: "object", properties: { location: { type: "string" }, format: { type: "string" } }, required: ["location"] },
      execute: ({ location, format }) => `${++runs}: 18 ${String(format)} in ${String(location)}`,
    });
    const result = await new Agent(model(), registry).run("Weather in Paris?");
    const calls = result.messages[1]?.toolCalls ?? [];
    expect(calls.map((call) => call.arguments)).toEqual([
      { format: "celsius", location: "Paris, FR" },
      { format: "celsius", location: "Paris, FR" },
    ]);
    expect(calls[0]?.id).toMatch(/^call_[0-9a-f]{24}$/);
    expect(new Set(calls.map((call) => call.id)).size).toBe(2);
    expect(result.messages.filter((message) => message.role === "tool").map((message) => message.toolCallId)).toEqual(
      calls.map((call) => call.id),
    );
    expect(result.final).toBe("18°C in Paris");
    expect(result.usage).toEqual({ inputTokens: 0, outputTokens: 0 }); // no usage reported: nothing invented
  });

  test("an empty tool-call id (Gemini, Snowflake) gets a generated one; an empty finish_reason with calls is tool_use", async () => {
    for (const fixture of [
      "openai-compatible/gemini-openai-compat-tool-call-empty-id.json",
      "openai-compatible/snowflake-cortex-tool-call-empty-finish-reason.json",
    ]) {
      const { response } = await complete(fixture, false);
      expect(response.stopReason).toBe("tool_use");
      expect(response.message.toolCalls?.[0]?.id).toMatch(/^(call_|toolu_)/);
      expect(response.message.toolCalls?.[0]?.id).not.toBe("");
    }
  });

  test("a tool-call id the server already used in this conversation is replaced", async () => {
    const earlier: Message = { role: "assistant", content: "", toolCalls: [{ id: "call_o2vnpxrw", name: "final_result", arguments: {} }] };
    const history: Message[] = [...user, earlier, { role: "tool", content: "ok", toolCallId: "call_o2vnpxrw" }];
    const { response } = await complete("openai-compatible/ollama-v1-tool-call.json", false, history);
    expect(response.message.toolCalls?.[0]?.id).not.toBe("call_o2vnpxrw");
    const fresh = await complete("openai-compatible/ollama-v1-tool-call.json", false);
    expect(fresh.response.message.toolCalls?.[0]?.id).toBe("call_o2vnpxrw");
  });

  test("reasoning fields (reasoning, reasoning_content) become reasoning, never content", async () => {
    const ollama = await complete("openai-compatible/ollama-v1-text-reasoning-local.json", false);
    expect(ollama.response.message.content).toBe('{ "city": "Paris", "country": "France" }');
    expect(ollama.response.message.reasoning?.[0]?.text).toMatch(/^Okay, the user is asking/);
    expect(ollama.response.message.reasoning?.[0]?.provider).toBe("ollama");
    const deepseek = await complete("openai-compatible/deepseek-tool-call-reasoning-content.json", false);
    expect(deepseek.response.message.content).toBe("");
    expect(deepseek.response.message.reasoning?.[0]?.text).toMatch(/^The user is asking for the weather/);
    const vllm = await complete("openai-compatible/vllm-tool-call.json", false);
    expect(vllm.response.message.content).toBe("");
    expect(vllm.response.message.reasoning?.[0]?.text).toMatch(/get_weather/);
    expect(vllm.response.usage?.reasoningTokens).toBe(25);
  });

  test("reasoning is not sent back to the server", async () => {
    const { response } = await complete("openai-compatible/deepseek-tool-call-reasoning-content.json", false);
    server.reply(fixtureReply("openai/chat-text-stop.json"));
    await model().complete(
      [...user, response.message, { role: "tool", content: "sunny", toolCallId: response.message.toolCalls?.[0]?.id ?? "" }],
      [],
    );
    expect(server.requests[1]?.text).not.toContain("reasoning");
  });

  describe("reasoning round trip (sendReasoning)", () => {
    const deepseekFixture = "openai-compatible/deepseek-tool-call-reasoning-content.json";
    const recorded = fixtureJson<{ choices: { message: { reasoning_content: string } }[] }>(deepseekFixture);
    const reasoningText = recorded.choices[0]?.message.reasoning_content;
    const weather = () =>
      new ToolRegistry().add({
        name: "weather",
        description: "Weather of a place",
        parameters: { type: "object", properties: { location: { type: "string" } } },
        execute: ({ location }) => `sunny in ${String(location)}`,
      });
    const sentAssistant = () => (server.requests[1]?.body as { messages: Record<string, unknown>[] } | undefined)?.messages[1];

    test("DeepSeek's reasoning_content is kept as reasoning of its provider and sent back when sendReasoning is on", async () => {
      server.reply(fixtureReply(deepseekFixture), fixtureReply("openai/chat-text-stop.json"));
      const deepseek = model({ provider: "deepseek", model: "deepseek-reasoner", sendReasoning: true });
      const result = await new Agent(deepseek, weather()).run("Weather in San Francisco?");
      expect(result.messages[1]?.reasoning).toStrictEqual([{ text: reasoningText, provider: "deepseek" }]);
      expect(sentAssistant()).toStrictEqual({
        role: "assistant",
        content: null,
        tool_calls: [
          {
            id: "call_00_9V0vrf86Pc9aelHCJMZqnJBo",
            type: "function",
            function: { name: "weather", arguments: '{"location":"San Francisco"}' },
          },
        ],
        reasoning_content: reasoningText,
      });
    });

    test("by default (sendReasoning unset or false) the reasoning stays home", async () => {
      for (const sendReasoning of [undefined, false]) {
        server.requests.length = 0;
        server.reply(fixtureReply(deepseekFixture), fixtureReply("openai/chat-text-stop.json"));
        const options = sendReasoning === undefined ? {} : { sendReasoning };
        const result = await new Agent(model({ provider: "deepseek", ...options }), weather()).run("Weather?");
        expect(result.messages[1]?.reasoning?.[0]?.provider).toBe("deepseek");
        expect(sentAssistant()).not.toHaveProperty("reasoning_content");
        expect(server.requests[1]?.text).not.toContain("reasoning");
      }
    });

    test("a streamed `reasoning` field (Ollama, vLLM) goes back as reasoning_content, under the default compatible provider", async () => {
      const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({
        data: JSON.stringify({ id: "chatcmpl-r", object: "chat.completion.chunk", choices: [{ index: 0, delta, finish_reason: finish }] }),
      });
      const call = { index: 0, id: "call_r", type: "function", function: { name: "weather", arguments: '{"location":"Oslo"}' } };
      const sse = formatServerSentEvents(
        [
          chunk({ role: "assistant", content: "" }),
          chunk({ reasoning: "Need the " }),
          chunk({ reasoning: "weather tool." }),
          chunk({ tool_calls: [call] }),
          chunk({}, "tool_calls"),
        ],
        { done: true },
      );
      server.reply({ sse }, fixtureReply("openai/stream-text-stop-usage.sse"));
      const compatible = new OpenAIModel({ model: "qwen3:8b", baseURL: `${server.url}/v1`, sendReasoning: true });
      const result = await new Agent(compatible, weather()).run("Weather in Oslo?", { stream: true });
      expect(result.messages[1]?.reasoning).toStrictEqual([{ text: "Need the weather tool.", provider: "openai-compatible" }]);
      expect(sentAssistant()).toMatchObject({ role: "assistant", content: null, reasoning_content: "Need the weather tool." });
    });

    test("reasoning another provider produced is never sent, even with sendReasoning on", async () => {
      server.reply(fixtureReply("openai/chat-text-stop.json"));
      const history: Message[] = [
        ...user,
        {
          role: "assistant",
          content: "Hello",
          reasoning: [
            { text: "Claude's thought", signature: "EsigClaude", provider: "anthropic" },
            { text: "", redactedData: "EredactedData", provider: "anthropic" },
          ],
        },
        { role: "user", content: "again" },
      ];
      await model({ provider: "deepseek", sendReasoning: true }).complete(history, []);
      expect(server.requests[0]?.text).not.toContain("reasoning");
      expect((server.requests[0]?.body as { messages: unknown[] } | undefined)?.messages[1]).toStrictEqual({
        role: "assistant",
        content: "Hello",
      });
    });
  });

  test("finish_reason length from a router: max_tokens, with the cut-off text kept", async () => {
    const { response } = await complete("openai-compatible/together-finish-length.json", false);
    expect(response.stopReason).toBe("max_tokens");
    expect(response.message.content).toMatch(/^<think>/);
    expect(response.message.toolCalls).toBeUndefined();
  });

  test("a tool call without type (Mistral)", async () => {
    const { response } = await complete("openai-compatible/mistral-tool-call-no-type.json", false);
    expect(response.message.toolCalls).toEqual([{ id: "gSIMJiOkT", name: "weather", arguments: { location: "San Francisco" } }]);
  });
});

describe("OpenAI-compatible servers: streams", () => {
  const streams: [string, { name: string; arguments: Record<string, unknown> }[], string][] = [
    [
      "openai-compatible/ollama-v1-stream-parallel-tool-calls.chunks.jsonl",
      [
        { name: "run_command", arguments: { command: "ls -la" } },
        { name: "run_command", arguments: { command: "ls -la", cwd: "/path/to/directory" } },
      ],
      "tool_use",
    ],
    [
      "openai-compatible/qwen-dashscope-stream-tool-call-empty-id.chunks.jsonl",
      [{ name: "weather", arguments: { location: "San Francisco" } }],
      "tool_use",
    ],
    [
      "openai-compatible/mistral-stream-tool-call-no-index.chunks.jsonl",
      [{ name: "weather", arguments: { location: "San Francisco" } }],
      "tool_use",
    ],
    [
      "openai-compatible/mistral-hosted-glm-stream-tool-call-split-name.chunks.jsonl",
      [{ name: "webSearchTool", arguments: { query: "current Berlin weather" } }],
      "tool_use",
    ],
    ["openai-compatible/groq-stream-tool-call-x-groq-usage.chunks.jsonl", [{ name: "weather", arguments: {} }], "tool_use"],
    ["openai-compatible/vllm-stream-tool-call.chunks.jsonl", [{ name: "run_command", arguments: { command: "ls" } }], "tool_use"],
    [
      "openai-compatible/anthropic-openai-compat-stream-tool-index-1.sse",
      [{ name: "read_file", arguments: { path: "a.txt" } }],
      "tool_use",
    ],
    ["openai-compatible/ollama-v1-stream-text.chunks.jsonl", [], "end_turn"],
    ["openai-compatible/vllm-stream-text.sse", [], "end_turn"],
  ];

  test.each(streams)("%s", async (fixture, expected, stopReason) => {
    const { response, events } = await complete(fixture, true);
    const calls = response.message.toolCalls ?? [];
    expect(calls.map(({ name, arguments: args }) => ({ name, arguments: args }))).toEqual(expected);
    expect(calls.every((call) => call.id !== "" && call.argumentsError === undefined)).toBe(true);
    expect(new Set(calls.map((call) => call.id)).size).toBe(calls.length);
    expect(response.stopReason).toBe(stopReason);
    // What was streamed adds up to the response.
    const starts = events.flatMap((event) => (event.type === "tool-input-start" ? [event.id] : []));
    expect(starts).toEqual(calls.map((call) => call.id));
    const text = events.flatMap((event) => (event.type === "text-delta" ? [event.text] : [])).join("");
    expect(text).toBe(response.message.content);
  });

  test("the Qwen stream keeps the first id despite the empty ids of its continuation deltas", async () => {
    const { response } = await complete("openai-compatible/qwen-dashscope-stream-tool-call-empty-id.chunks.jsonl", true);
    expect(response.message.toolCalls?.[0]?.id).toBe("call_eee11723464a4b9eb8cee71d");
    expect(response.usage).toEqual({ inputTokens: 295, outputTokens: 22, cacheReadTokens: 0 });
  });

  test("a stream without usage gives a response without usage", async () => {
    const { response, events } = await complete("openai-compatible/ollama-v1-stream-text.chunks.jsonl", true);
    expect(response.usage).toBeUndefined();
    expect(events.some((event) => event.type === "usage")).toBe(false);
    expect(response.message.content).toBe("My name is Neo Vim.");
  });
});

describe("OpenAI-compatible servers: errors", () => {
  test("llama.cpp's 500 for tools with stream: retried, then a typed error with the server's words", async () => {
    server.reply(
      fixtureReply("openai-compatible/llamacpp-error-500-tools-with-stream.json"),
      fixtureReply("openai-compatible/llamacpp-error-500-tools-with-stream.json"),
    );
    const error = (await model({ maxRetries: 1 })
      .complete(user, [], { onEvent: () => {} })
      .catch((caught: unknown) => caught)) as ProviderError;
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({
      provider: "ollama",
      status: 500,
      errorType: "server_error",
      providerMessage: "Cannot use tools with stream",
      attempts: 2,
    });
  });

  test("OpenRouter's 429 with a numeric code is retried, and its upstream explanation kept", async () => {
    server.reply(fixtureReply("openai-compatible/openrouter-error-429.json"), fixtureReply("openai-compatible/openrouter-error-429.json"));
    const error = (await model({ maxRetries: 1 })
      .complete(user, [])
      .catch((caught: unknown) => caught)) as ProviderError;
    expect(error).toMatchObject({ status: 429, retryable: true, attempts: 2 });
    expect(error.providerMessage).toMatch(
      /^Provider returned error: google\/gemini-2.0-flash-exp:free is temporarily rate-limited upstream/,
    );
    expect(JSON.stringify(error)).not.toContain("user_2wT5");
  });

  test("Groq's 400 tool_use_failed is not retried", async () => {
    server.reply(fixtureReply("openai-compatible/groq-error-400-tool-use-failed.json"));
    const error = (await model()
      .complete(user, [])
      .catch((caught: unknown) => caught)) as ProviderError;
    expect(error).toMatchObject({ status: 400, errorType: "tool_use_failed", retryable: false, attempts: 1 });
  });
});
