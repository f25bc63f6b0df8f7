import Anthropic from "@anthropic-ai/sdk";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { Agent } from "../../../src/core/agent.js";
import type { Message, StopReason } from "../../../src/core/types.js";
import { UsageError } from "../../../src/errors.js";
import {
  type AnthropicMessageMetadata,
  AnthropicModel,
  type AnthropicModelOptions,
  type AnthropicServerTool,
  convertToAnthropicMessages,
} from "../../../src/models/anthropic/index.js";
import { startWireServer, type WireServer } from "../../../src/testing/wire-server.js";
import { ToolRegistry } from "../../../src/tools/tool-registry.js";
import { fixtureJson, fixtureReply } from "../../helpers/provider-fixtures.js";
import { anthropicStream } from "../../helpers/wire-bodies.js";

type Block = Record<string, unknown>;
type AnthropicBody = { messages: { role: string; content: Block[] }[]; tools?: Block[] };

let server: WireServer;
beforeEach(async () => {
  server = await startWireServer();
});
afterEach(() => server.close());

const webSearch: AnthropicServerTool = { type: "web_search_20250305", name: "web_search", max_uses: 5 };

function model(options: Partial<AnthropicModelOptions> = {}): AnthropicModel {
  return new AnthropicModel({
    model: "claude-test",
    apiKey: "sk-ant-test-key",
    baseURL: server.url,
    retry: { baseDelayMs: 1 },
    serverTools: [webSearch],
    thinking: { budgetTokens: 4096 },
    ...options,
  });
}

const body = (index: number) => server.requests[index]?.body as AnthropicBody;
const pausedJson = "anthropic/messages-pause-turn-web-search.json";
const pausedSse = "anthropic/stream-pause-turn-web-search.sse";
const endTurn = (text: string) => ({ sse: anthropicStream([{ type: "text", text }], "end_turn") });

/** Records the stop reason of every model call of a run. */
function stopReasons() {
  const seen: StopReason[] = [];
  const onEvent = (event: { type: string; response?: { stopReason: StopReason } }) => {
    if (event.type === "model-call-end" && event.response) seen.push(event.response.stopReason);
  };
  return { seen, onEvent };
}

