import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, beforeEach, describe, expect, test, vi } from "vitest";
import { Agent } from "../../../src/core/agent.js";
import type { Message, ModelStreamEvent, ToolSchema } from "../../../src/core/types.js";
import { type GoogleMessageMetadata, GoogleModel, type GoogleModelOptions, type GooglePart } from "../../../src/models/google/index.js";
import { startWireServer, type WireServer } from "../../../src/testing/wire-server.js";
import { ToolRegistry } from "../../../src/tools/tool-registry.js";
import { fixtureJson, fixtureReply } from "../../helpers/provider-fixtures.js";

/** The body the SDK writes for a generateContent call. */
type GeminiBody = {
  contents: { role: string; parts: GooglePart[] }[];
  systemInstruction?: { parts: { text: string }[] };
  tools?: { functionDeclarations: Record<string, unknown>[] }[];
  toolConfig?: unknown;
  generationConfig?: Record<string, unknown>;
};
type GeminiFixture = { candidates: { content: { role: string; parts: GooglePart[] } }[] };

let server: WireServer;
beforeEach(async () => {
  server = await startWireServer({ keepCredentials: true });
});
afterEach(() => server.close());

function model(options: Partial<GoogleModelOptions> = {}): GoogleModel {
  return new GoogleModel({
    model: "gemini-2.5-pro",
    apiKey: "gemini-test-key",
    baseURL: server.url,
    retry: { baseDelayMs: 1 },
    ...options,
  });
}

const user = (content: string): Message[] => [{ role: "user", content }];
const body = (index: number) => server.requests[index]?.body as GeminiBody;
const recordedParts = (file: string) => fixtureJson<GeminiFixture>(`google/${file}`).candidates[0]?.content.parts ?? [];

function capitalTool(calls: string[]) {
  return new ToolRegistry().add({
    name: "get_capital",
    description: "Get the capital of a country.",
    parameters: { type: "object", properties: { country: { type: "string" } }, required: ["country"] },
    execute: ({ country }) => {
      calls.push(String(country));
      if (country !== "La France") throw new Error('The country is not supported. Use "La France" instead.');
      return "Paris";
    },
  });
}

describe("GoogleModel: thought signatures go back exactly as received", () => {
  test("a three-turn recorded loop: each model turn's parts, signatures included, are sent back byte for byte", async () => {
    server.reply(
      fixtureReply("google/generate-function-call-thought-signature.json"),
      fixtureReply("google/generate-function-call-thought-signature-turn-2.json"),
      fixtureReply("google/generate-text-thought-signature-turn-3.json"),
    );
    const calls: string[] = [];
    const result = await new Agent(model(), capitalTool(calls), { system: "You are a helpful chatbot." }).run(
      "What is the capital of France?",
    );
    expect(calls).toEqual(["France", "La France"]);
    expect(result.final).toBe("Paris");
    expect(server.requests.map((request) => request.path)).toEqual(Array(3).fill("/v1/models/gemini-2.5-pro:generateContent"));
    expect(server.requests[0]?.headers["x-goog-api-key"]).toBe("gemini-test-key");

    const first = recordedParts("generate-function-call-thought-signature.json");
    const second = recordedParts("generate-function-call-thought-signature-turn-2.json");
    expect(body(1).contents[1]).toEqual({ role: "model", parts: first });
    expect(body(2).contents[1]).toEqual({ role: "model", parts: first });
    expect(body(2).contents[3]).toEqual({ role: "model", parts: second });
    // The very strings received (standard base64 with + and /), not re-encoded.
    for (const signature of [first[0]?.thoughtSignature, second[0]?.thoughtSignature]) {
      expect(signature).toMatch(/[+/]/);
      expect(server.requests[2]?.text).toContain(JSON.stringify(signature));
    }
    // Gemini's calls came without ids: each result names its function, and no made-up id is sent.
    expect(body(1).contents[2]).toEqual({
      role: "user",
      parts: [{ functionResponse: { name: "get_capital", response: { error: expect.stringContaining('Use "La France" instead.') } } }],
    });
    expect(body(2).contents[4]?.parts[0]).toEqual({ functionResponse: { name: "get_capital", response: { output: "Paris" } } });
    expect(body(0).systemInstruction).toEqual({ parts: [{ text: "You are a helpful chatbot." }], role: "user" });
    // A text part's signature is kept too, for the next turn.
    const final = result.messages.at(-1)?.providerMetadata?.google as GoogleMessageMetadata | undefined;
    expect(final?.parts).toEqual(recordedParts("generate-text-thought-signature-turn-3.json"));
  });

  test("a message edited since it was received is rebuilt from its text and calls (the edit is not undone)", async () => {
    server.reply(fixtureReply("google/generate-function-call-thought-signature.json"));
    const response = await model().complete(user("What is the capital of France?"), []);
    const edited: Message = { ...response.message, content: "Let me look that up." };
    server.reply(fixtureReply("google/generate-max-tokens.json"));
    await model().complete([...user("What is the capital of France?"), edited], []);
    expect(body(1).contents[1]).toEqual({
      role: "model",
      parts: [{ text: "Let me look that up." }, { functionCall: { name: "get_capital", args: { country: "France" } } }],
    });
  });
});

