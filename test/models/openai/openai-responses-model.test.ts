import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { Agent } from "../../../src/core/agent.js";
import type { Message, ModelStreamEvent } from "../../../src/core/types.js";
import { OpenAIResponsesModel, type OpenAIResponsesModelOptions } from "../../../src/models/openai/index.js";
import { startWireServer, type WireServer } from "../../../src/testing/wire-server.js";
import { ToolRegistry } from "../../../src/tools/tool-registry.js";
import { fixtureJson, fixtureReply, fixtureText } from "../../helpers/provider-fixtures.js";
import { responsesOutput, responsesResponse, responsesStream } from "../../helpers/wire-bodies.js";

type Item = { type: string; id?: string; call_id?: string; encrypted_content?: string; [field: string]: unknown };
type RecordedResponse = { output: Item[]; usage: { input_tokens: number; output_tokens: number } };
type ResponsesBody = {
  model: string;
  instructions?: string;
  input: Item[];
  tools?: unknown[];
  store?: boolean;
  stream?: boolean;
  max_output_tokens?: number;
};

let server: WireServer;
beforeEach(async () => {
  server = await startWireServer();
});
afterEach(() => server.close());

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
const body = (index: number) => server.requests[index]?.body as ResponsesBody;
const reasoningFixture = "openai-responses/responses-reasoning-summary-encrypted.json";

function capitalTools() {
  return new ToolRegistry().add({
    name: "get_capital",
    description: "The capital of a country",
    parameters: { type: "object", properties: { country: { type: "string" } }, required: ["country"] },
    execute: ({ country }) => (country === "France" ? "Paris" : "Potato City"),
  });
}

function collect() {
  const events: ModelStreamEvent[] = [];
  const joined = (type: "text-delta" | "reasoning-delta") => events.flatMap((event) => (event.type === type ? [event.text] : [])).join("");
  return { events, onEvent: (event: ModelStreamEvent) => events.push(event), joined };
}

describe("OpenAIResponsesModel: text and tool calls", () => {
  test("text: content, end_turn, usage; the request is model, input and store: false, sent to /v1/responses", async () => {
    server.reply(fixtureReply("openai-responses/responses-text.json"));
    const response = await model().complete([{ role: "user", content: "What is the capital of France?" }], []);
    expect(response).toMatchObject({
      message: { role: "assistant", content: "The capital of France is Paris." },
      stopReason: "end_turn",
      usage: { inputTokens: 14, outputTokens: 8, cacheReadTokens: 0, reasoningTokens: 0 },
    });
    expect(server.requests[0]?.path).toBe("/v1/responses");
    expect(body(0)).toEqual({ model: "gpt-test", input: [{ role: "user", content: "What is the capital of France?" }], store: false });
  });

  test("a tool round trip: the call's id is its call_id, the result answers it as function_call_output, the call goes back as received", async () => {
    server.reply(
      fixtureReply("openai-responses/responses-function-call.json"),
      fixtureReply("openai-responses/responses-text-after-function-call.json"),
    );
    const result = await new Agent(model(), capitalTools(), { system: "You answer briefly." }).run("What is the capital of PotatoLand?");
    const call = fixtureJson<RecordedResponse>("openai-responses/responses-function-call.json").output[0] as Item;
    expect(result.final).toBe("The capital of PotatoLand is Potato City.");
    expect(result.messages[2]?.toolCalls).toEqual([
      { id: "call_YfwRsW8sUxDKipwyhWTzOXCA", name: "get_capital", arguments: { country: "PotatoLand" } },
    ]);
    expect(result.usage).toMatchObject({ inputTokens: 40 + 67, outputTokens: 18 + 11 });

    expect(body(0).instructions).toBe("You answer briefly.");
    expect(body(0).tools).toEqual([
      {
        type: "function",
        name: "get_capital",
        description: "The capital of a country",
        parameters: { type: "object", properties: { country: { type: "string" } }, required: ["country"] },
        strict: false,
      },
    ]);
    expect(body(1).input).toEqual([
      { role: "user", content: "What is the capital of PotatoLand?" },
      call,
      { type: "function_call_output", call_id: "call_YfwRsW8sUxDKipwyhWTzOXCA", output: "Potato City" },
    ]);
    expect(server.requests[1]?.text).toContain(JSON.stringify(call));
  });

  test("parallel calls: both run, each result answers its own call_id, in order", async () => {
    server.reply(fixtureReply("openai-responses/responses-function-calls-parallel.json"), {
      json: responsesResponse(responsesOutput("Found both.", [])),
    });
    const looked: string[] = [];
    const tools = new ToolRegistry().add({
      name: "get_location",
      description: "Where a place is",
      parameters: { type: "object", properties: { loc_name: { type: "string" } } },
      execute: ({ loc_name }) => {
        looked.push(String(loc_name));
        return `${String(loc_name)}: 51.5N`;
      },
    });
    const result = await new Agent(model(), tools).run("Where are Londos and London?");
    expect(looked).toEqual(["Londos", "London"]);
    expect(result.messages[1]?.toolCalls?.map((call) => call.id)).toEqual([
      "call_LWVp74L5HaH2KNvgVz9PJsrj",
      "call_YnRAWeTyxI91m5uNa5bxXwVO",
    ]);
    expect(body(1).input.filter((item) => item.type === "function_call_output")).toEqual([
      { type: "function_call_output", call_id: "call_LWVp74L5HaH2KNvgVz9PJsrj", output: "Londos: 51.5N" },
      { type: "function_call_output", call_id: "call_YnRAWeTyxI91m5uNa5bxXwVO", output: "London: 51.5N" },
    ]);
  });

  test("a later system message is a developer item where it stands; the leading ones are the instructions", async () => {
    server.reply({ json: responsesResponse(responsesOutput("ok", [])) });
    await model().complete(
      [
        { role: "system", content: "Be brief." },
        { role: "system", content: "Use metric units." },
        { role: "user", content: "hi" },
        { role: "assistant", content: "Hello." },
        { role: "system", content: "The user is in a hurry." },
        { role: "user", content: "weather?" },
      ],
      [],
    );
    expect(body(0).instructions).toBe("Be brief.\n\nUse metric units.");
    expect(body(0).input).toEqual([
      { role: "user", content: "hi" },
      { role: "assistant", content: "Hello." },
      { role: "developer", content: "The user is in a hurry." },
      { role: "user", content: "weather?" },
    ]);
  });
});

