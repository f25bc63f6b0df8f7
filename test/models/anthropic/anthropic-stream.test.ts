import Anthropic from "@anthropic-ai/sdk";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import type { ModelStreamEvent } from "../../../src/core/types.js";
import { AnthropicModel, convertAnthropicResponse } from "../../../src/models/anthropic/index.js";
import { startWireServer, type WireServer } from "../../../src/testing/wire-server.js";
import { fixtureReply } from "../../helpers/provider-fixtures.js";

let server: WireServer;
beforeEach(async () => {
  server = await startWireServer();
});
afterEach(() => server.close());

const streams = [
  "anthropic/stream-tool-use-input-json-delta.sse",
  "anthropic/stream-tool-use-parallel-empty-input.sse",
  "anthropic/stream-thinking-signature-delta.sse",
  "anthropic/stream-thinking-haiku-4-5.sse",
  "anthropic/stream-redacted-thinking.sse",
  "anthropic/stream-stop-sequence.sse",
  "anthropic/stream-refusal.sse",
  "anthropic/stream-pause-turn-web-search.sse",
  "anthropic/stream-max-tokens-text.chunks.jsonl",
];

async function streamed(fixture: string, chunkSize?: number) {
  server.reply(fixtureReply(fixture, chunkSize === undefined ? {} : { chunkSize }));
  const events: ModelStreamEvent[] = [];
  const model = new AnthropicModel({ model: "claude-test", apiKey: "test", baseURL: server.url });
  const response = await model.complete([{ role: "user", content: "hi" }], [], { onEvent: (event) => events.push(event) });
  return { response, events };
}

describe("Anthropic streams", () => {
  test.each(streams)("%s: the same response as the SDK's own stream accumulator, converted as a whole message", async (fixture) => {
    const { response } = await streamed(fixture);
    server.reply(fixtureReply(fixture));
    const client = new Anthropic({ apiKey: "test", baseURL: server.url, maxRetries: 0 });
    const accumulated = await client.messages
      .stream({ model: "claude-test", max_tokens: 16, messages: [{ role: "user", content: "hi" }] })
      .finalMessage();
    expect(response).toEqual(convertAnthropicResponse(accumulated));
  });

  test.each(streams)("%s: re-chunked at arbitrary byte boundaries, the same response and events", async (fixture) => {
    const whole = await streamed(fixture);
    // The 256 KB pause_turn stream in 1-byte pieces would take seconds; odd sizes still split its frames anywhere.
    for (const size of fixture.includes("pause-turn") ? [997, 4093] : [3, 7]) expect(await streamed(fixture, size)).toEqual(whole);
  });

  test.each(streams)("%s: the events add up to the response", async (fixture) => {
    const { response, events } = await streamed(fixture, 64);
    const join = (type: "text-delta" | "reasoning-delta") => events.flatMap((event) => (event.type === type ? [event.text] : [])).join("");
    expect(join("text-delta")).toBe(response.message.content);
    expect(join("reasoning-delta")).toBe((response.message.reasoning ?? []).map((part) => part.text).join(""));
    const calls = response.message.toolCalls ?? [];
    expect(events.flatMap((event) => (event.type === "tool-input-end" ? [event.toolCall] : []))).toEqual(calls);
    for (const [index, call] of calls.entries()) {
      const deltas = events
        .flatMap((event) => (event.type === "tool-input-delta" && event.index === index ? [event.argumentsDelta] : []))
        .join("");
      expect(deltas === "" ? {} : JSON.parse(deltas)).toEqual(call.arguments);
    }
    expect(events.filter((event) => event.type === "usage")).toEqual(response.usage ? [{ type: "usage", usage: response.usage }] : []);
  });
});