describe("GoogleModel: parallel function calls", () => {
  test("three calls without ids get unique made-up ids; their results go back in one turn, named by function", async () => {
    server.reply(fixtureReply("google/generate-function-calls-parallel.json"), fixtureReply("google/generate-max-tokens.json"));
    const tools: ToolSchema[] = [{ name: "generate_topic", description: "A topic", parameters: { type: "object", properties: {} } }];
    const first = await model({ model: "gemini-3-flash-preview" }).complete(user("Three topics"), tools, {
      toolChoice: { name: "generate_topic" },
    });
    const toolCalls = first.message.toolCalls ?? [];
    expect(toolCalls.map((call) => call.name)).toEqual(["generate_topic", "generate_topic", "generate_topic"]);
    expect(new Set(toolCalls.map((call) => call.id)).size).toBe(3);
    expect(first.stopReason).toBe("tool_use");
    expect(body(0).toolConfig).toEqual({ functionCallingConfig: { mode: "ANY", allowedFunctionNames: ["generate_topic"] } });

    const results: Message[] = toolCalls.map((call, index) => ({ role: "tool", toolCallId: call.id, content: `topic ${index}` }));
    await model({ model: "gemini-3-flash-preview" }).complete([...user("Three topics"), first.message, ...results], tools);
    const [, sentModel, sentResults] = body(1).contents;
    // Only the first call carries the signature, as received.
    expect(sentModel?.parts).toEqual(recordedParts("generate-function-calls-parallel.json"));
    expect(sentModel?.parts.map((part) => part.thoughtSignature !== undefined)).toEqual([true, false, false]);
    expect(sentResults).toEqual({
      role: "user",
      parts: [0, 1, 2].map((index) => ({ functionResponse: { name: "generate_topic", response: { output: `topic ${index}` } } })),
    });
  });

  test("a call id the API sends (functionCall.id) is the tool call's id and goes back on its functionResponse", async () => {
    const withId = { functionCall: { id: "fc_7", name: "get_capital", args: { country: "France" } } };
    server.reply(
      { json: { candidates: [{ content: { role: "model", parts: [withId] }, finishReason: "STOP" }] } },
      fixtureReply("google/generate-max-tokens.json"),
    );
    const first = await model().complete(user("Capital?"), []);
    expect(first.message.toolCalls?.[0]?.id).toBe("fc_7");
    await model().complete([...user("Capital?"), first.message, { role: "tool", toolCallId: "fc_7", content: "Paris" }], []);
    expect(body(1).contents[2]?.parts).toEqual([{ functionResponse: { name: "get_capital", id: "fc_7", response: { output: "Paris" } } }]);
  });
});