describe("OpenAIResponsesModel: reasoning items go back unchanged", () => {
  test("the summary is readable reasoning (never content); on turn 2 the reasoning and message items are sent back byte for byte, in order", async () => {
    const recorded = fixtureJson<RecordedResponse>(reasoningFixture);
    server.reply(fixtureReply(reasoningFixture), { json: responsesResponse(responsesOutput("Use math.factorial.", [])) });
    const openai = model({ reasoning: { effort: "high", summary: "auto" } });
    const first = await openai.complete([{ role: "user", content: "Write a factorial function." }], []);
    const summary = ((recorded.output[0]?.summary ?? []) as { text: string }[])[0]?.text ?? "";
    expect(summary).not.toBe("");
    expect(first.message.reasoning).toEqual([{ text: summary, provider: "openai" }]);
    expect(first.message.content).toMatch(/^```python\ndef factorial/);
    expect(first.message.content).not.toContain(summary.slice(0, 40));
    expect(first.usage).toMatchObject({ inputTokens: 34, outputTokens: 226, reasoningTokens: 59 });
    expect(body(0)).toMatchObject({
      reasoning: { effort: "high", summary: "auto" },
      include: ["reasoning.encrypted_content"],
      store: false,
    });

    // The message goes through JSON (a saved session) before the next turn.
    const history: Message[] = JSON.parse(JSON.stringify([{ role: "user", content: "Write a factorial function." }, first.message]));
    await openai.complete([...history, { role: "user", content: "Anything simpler?" }], []);
    expect(body(1).input).toEqual([
      { role: "user", content: "Write a factorial function." },
      ...recorded.output,
      { role: "user", content: "Anything simpler?" },
    ]);
    const [reasoning, message] = recorded.output.map((item) => JSON.stringify(item));
    expect(server.requests[1]?.text).toContain(`${reasoning},${message}`);
  });

  test("an edited message is rebuilt from its fields, without the reasoning item (which may not go back without its follower)", async () => {
    server.reply(fixtureReply(reasoningFixture), { json: responsesResponse(responsesOutput("ok", [])) });
    const openai = model({ reasoning: { effort: "high" } });
    const first = await openai.complete(user, []);
    const edited: Message = { ...first.message, content: "A shorter answer." };
    await openai.complete([...user, edited, { role: "user", content: "more" }], []);
    expect(body(1).input).toEqual([...user, { role: "assistant", content: "A shorter answer." }, { role: "user", content: "more" }]);
  });

  test("without store, a reasoning item that came without encrypted_content cannot go back: the message is rebuilt", async () => {
    const recorded = fixtureJson<RecordedResponse>(reasoningFixture);
    const { encrypted_content: _, ...withoutEncrypted } = recorded.output[0] as Item;
    server.reply(
      { json: { ...recorded, output: [withoutEncrypted, recorded.output[1]] } },
      { json: responsesResponse(responsesOutput("ok", [])) },
    );
    const openai = model();
    const first = await openai.complete(user, []);
    await openai.complete([...user, first.message], []);
    expect(body(1).input).toEqual([...user, { role: "assistant", content: first.message.content }]);
    expect(body(0)).not.toHaveProperty("include"); // no reasoning option: the model may not be a reasoning one
  });

  test.each([
    ["gpt-5", {}, true],
    ["gpt-5-mini-2025-08-07", {}, true],
    ["o4-mini", {}, true],
    ["gpt-5-chat-latest", {}, false],
    ["gpt-4.1", {}, false],
    ["gpt-4.1", { reasoning: { effort: "low" as const } }, true],
    ["gpt-5", { includeReasoning: false }, false],
    ["gpt-5", { store: true }, false],
  ])("%s %j asks for the encrypted reasoning: %s", (id, settings, asked) => {
    const request = new OpenAIResponsesModel({ model: id, apiKey: "test", baseURL: `${server.url}/v1`, ...settings }).createRequest(
      user,
      [],
    );
    if (asked) expect(request.include).toEqual(["reasoning.encrypted_content"]);
    else expect(request).not.toHaveProperty("include");
  });

  test("another provider's assistant message is rebuilt, its reasoning dropped", async () => {
    server.reply({ json: responsesResponse(responsesOutput("ok", [])) });
    const foreign: Message = {
      role: "assistant",
      content: "",
      reasoning: [{ text: "thinking", signature: "sig", provider: "anthropic" }],
      toolCalls: [{ id: "toolu_1", name: "get_capital", arguments: { country: "France" } }],
      providerMetadata: { anthropic: { content: [] } },
    };
    await model().complete([...user, foreign, { role: "tool", toolCallId: "toolu_1", content: "Paris" }], []);
    expect(body(0).input).toEqual([
      ...user,
      { type: "function_call", call_id: "toolu_1", name: "get_capital", arguments: '{"country":"France"}' },
      { type: "function_call_output", call_id: "toolu_1", output: "Paris" },
    ]);
  });
});

describe("OpenAIResponsesModel: stop reasons", () => {
  test("a refusal part is the visible answer, with stop reason refusal, streamed or not", async () => {
    const refusal = "I'm sorry, I can't help with that.";
    const response = responsesResponse([
      { type: "message", id: "msg_r", status: "completed", role: "assistant", content: [{ type: "refusal", refusal }] },
    ]);
    server.reply({ json: response }, { sse: responsesStream(response), chunkSize: 11 });
    const whole = await model().complete(user, []);
    expect(whole).toMatchObject({ message: { content: refusal }, stopReason: "refusal" });
    const stream = collect();
    expect(await model().complete(user, [], { onEvent: stream.onEvent })).toEqual(whole);
    expect(stream.joined("text-delta")).toBe(refusal);
  });

  test("incomplete at max_output_tokens is max_tokens, and a call cut off says so; content_filter is a refusal", async () => {
    const cut = responsesOutput("", [{ name: "get_capital", arguments: { country: "Fr" } }]).map((item) => ({
      ...item,
      arguments: '{"country":"Fr',
      status: "incomplete",
    }));
    server.reply(
      { json: responsesResponse(cut, { incompleteReason: "max_output_tokens" }) },
      { json: responsesResponse(responsesOutput("Partial", []), { incompleteReason: "content_filter" }) },
    );
    const limited = await model({ maxTokens: 5 }).complete(user, []);
    expect(limited.stopReason).toBe("max_tokens");
    expect(limited.message.toolCalls?.[0]?.argumentsError).toMatch(/output token limit/);
    expect(body(0).max_output_tokens).toBe(5);
    expect((await model().complete(user, [])).stopReason).toBe("refusal");
  });
});

describe("OpenAIResponsesModel: streaming", () => {
  test("a recorded function-call stream: tool-input events by call_id, the same response as the completed one received whole", async () => {
    const sse = fixtureText("openai-responses/stream-function-call.sse");
    const completed = JSON.parse(/event: response\.completed\ndata: (.*)\n/.exec(sse)?.[1] ?? "{}") as { response: unknown };
    server.reply(fixtureReply("openai-responses/stream-function-call.sse", { chunkSize: 7 }), { json: completed.response });
    const stream = collect();
    const streamed = await model().complete(user, [], { onEvent: stream.onEvent });
    expect(streamed).toEqual(await model().complete(user, []));
    expect(streamed.message.toolCalls).toEqual([
      { id: "call_kL0PCQV7M2WMoVX8V8OtYSAL", name: "get_capital", arguments: { country: "France" } },
    ]);
    expect(streamed.stopReason).toBe("tool_use");
    expect(stream.events.find((event) => event.type === "tool-input-start")).toEqual({
      type: "tool-input-start",
      index: 0,
      id: "call_kL0PCQV7M2WMoVX8V8OtYSAL",
      name: "get_capital",
    });
    const deltas = stream.events.flatMap((event) => (event.type === "tool-input-delta" ? [event.argumentsDelta] : []));
    expect(deltas.join("")).toBe('{"country":"France"}');
    expect(stream.events.slice(-2)).toEqual([
      { type: "tool-input-end", index: 0, toolCall: streamed.message.toolCalls?.[0] },
      { type: "usage", usage: { inputTokens: 255, outputTokens: 16, cacheReadTokens: 0, reasoningTokens: 0 } },
    ]);
    expect(body(0).stream).toBe(true);
  });

  test.each([1, 3, 8, 64])("the recorded text stream re-chunked every %i bytes gives the same response", async (chunkSize) => {
    server.reply(
      fixtureReply("openai-responses/stream-text-after-function-call.sse"),
      fixtureReply("openai-responses/stream-text-after-function-call.sse", { chunkSize }),
    );
    const whole = await model().complete(user, [], { onEvent: () => {} });
    const stream = collect();
    expect(await model().complete(user, [], { onEvent: stream.onEvent })).toEqual(whole);
    expect(whole.message.content).toBe("The capital of France is Paris.");
    expect(stream.joined("text-delta")).toBe(whole.message.content);
  });

  test("reasoning streamed: summary deltas are reasoning, the final encrypted_content (output_item.done) is kept, and the response equals the whole one", async () => {
    // The recorded reasoning response, streamed as the API streams it: its item at output_item.added carries another encrypted_content.
    const recorded = fixtureJson<RecordedResponse>(reasoningFixture);
    const early = "gAAAAABpQvTk-not-the-final-encrypted-content";
    server.reply({ sse: responsesStream(recorded, { encryptedAtStart: () => early }), chunkSize: 13 }, fixtureReply(reasoningFixture));
    const stream = collect();
    const streamed = await model({ reasoning: { effort: "high", summary: "auto" } }).complete(user, [], { onEvent: stream.onEvent });
    const whole = await model({ reasoning: { effort: "high", summary: "auto" } }).complete(user, []);
    expect(streamed).toEqual(whole);
    const kept = (streamed.message.providerMetadata?.openai as { output: Item[] } | undefined)?.output[0];
    expect(kept?.encrypted_content).toBe(recorded.output[0]?.encrypted_content);
    expect(JSON.stringify(streamed.message)).not.toContain(early);
    expect(stream.joined("reasoning-delta")).toBe(streamed.message.reasoning?.[0]?.text);
    expect(stream.joined("text-delta")).toBe(streamed.message.content);
  });

  test("a stream cut before response.completed is an incomplete stream, and is retried", async () => {
    const sse = responsesStream(responsesResponse(responsesOutput("Hello there.", [])));
    server.reply({ sse: sse.slice(0, sse.indexOf("event: response.completed")) }, { sse });
    const response = await model().complete(user, [], { onEvent: () => {} });
    expect(response.message.content).toBe("Hello there.");
    expect(server.requests).toHaveLength(2);
  });
});