describe("AnthropicModel: server tools and pause_turn", () => {
  test("serverTools are sent after the agent's tools, as given, on every request", async () => {
    server.reply(fixtureReply("anthropic/messages-end-turn-text.json"));
    const registry = new ToolRegistry().add({ name: "note", description: "Notes", parameters: { type: "object" }, execute: () => "ok" });
    await new Agent(model(), registry).run("hi");
    expect(body(0).tools).toStrictEqual([
      { name: "note", description: "Notes", input_schema: { type: "object" } },
      { type: "web_search_20250305", name: "web_search", max_uses: 5 },
    ]);
    server.reply(fixtureReply("anthropic/messages-end-turn-text.json"));
    await new Agent(model(), new ToolRegistry()).run("hi");
    expect(body(1).tools).toStrictEqual([webSearch]);
  });

  test("a tool named like a server tool is refused early, before any request", async () => {
    const registry = new ToolRegistry().add({ name: "web_search", description: "Mine", parameters: { type: "object" }, execute: () => "" });
    await expect(new Agent(model(), registry).run("hi")).rejects.toThrow(UsageError);
    await expect(new Agent(model(), registry).run("hi")).rejects.toThrow(/"web_search" has the name of one of the serverTools/);
    expect(server.requests).toHaveLength(0);
  });

  test("recorded pause_turn → continue → end_turn: the paused turn goes back block for block, as received", async () => {
    const recorded = fixtureJson<{ content: Block[] }>(pausedJson);
    server.reply(fixtureReply(pausedJson), fixtureReply("anthropic/messages-end-turn-text.json"));
    const { seen, onEvent } = stopReasons();
    const result = await new Agent(model(), new ToolRegistry()).run("Run these 15 searches one at a time", { onEvent });

    expect(seen).toEqual(["pause_turn", "end_turn"]);
    expect(server.requests).toHaveLength(2);
    const continuation = body(1).messages;
    expect(continuation.map((message) => message.role)).toEqual(["user", "assistant"]);
    // thinking + signature, interleaved text, server_tool_use and encrypted web_search_tool_result blocks, in order
    expect(continuation[1]?.content).toStrictEqual(recorded.content);
    expect(new Set(recorded.content.map((block) => block.type))).toEqual(
      new Set(["thinking", "text", "server_tool_use", "web_search_tool_result"]),
    );
    expect(body(1).tools).toStrictEqual([webSearch]);
    expect(result.final).toMatch(/^Hello! I'm doing well/);
    expect(result.messages.map((message) => message.role)).toEqual(["user", "assistant", "assistant"]);
  });

  test("recorded streamed pause_turn: the continuation carries the blocks exactly as the stream delivered them", async () => {
    // The SDK's own stream accumulator is the independent account of what the stream delivered.
    server.reply(fixtureReply(pausedSse));
    const client = new Anthropic({ apiKey: "test", baseURL: server.url, maxRetries: 0 });
    const delivered = await client.messages
      .stream({ model: "claude-test", max_tokens: 16, messages: [{ role: "user", content: "hi" }] })
      .finalMessage();
    const expected = JSON.parse(JSON.stringify(delivered.content)) as Block[];
    expect(expected.filter((block) => block.type === "server_tool_use").every((block) => typeof block.input === "object")).toBe(true);

    server.reply(fixtureReply(pausedSse, { chunkSize: 4093 }), endTurn("All 15 searches are done."));
    const { seen, onEvent } = stopReasons();
    let streamedText = "";
    const result = await new Agent(model(), new ToolRegistry()).run("Run these 15 searches one at a time", {
      stream: true,
      onEvent: (event) => {
        onEvent(event);
        if (event.type === "text-delta") streamedText += event.text;
      },
    });

    expect(seen).toEqual(["pause_turn", "end_turn"]);
    expect(body(2).messages[1]?.content).toStrictEqual(expected);
    expect(result.final).toBe("All 15 searches are done.");
    expect(streamedText).toBe(`${result.messages[1]?.content}All 15 searches are done.`);
  });

  test("two pauses in a row: the continued turn is one assistant message holding both responses' blocks", async () => {
    const recorded = fixtureJson<{ content: Block[] }>(pausedJson);
    const secondPause = [
      { type: "server_tool_use", id: "srvtoolu_second", name: "web_search", input: { query: "ferry schedule" } },
      { type: "web_search_tool_result", tool_use_id: "srvtoolu_second", content: [{ type: "web_search_result", url: "https://x.test" }] },
    ];
    server.reply(
      fixtureReply(pausedJson),
      { json: { content: secondPause, stop_reason: "pause_turn", usage: { input_tokens: 1, output_tokens: 1 } } },
      fixtureReply("anthropic/messages-end-turn-text.json"),
    );
    const result = await new Agent(model(), new ToolRegistry()).run("Search");

    expect(server.requests).toHaveLength(3);
    expect(body(2).messages).toHaveLength(2);
    expect(body(2).messages[1]?.content).toStrictEqual([...recorded.content, ...secondPause]);
    // Merging the two responses into one turn did not touch what the first message keeps.
    const kept = result.messages[1]?.providerMetadata?.anthropic as AnthropicMessageMetadata;
    expect(kept.content).toHaveLength(recorded.content.length);
  });
});

describe("AnthropicModel: an assistant turn goes back in the order received", () => {
  const interleaved: Block[] = [
    { type: "thinking", thinking: "Two lookups.", signature: "EsigInterleaved0123456789" },
    { type: "text", text: "First Paris." },
    { type: "tool_use", id: "toolu_a", name: "lookup", input: { city: "Paris" } },
    { type: "text", text: " Then Rome." },
    { type: "tool_use", id: "toolu_b", name: "lookup", input: { city: "Rome" } },
  ];
  const registry = () =>
    new ToolRegistry().add({
      name: "lookup",
      description: "Looks a city up",
      parameters: { type: "object", properties: { city: { type: "string" } } },
      execute: ({ city }) => `found ${String(city)}`,
    });

  test("thinking → text → tool_use → text → tool_use comes back in that order, tool results after it", async () => {
    server.reply(
      { json: { content: interleaved, stop_reason: "tool_use", usage: { input_tokens: 1, output_tokens: 1 } } },
      fixtureReply("anthropic/messages-end-turn-text.json"),
    );
    const result = await new Agent(model(), registry()).run("Look up Paris and Rome");
    expect(result.messages[1]?.content).toBe("First Paris. Then Rome.");
    expect(body(1).messages[1]).toStrictEqual({ role: "assistant", content: interleaved });
    expect(body(1).messages[2]?.content.map((block) => block.tool_use_id)).toEqual(["toolu_a", "toolu_b"]);
  });

  test("the same history after a JSON round trip still goes back as received", async () => {
    server.reply({ json: { content: interleaved, stop_reason: "tool_use" } });
    const response = await model().complete([{ role: "user", content: "go" }], []);
    const history = JSON.parse(JSON.stringify([{ role: "user", content: "go" }, response.message])) as Message[];
    expect(convertToAnthropicMessages(history).messages[1]).toStrictEqual({ role: "assistant", content: interleaved });
  });

  test("a message changed since it was received is rebuilt from its fields, so the change is kept", async () => {
    server.reply({ json: { content: interleaved, stop_reason: "tool_use" } });
    const { message } = await model().complete([{ role: "user", content: "go" }], []);
    const rebuilt = (changed: Message) => convertToAnthropicMessages([changed]).messages[0]?.content;
    const toolUses = [
      { type: "tool_use", id: "toolu_a", name: "lookup", input: { city: "Paris" } },
      { type: "tool_use", id: "toolu_b", name: "lookup", input: { city: "Rome" } },
    ];
    expect(rebuilt({ ...message, content: "Shortened." })).toStrictEqual([
      { type: "thinking", thinking: "Two lookups.", signature: "EsigInterleaved0123456789" },
      { type: "text", text: "Shortened." },
      ...toolUses,
    ]);
    const { reasoning: _dropped, ...withoutReasoning } = message;
    expect(rebuilt(withoutReasoning)).toStrictEqual([{ type: "text", text: "First Paris. Then Rome." }, ...toolUses]);
    expect(rebuilt({ ...message, toolCalls: message.toolCalls?.slice(0, 1) ?? [] })).toHaveLength(3);
  });

  test("another provider's metadata is ignored", () => {
    const message: Message = { role: "assistant", content: "Hi", providerMetadata: { other: { content: [{ type: "secret" }] } } };
    expect(convertToAnthropicMessages([message]).messages).toStrictEqual([{ role: "assistant", content: [{ type: "text", text: "Hi" }] }]);
  });
});

describe("AnthropicModel: streamed citations", () => {
  test("citations_delta events are kept on their text block, as the SDK's accumulator keeps them, and go back", async () => {
    const citation = { type: "web_search_result_location", url: "https://x.test", title: "X", cited_text: "18 °C", encrypted_index: "Eo1" };
    const events: Block[] = [
      {
        type: "message_start",
        message: {
          id: "msg_c",
          type: "message",
          role: "assistant",
          model: "claude-test",
          content: [],
          stop_reason: null,
          usage: { input_tokens: 1, output_tokens: 1 },
        },
      },
      { type: "content_block_start", index: 0, content_block: { type: "text", text: "", citations: [] } },
      { type: "content_block_delta", index: 0, delta: { type: "citations_delta", citation } },
      { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "It is 18 °C." } },
      { type: "content_block_stop", index: 0 },
      { type: "message_delta", delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { output_tokens: 5 } },
      { type: "message_stop" },
    ];
    const sse = events.map((event) => `event: ${String(event.type)}\ndata: ${JSON.stringify(event)}\n\n`).join("");
    server.reply({ sse }, { sse });
    const client = new Anthropic({ apiKey: "test", baseURL: server.url, maxRetries: 0 });
    const delivered = await client.messages.stream({ model: "claude-test", max_tokens: 16, messages: [] }).finalMessage();
    const response = await model().complete([{ role: "user", content: "Weather?" }], [], { onEvent: () => {} });
    const sentBack = convertToAnthropicMessages([response.message]).messages[0]?.content;
    expect(sentBack).toStrictEqual(JSON.parse(JSON.stringify(delivered.content)));
    expect(sentBack).toStrictEqual([{ type: "text", text: "It is 18 °C.", citations: [citation] }]);
  });
});
