import { describe, expect, test } from "vitest";
import type { Message, ModelResponse, ModelStreamEvent, ToolSchema } from "../../../src/core/types.js";
import { ProviderError } from "../../../src/models/provider-error.js";
import type { WireResponse } from "../../../src/testing/wire-server.js";
import { encodeBedrockEvents } from "../../helpers/bedrock-event-stream.js";
import { fixtureReply, fixtureText } from "../../helpers/provider-fixtures.js";
import { useBedrockServer } from "./bedrock-harness.js";

const bedrock = useBedrockServer();
const user: Message[] = [{ role: "user", content: "Hello" }];
const eventStream = { "content-type": "application/vnd.amazon.eventstream" };

/** The recorded events of a stream, decoded independently of the adapter (one JSON object per line). */
function recordedEvents(name: string): Record<string, Record<string, unknown>>[] {
  return fixtureText(`bedrock/${name}.events.jsonl`)
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as Record<string, Record<string, unknown>>);
}
const deltas = (name: string) =>
  recordedEvents(name).flatMap((event) => (event.contentBlockDelta ? [event.contentBlockDelta.delta as Record<string, unknown>] : []));

async function stream(model = bedrock.model(), messages: Message[] = user, tools: ToolSchema[] = []) {
  const events: ModelStreamEvent[] = [];
  const response = await model.complete(messages, tools, { onEvent: (event) => events.push(event) });
  const texts = (type: "text-delta" | "reasoning-delta") => events.flatMap((event) => (event.type === type ? [event.text] : []));
  return { response, events, text: texts("text-delta").join(""), reasoning: texts("reasoning-delta").join("") };
}

async function failure(promise: Promise<unknown>): Promise<ProviderError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(ProviderError);
  return error as ProviderError;
}