describe("GoogleModel: finish reasons and usage", () => {
  test("SAFETY with no parts is a refusal that says what was blocked, and the notice is not sent back as the model's words", async () => {
    server.reply(fixtureReply("google/generate-safety-block.json"), fixtureReply("google/generate-max-tokens.json"));
    const blocked = await model({ model: "gemini-1.5-flash" }).complete(user("Say something hateful"), []);
    expect(blocked.stopReason).toBe("refusal");
    expect(blocked.message.content).toBe("Gemini blocked the response (finishReason SAFETY; blocked: HARM_CATEGORY_HATE_SPEECH).");
    expect(blocked.usage).toEqual({ inputTokens: 14, outputTokens: 0 });
    await model({ model: "gemini-1.5-flash" }).complete([...user("Say something hateful"), blocked.message, ...user("Then a poem")], []);
    expect(body(1).contents).toEqual([{ role: "user", parts: [{ text: "Say something hateful" }, { text: "Then a poem" }] }]);
  });

  test("a prompt blocked before any candidate is a refusal naming the blockReason", async () => {
    server.reply({ json: { promptFeedback: { blockReason: "PROHIBITED_CONTENT" }, usageMetadata: { promptTokenCount: 7 } } });
    const blocked = await model().complete(user("…"), []);
    expect(blocked).toMatchObject({
      stopReason: "refusal",
      message: { content: "Gemini blocked the prompt (blockReason PROHIBITED_CONTENT)." },
    });
  });

  test("MAX_TOKENS is max_tokens, with the text written so far", async () => {
    server.reply(fixtureReply("google/generate-max-tokens.json"));
    const response = await model({ model: "gemini-2.5-flash", maxTokens: 5, thinkingConfig: { thinkingBudget: 0 } }).complete(
      user("What is the capital of France?"),
      [],
    );
    expect(response).toMatchObject({ stopReason: "max_tokens", message: { content: "The capital of France is" } });
    expect(response.usage).toEqual({ inputTokens: 15, outputTokens: 5 });
    expect(body(0).generationConfig).toEqual({ maxOutputTokens: 5, thinkingConfig: { thinkingBudget: 0 } });
  });

  test("thought tokens count as output and are reported as reasoning tokens; cached tokens as cache reads", async () => {
    server.reply(fixtureReply("google/generate-text-thoughts-token-count.json"));
    const response = await model({ model: "gemini-2.5-flash" }).complete(user("Hello"), []);
    expect(response).toMatchObject({ stopReason: "end_turn", message: { content: "Hello! How can I help you today?" } });
    expect(response.usage).toEqual({ inputTokens: 9, outputTokens: 9 + 34, reasoningTokens: 34 });
    const cached = { promptTokenCount: 100, cachedContentTokenCount: 60, candidatesTokenCount: 3 };
    server.reply({
      json: { candidates: [{ content: { role: "model", parts: [{ text: "ok" }] }, finishReason: "STOP" }], usageMetadata: cached },
    });
    expect((await model().complete(user("Hi"), [])).usage).toEqual({ inputTokens: 100, outputTokens: 3, cacheReadTokens: 60 });
  });
});

describe("GoogleModel: the request", () => {
  test("tools as JSON Schema (parametersJsonSchema), responseFormat as JSON output, thinking, tool choice", async () => {
    server.reply(fixtureReply("google/generate-text-thoughts-token-count.json"));
    const schema = { type: "object", properties: { answer: { type: "string" } }, required: ["answer"], additionalProperties: false };
    const tools: ToolSchema[] = [
      {
        name: "lookup",
        description: "Looks up",
        parameters: { type: "object", properties: { q: { type: "string" }, n: { type: "integer", minimum: 1 } } },
      },
    ];
    const chosen = model({ thinkingConfig: { thinkingLevel: "LOW", includeThoughts: true }, temperature: 0, stopSequences: ["END"] });
    expect(chosen.supportsResponseFormat).toBe(true);
    await chosen.complete([{ role: "system", content: "Be brief." }, ...user("Hi")], tools, {
      toolChoice: "none",
      responseFormat: { name: "answer", schema },
    });
    expect(body(0)).toEqual({
      contents: [{ role: "user", parts: [{ text: "Hi" }] }],
      systemInstruction: { parts: [{ text: "Be brief." }], role: "user" },
      tools: [{ functionDeclarations: [{ name: "lookup", description: "Looks up", parametersJsonSchema: tools[0]?.parameters }] }],
      toolConfig: { functionCallingConfig: { mode: "NONE" } },
      generationConfig: {
        temperature: 0,
        stopSequences: ["END"],
        responseMimeType: "application/json",
        responseJsonSchema: schema,
        thinkingConfig: { thinkingLevel: "LOW", includeThoughts: true },
      },
    });
  });

  test("the key: GOOGLE_API_KEY before GEMINI_API_KEY (the SDK's order); none at all is a UsageError", () => {
    const env = { GOOGLE_API_KEY: process.env.GOOGLE_API_KEY, GEMINI_API_KEY: process.env.GEMINI_API_KEY };
    try {
      process.env.GEMINI_API_KEY = "from-gemini";
      delete process.env.GOOGLE_API_KEY;
      expect(() => new GoogleModel({ model: "gemini-2.5-flash" })).not.toThrow();
      delete process.env.GEMINI_API_KEY;
      expect(() => new GoogleModel({ model: "gemini-2.5-flash" })).toThrow(
        /needs an API key: set the GEMINI_API_KEY \(or GOOGLE_API_KEY\)/,
      );
      expect(() => new GoogleModel({ model: "" })).toThrow(/needs a model id/);
      expect(() => model({ maxTokens: 0 })).toThrow(/maxTokens must be a positive whole number/);
    } finally {
      for (const [name, value] of Object.entries(env))
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
    }
  });

  test("GOOGLE_API_KEY wins over GEMINI_API_KEY on the wire", async () => {
    const env = { GOOGLE_API_KEY: process.env.GOOGLE_API_KEY, GEMINI_API_KEY: process.env.GEMINI_API_KEY };
    try {
      process.env.GOOGLE_API_KEY = "from-google";
      process.env.GEMINI_API_KEY = "from-gemini";
      server.reply(fixtureReply("google/generate-max-tokens.json"));
      await new GoogleModel({ model: "gemini-2.5-flash", baseURL: server.url }).complete(user("Hi"), []);
      expect(server.requests[0]?.headers["x-goog-api-key"]).toBe("from-google");
    } finally {
      for (const [name, value] of Object.entries(env))
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
    }
  });
});