describe("BedrockModel streaming: the recorded event streams, byte for byte, split anywhere", () => {
  test.each([1, 7, 100_000])("text in %i-byte pieces: deltas, the whole text, end_turn, the metadata's usage", async (chunkSize) => {
    bedrock.server.reply(fixtureReply("bedrock/stream-text.eventstream", { chunkSize }));
    const { response, text, events } = await stream(bedrock.model({ model: "us.amazon.nova-micro-v1:0" }));
    const expected = deltas("stream-text")
      .map((delta) => delta.text)
      .join("");
    expect(expected.length).toBeGreaterThan(100);
    expect(response.message.content).toBe(expected);
    expect(text).toBe(expected);
    const metadata = recordedEvents("stream-text").find((event) => event.metadata)?.metadata as {
      usage: { inputTokens: number; outputTokens: number };
    };
    expect(response).toMatchObject({
      stopReason: "end_turn",
      usage: { inputTokens: metadata.usage.inputTokens, outputTokens: metadata.usage.outputTokens },
    });
    expect(events.at(-1)).toEqual({ type: "usage", usage: response.usage });
    expect(bedrock.server.requests[0]?.path).toBe("/model/us.amazon.nova-micro-v1%3A0/converse-stream");
  });

  test("reasoning text and signature: reasoning-deltas, never in the text; sent back unchanged on the next turn", async () => {
    bedrock.server.reply(
      fixtureReply("bedrock/stream-reasoning-signature.eventstream", { chunkSize: 13 }),
      fixtureReply("bedrock/converse-text.json"),
    );
    const model = bedrock.model({ additionalModelRequestFields: { thinking: { type: "enabled", budget_tokens: 1024 } } });
    const { response, text, reasoning } = await stream(model);
    const recorded = deltas("stream-reasoning-signature");
    const thought = recorded.map((delta) => (delta.reasoningContent as { text?: string } | undefined)?.text ?? "").join("");
    const signature = recorded.flatMap((delta) => (delta.reasoningContent as { signature?: string } | undefined)?.signature ?? []).join("");
    const answer = recorded.map((delta) => delta.text ?? "").join("");
    expect(signature.length).toBeGreaterThan(100);
    expect(response.message.reasoning).toEqual([{ text: thought, signature, provider: "bedrock" }]);
    expect(reasoning).toBe(thought);
    expect(response.message.content).toBe(answer);
    expect(text).toBe(answer);

    await model.complete(JSON.parse(JSON.stringify([...user, response.message, { role: "user", content: "More?" }])) as Message[], []);
    const sent = bedrock.sentBody<{ messages: { role: string; content: unknown[] }[] }>(1);
    expect(sent.messages[1]).toEqual({
      role: "assistant",
      content: [{ reasoningContent: { reasoningText: { text: thought, signature } } }, { text: answer }],
    });
  });

  test("redacted reasoning: the bytes kept as the base64 received, and sent back as the same base64", async () => {
    bedrock.server.reply(
      fixtureReply("bedrock/stream-redacted-reasoning.eventstream", { chunkSize: 64 }),
      fixtureReply("bedrock/converse-text.json"),
    );
    const model = bedrock.model();
    const { response, reasoning } = await stream(model);
    const redacted = deltas("stream-redacted-reasoning").flatMap(
      (delta) => (delta.reasoningContent as { redactedContent?: string } | undefined)?.redactedContent ?? [],
    );
    expect(redacted).toHaveLength(2);
    expect(response.message.reasoning).toEqual(redacted.map((redactedData) => ({ text: "", redactedData, provider: "bedrock" })));
    expect(reasoning).toBe("");
    expect(response.message.content).toMatch(/^I notice you've sent what appears to be/);

    await model.complete(JSON.parse(JSON.stringify([...user, response.message, { role: "user", content: "Ok" }])) as Message[], []);
    const sent = bedrock.sentBody<{ messages: { content: unknown[] }[] }>(1);
    expect(sent.messages[1]?.content).toEqual([
      ...redacted.map((redactedContent) => ({ reasoningContent: { redactedContent } })),
      { text: response.message.content },
    ]);
  });
});

describe("BedrockModel streaming: the same response as without streaming", () => {
  const signature = "c2lnbmF0dXJlLW9mLXRoZS10aG91Z2h0";
  const content = [
    { reasoningContent: { reasoningText: { text: "The user wants the weather in Paris.", signature } } },
    { text: "Let me check." },
    { toolUse: { toolUseId: "tooluse_a1", name: "weather", input: { city: "Paris", days: 2 } } },
    { toolUse: { toolUseId: "tooluse_b2", name: "weather", input: { city: "Lyon" } } },
  ];
  const usage = { inputTokens: 120, outputTokens: 45, cacheReadInputTokens: 100, cacheWriteInputTokens: 0, totalTokens: 265 };
  const events = [
    { messageStart: { role: "assistant", p: "abc" } },
    { contentBlockDelta: { contentBlockIndex: 0, delta: { reasoningContent: { text: "The user wants " } } } },
    { contentBlockDelta: { contentBlockIndex: 0, delta: { reasoningContent: { text: "the weather in Paris." } } } },
    { contentBlockDelta: { contentBlockIndex: 0, delta: { reasoningContent: { signature } } } },
    { contentBlockStop: { contentBlockIndex: 0 } },
    { contentBlockDelta: { contentBlockIndex: 1, delta: { text: "Let me " } } },
    { contentBlockDelta: { contentBlockIndex: 1, delta: { text: "check." } } },
    { contentBlockStop: { contentBlockIndex: 1 } },
    { contentBlockStart: { contentBlockIndex: 2, start: { toolUse: { toolUseId: "tooluse_a1", name: "weather" } } } },
    { contentBlockDelta: { contentBlockIndex: 2, delta: { toolUse: { input: '{"city":"Par' } } } },
    { contentBlockDelta: { contentBlockIndex: 2, delta: { toolUse: { input: 'is","days":2}' } } } },
    { contentBlockStop: { contentBlockIndex: 2 } },
    { contentBlockStart: { contentBlockIndex: 3, start: { toolUse: { toolUseId: "tooluse_b2", name: "weather" } } } },
    { contentBlockDelta: { contentBlockIndex: 3, delta: { toolUse: { input: '{"city":"Lyon"}' } } } },
    { contentBlockStop: { contentBlockIndex: 3 } },
    { messageStop: { stopReason: "tool_use" } },
    { metadata: { usage, metrics: { latencyMs: 10 } } },
  ];

  test("reasoning, text and two parallel calls: equal responses; tool-input events carry the calls", async () => {
    bedrock.server.reply(
      { json: { output: { message: { role: "assistant", content } }, stopReason: "tool_use", usage } },
      { bytes: encodeBedrockEvents(events), chunkSize: 11, headers: eventStream },
    );
    const whole: ModelResponse = await bedrock.model().complete(user, []);
    const streamed = await stream();
    expect(streamed.response).toEqual(whole);
    expect(whole).toMatchObject({
      stopReason: "tool_use",
      usage: { inputTokens: 220, outputTokens: 45, cacheReadTokens: 100, cacheWriteTokens: 0 },
    });
    expect(whole.message.toolCalls?.map((call) => call.arguments)).toEqual([{ city: "Paris", days: 2 }, { city: "Lyon" }]);
    const toolEvents = streamed.events.filter((event) => event.type.startsWith("tool-input"));
    expect(toolEvents).toEqual([
      { type: "tool-input-start", index: 0, id: "tooluse_a1", name: "weather" },
      { type: "tool-input-delta", index: 0, argumentsDelta: '{"city":"Par' },
      { type: "tool-input-delta", index: 0, argumentsDelta: 'is","days":2}' },
      { type: "tool-input-start", index: 1, id: "tooluse_b2", name: "weather" },
      { type: "tool-input-delta", index: 1, argumentsDelta: '{"city":"Lyon"}' },
      { type: "tool-input-end", index: 0, toolCall: whole.message.toolCalls?.[0] },
      { type: "tool-input-end", index: 1, toolCall: whole.message.toolCalls?.[1] },
    ]);
    expect(streamed.reasoning).toBe("The user wants the weather in Paris.");
  });
});

describe("BedrockModel streaming: failures", () => {
  const started = [{ messageStart: { role: "assistant" } }, { contentBlockDelta: { contentBlockIndex: 0, delta: { text: "Hello " } } }];
  const complete = [...started, { contentBlockStop: { contentBlockIndex: 0 } }, { messageStop: { stopReason: "end_turn" } }];
  const broken = (type: string, message: string): WireResponse => ({
    bytes: encodeBedrockEvents(started, { type, message }),
    headers: eventStream,
  });

  test("a throttlingException mid-stream: ProviderError 429 ThrottlingException, retryable, and retried within maxRetries", async () => {
    bedrock.server.reply(broken("throttlingException", "Too many tokens, please wait before trying again."), {
      bytes: encodeBedrockEvents(complete),
      headers: eventStream,
    });
    const { response, events } = await stream(bedrock.model({ maxRetries: 1 }));
    expect(response.message.content).toBe("Hello ");
    expect(bedrock.server.requests).toHaveLength(2);
    expect(events.find((event) => event.type === "model-call-retry")).toMatchObject({
      attempt: 1,
      streamed: true,
      error: {
        provider: "bedrock",
        kind: "api",
        status: 429,
        errorType: "ThrottlingException",
        message: "Too many tokens, please wait before trying again.",
      },
    });

    bedrock.server.reply(broken("throttlingException", "Too many tokens"));
    const error = await failure(stream(bedrock.model({ maxRetries: 0 })));
    expect(error).toMatchObject({ provider: "bedrock", kind: "api", status: 429, errorType: "ThrottlingException", retryable: true });
  });

  test.each([
    ["modelStreamErrorException", "ModelStreamErrorException", 424, true],
    ["internalServerException", "InternalServerException", 500, true],
    ["serviceUnavailableException", "ServiceUnavailableException", 503, true],
    ["validationException", "ValidationException", 400, false],
  ])("a %s mid-stream: %s, status %i, retryable %s", async (type, errorType, status, retryable) => {
    bedrock.server.reply(broken(type, "it went wrong"));
    const error = await failure(stream(bedrock.model({ maxRetries: 0 })));
    expect(error).toMatchObject({ kind: "api", errorType, status, retryable, providerMessage: "it went wrong" });
  });

  test("a stream that ends before messageStop is an incomplete stream, retryable", async () => {
    bedrock.server.reply({ bytes: encodeBedrockEvents(started), headers: eventStream });
    const error = await failure(stream(bedrock.model({ maxRetries: 0 })));
    expect(error).toMatchObject({ kind: "incomplete_stream", retryable: true });
  });

  test("converse-stream refused before streaming (the recorded 400): ValidationException, not retried", async () => {
    bedrock.server.reply(
      fixtureReply("bedrock/error-400-converse-stream-invalid-model-identifier.json", {
        headers: { "x-amzn-errortype": "ValidationException" },
      }),
    );
    const error = await failure(stream(bedrock.model({ model: "us.does-not-exist-model-v1:0" })));
    expect(error).toMatchObject({
      status: 400,
      errorType: "ValidationException",
      retryable: false,
      providerMessage: "The provided model identifier is invalid.",
    });
    expect(bedrock.server.requests).toHaveLength(1);
  });
});