describe("GoogleModel: errors", () => {
  test("400 INVALID_ARGUMENT: a ProviderError with status, Google's code and message; not retried", async () => {
    server.reply(fixtureReply("google/error-400-invalid-argument.json"));
    const error = await model()
      .complete(user("Hi"), [])
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({
      name: "ProviderError",
      provider: "google",
      kind: "api",
      status: 400,
      errorType: "INVALID_ARGUMENT",
      providerMessage: "Penalty is not enabled for models/gemini-2.5-flash",
      retryable: false,
      attempts: 1,
    });
    expect(server.requests).toHaveLength(1);
  });

  test("429 RESOURCE_EXHAUSTED on a stream: retryable, retried by minagent (never by the SDK), then given up", async () => {
    server.reply(fixtureReply("google/error-429-resource-exhausted.json"), fixtureReply("google/error-429-resource-exhausted.json"));
    const error = await model({ maxRetries: 1 })
      .complete(user("Hi"), [], { onEvent: () => {} })
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({ status: 429, errorType: "RESOURCE_EXHAUSTED", retryable: true, attempts: 2 });
    expect((error as Error).message).toMatch(/^google 429 RESOURCE_EXHAUSTED: You exceeded your current quota/);
    expect(server.requests.map((request) => request.path)).toEqual(
      Array(2).fill("/v1/models/gemini-2.5-pro:streamGenerateContent?alt=sse"),
    );
  });

  test("a 503 with a RetryInfo detail: retryable, with the wait it asks for", async () => {
    const retryInfo = { "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: "0.02s" };
    const unavailable = { code: 503, message: "The model is overloaded.", status: "UNAVAILABLE", details: [retryInfo] };
    server.reply({ status: 503, json: { error: unavailable } });
    const error = await model({ maxRetries: 0 })
      .complete(user("Hi"), [])
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({ status: 503, errorType: "UNAVAILABLE", retryable: true, retryAfterMs: 20 });
  });
});

describe("GoogleModel: streaming", () => {
  test("an error object inside a stream (after text was sent) is a typed ProviderError, retried when retryable", async () => {
    const text = { candidates: [{ content: { role: "model", parts: [{ text: "The " }] } }] };
    const overloaded = { error: { code: 503, message: "The model is overloaded. Please try again later.", status: "UNAVAILABLE" } };
    const broken = `data: ${JSON.stringify(text)}\r\n\r\ndata: ${JSON.stringify(overloaded)}\r\n\r\n`;
    server.reply({ sse: broken }, fixtureReply("google/stream-text.sse"));
    const events: ModelStreamEvent[] = [];
    const response = await model().complete(user("Capital of France?"), [], { onEvent: (event) => events.push(event) });
    expect(response.message.content).toBe("The capital of France is Paris.\n");
    expect(events.find((event) => event.type === "model-call-retry")).toMatchObject({
      streamed: true,
      error: { provider: "google", kind: "api", status: 503, errorType: "UNAVAILABLE", message: overloaded.error.message },
    });
  });

  test("thoughts stream as reasoning, never as text; the signature stays on the part it arrived on and goes back", async () => {
    server.reply(
      { ...fixtureReply("google/stream-thinking-thought-signature.sse"), chunkSize: 23 },
      fixtureReply("google/stream-text.sse"),
    );
    const events: ModelStreamEvent[] = [];
    const thinking = model({ thinkingConfig: { includeThoughts: true } });
    const response = await thinking.complete(user("How do I cross the street?"), [], { onEvent: (event) => events.push(event) });
    const deltas = (type: "text-delta" | "reasoning-delta") =>
      events.flatMap((event) => (event.type === type ? [event.text] : [])).join("");
    expect(response.message.content).toMatch(/^This is a great question! Safely crossing the street/);
    expect(response.message.content).not.toContain("Clarifying User Goals");
    expect(deltas("text-delta")).toBe(response.message.content);
    expect(response.message.reasoning?.map((part) => part.provider)).toEqual(["google"]);
    expect(response.message.reasoning?.[0]?.text).toMatch(/^\*\*Clarifying User Goals\*\*[\s\S]*\*\*Crafting Safe Instructions\*\*/);
    expect(deltas("reasoning-delta")).toBe(response.message.reasoning?.[0]?.text);

    const parts = (response.message.providerMetadata?.google as GoogleMessageMetadata | undefined)?.parts ?? [];
    const signature = parts[1]?.thoughtSignature;
    expect(parts).toEqual([
      { text: response.message.reasoning?.[0]?.text, thought: true },
      { text: response.message.content, thoughtSignature: signature },
    ]);
    expect(signature).toMatch(/^CiIB0e2Kb6Syj1a961EfbWv4W5C8RgAA\/hGleV9VYJtnJFh4/);
    expect(server.requests[0]?.path).toBe("/v1/models/gemini-2.5-pro:streamGenerateContent?alt=sse");

    await thinking.complete([...user("How do I cross the street?"), response.message, ...user("Thanks")], [], { onEvent: () => {} });
    expect(body(1).contents[1]).toEqual({ role: "model", parts });
    expect(server.requests[1]?.text).toContain(JSON.stringify(signature));
  });

  test("a streamed response is the same response as the one received whole (a recorded function call)", async () => {
    const sse = fixtureReply("google/stream-function-call.sse");
    const whole = JSON.parse(("sse" in sse ? sse.sse : "").replace(/^data: /, "")) as unknown;
    server.reply({ ...sse, chunkSize: 11 }, { json: whole });
    const events: ModelStreamEvent[] = [];
    const streamed = await model().complete(user("Capital of France?"), [], { onEvent: (event) => events.push(event) });
    const received = await model().complete(user("Capital of France?"), []);
    const id = streamed.message.toolCalls?.[0]?.id;
    const withoutIds = (response: typeof streamed) => ({
      ...response,
      message: { ...response.message, toolCalls: response.message.toolCalls?.map((call) => ({ ...call, id: "" })) },
    });
    expect(withoutIds(streamed)).toEqual(withoutIds(received));
    expect(streamed).toMatchObject({ stopReason: "tool_use", usage: { inputTokens: 52, outputTokens: 5 } });
    expect(events).toEqual([
      { type: "tool-input-start", index: 0, id, name: "get_capital" },
      { type: "tool-input-delta", index: 0, argumentsDelta: '{"country":"France"}' },
      { type: "tool-input-end", index: 0, toolCall: { id, name: "get_capital", arguments: { country: "France" } } },
      { type: "usage", usage: { inputTokens: 52, outputTokens: 5 } },
    ]);
  });

  test("a stream that ends before a finishReason is an incomplete stream, retried", async () => {
    const sse = fixtureReply("google/stream-text.sse");
    const text = "sse" in sse ? sse.sse : "";
    const cut = text.slice(0, text.indexOf("\r\n\r\n") + 4);
    server.reply({ sse: cut }, sse);
    const response = await model().complete(user("Capital of France?"), [], { onEvent: () => {} });
    expect(response.message.content).toBe("The capital of France is Paris.\n");
    expect(response.usage).toEqual({ inputTokens: 13, outputTokens: 8 });
    server.reply({ sse: cut });
    const error = await model({ maxRetries: 0 })
      .complete(user("Capital of France?"), [], { onEvent: () => {} })
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({ kind: "incomplete_stream", retryable: true, providerMessage: "the stream ended before a finishReason" });
  });
});

describe("GoogleModel: a connection that fails names the URL and what set it", () => {
  async function closedPortURL(): Promise<string> {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    return `http://127.0.0.1:${port}`;
  }

  test.each([
    ["the baseURL option", false],
    ["GOOGLE_GEMINI_BASE_URL", true],
  ])("set by %s", async (setBy, fromVariable) => {
    const url = await closedPortURL();
    vi.stubEnv("GOOGLE_GEMINI_BASE_URL", fromVariable ? url : "");
    try {
      const refused = new GoogleModel({ model: "gemini-test", apiKey: "k", maxRetries: 0, ...(!fromVariable && { baseURL: url }) });
      const error = await refused.complete(user("Hi"), []).catch((caught: unknown) => caught);
      expect(error).toMatchObject({ provider: "google", kind: "connection", retryable: true });
      expect((error as { providerMessage: string }).providerMessage).toBe(
        `the connection to ${url} (set by ${setBy}) failed: ECONNREFUSED (connection refused; nothing is listening at that address and port)`,
      );
    } finally {
      vi.unstubAllEnvs();
    }
  });
});
