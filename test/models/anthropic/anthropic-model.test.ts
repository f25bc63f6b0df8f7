import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { Agent } from "../../../src/core/agent.js";
import type { Message, ModelStreamEvent, ToolSchema } from "../../../src/core/types.js";
import { AnthropicModel, type AnthropicModelOptions } from "../../../src/models/anthropic/index.js";
import { startWireServer, type WireServer } from "../../../src/testing/wire-server.js";
import { ToolRegistry } from "../../../src/tools/tool-registry.js";
import { fixtureJson, fixtureReply } from "../../helpers/provider-fixtures.js";

type AnthropicBody = {
  model: string;
  system?: string;
  messages: { role: string; content: Record<string, unknown>[] }[];
  tools?: unknown[];
  stream?: boolean;
  thinking?: unknown;
};

let server: WireServer;
beforeEach(async () => {
  server = await startWireServer();
});
afterEach(() => server.close());

function model(options: Partial<AnthropicModelOptions> = {}): AnthropicModel {
  return new AnthropicModel({
    model: "claude-test",
    apiKey: "sk-ant-test-key",
    baseURL: server.url,
    retry: { baseDelayMs: 1 },
    ...options,
  });
}

const user = (content: string): Message[] => [{ role: "user", content }];
const body = (index: number) => server.requests[index]?.body as AnthropicBody;

function testTool(calls: string[] = []) {
  return new ToolRegistry().add({
    name: "test_tool",
    description: "A tool for tests",
    parameters: { type: "object", properties: { value: { type: "string" } } },
    execute: ({ value }) => {
      calls.push(String(value));
      return `got ${String(value)}`;
    },
  });
}

describe("AnthropicModel: a two-turn tool loop", () => {
  test("runs a recorded tool_use turn, sends the tool_result back, and ends on end_turn", async () => {
    server.reply(
      fixtureReply("anthropic/messages-tool-use-text-then-tool.json"),
      fixtureReply("anthropic/messages-end-turn-after-tool-result.json"),
    );
    const calls: string[] = [];
    const result = await new Agent(model(), testTool(calls), { system: "Be brief." }).run("Use the test tool with value test");

    expect(calls).toEqual(["test"]);
    expect(result.final).toMatch(/^I have successfully executed the test_tool/);
    expect(result.messages.map((message) => message.role)).toEqual(["system", "user", "assistant", "tool", "assistant"]);
    expect(result.usage).toEqual({ inputTokens: 415 + 505, outputTokens: 76 + 41, cacheReadTokens: 0, cacheWriteTokens: 0 });

    const first = body(0);
    expect(first.system).toBe("Be brief.");
    expect(first.tools).toEqual([
      { name: "test_tool", description: "A tool for tests", input_schema: { type: "object", properties: { value: { type: "string" } } } },
    ]);
    expect(first.messages).toEqual([{ role: "user", content: [{ type: "text", text: "Use the test tool with value test" }] }]);
    expect(body(1).messages.slice(1)).toEqual([
      {
        role: "assistant",
        content: [
          { type: "text", text: 'I\'ll use the test_tool with the value "test" as requested, then provide a final response.' },
          { type: "tool_use", id: "toolu_011LF2VkWpAfJnTKJcmh1PNf", name: "test_tool", input: { value: "test" } },
        ],
      },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_011LF2VkWpAfJnTKJcmh1PNf", content: "got test" }] },
    ]);
  });

  test("the same loop streamed: events arrive as the text and arguments do, and the run ends the same way", async () => {
    server.reply(
      fixtureReply("anthropic/stream-tool-use-input-json-delta.sse", { chunkSize: 5 }),
      fixtureReply("anthropic/stream-stop-sequence.sse"),
    );
    const registry = new ToolRegistry().add({
      name: "get_weather",
      description: "Weather of a place",
      parameters: { type: "object", properties: { location: { type: "string" } }, required: ["location"] },
      execute: ({ location }) => `sunny in ${String(location)}`,
    });
    const events: string[] = [];
    const result = await new Agent(model(), registry).run("Weather in Paris?", {
      stream: true,
      onEvent: (event) => {
        if (event.type === "tool-input-delta") events.push(`delta ${event.argumentsDelta}`);
        if (event.type === "tool-input-start") events.push(`start ${event.name}`);
        if (event.type === "tool-input-end") events.push(`end ${JSON.stringify(event.toolCall.arguments)}`);
        if (event.type === "tool-call-end") events.push(`result ${event.result.content}`);
      },
    });
    expect(events).toEqual([
      "start get_weather",
      'delta {"locati',
      'delta on": "P',
      "delta ar",
      'delta is"}',
      'end {"location":"Paris"}',
      "result sunny in Paris",
    ]);
    expect(body(0).stream).toBe(true);
    expect(body(1).messages[2]).toEqual({
      role: "user",
      content: [{ type: "tool_result", tool_use_id: "toolu_01NRLabsLyVHZPKxbKvkfSMn", content: "sunny in Paris" }],
    });
    expect(result.messages.at(-1)?.role).toBe("assistant");
  });

  test("an error observation is sent as a tool_result with is_error", async () => {
    server.reply(
      fixtureReply("anthropic/messages-tool-use-text-then-tool.json"),
      fixtureReply("anthropic/messages-end-turn-after-tool-result.json"),
    );
    const registry = new ToolRegistry().add({
      name: "test_tool",
      description: "fails",
      parameters: { type: "object" },
      execute: () => {
        throw new Error("disk full");
      },
    });
    await new Agent(model(), registry).run("go");
    expect(body(1).messages[2]?.content).toEqual([
      { type: "tool_result", tool_use_id: "toolu_011LF2VkWpAfJnTKJcmh1PNf", content: "Error: disk full", is_error: true },
    ]);
  });
});

describe("AnthropicModel: extended thinking", () => {
  const weatherTool: ToolSchema[] = [{ name: "get_user_country", description: "The user's country", parameters: { type: "object" } }];

  test("thinking blocks go to reasoning (never content) and return on the next request exactly as received", async () => {
    const recorded = fixtureJson<{ content: Record<string, unknown>[] }>("anthropic/messages-tool-use-after-thinking.json");
    server.reply(fixtureReply("anthropic/messages-tool-use-after-thinking.json"), fixtureReply("anthropic/messages-end-turn-text.json"));
    const registry = new ToolRegistry().add({
      name: "get_user_country",
      description: "The user's country",
      parameters: { type: "object" },
      execute: () => "France",
    });
    const result = await new Agent(model({ thinking: { budgetTokens: 1024 } }), registry).run("Largest city in my country?");

    const assistant = result.messages[1] as Message;
    expect(assistant.content).toBe(
      "I'll help you find the largest city in your country. First, let me determine which country you're from.",
    );
    expect(assistant.reasoning).toEqual([
      { text: recorded.content[0]?.thinking, signature: recorded.content[0]?.signature, provider: "anthropic" },
    ]);
    expect(body(0).thinking).toEqual({ type: "enabled", budget_tokens: 1024 });
    const sentBack = body(1).messages[1];
    expect(sentBack?.role).toBe("assistant");
    expect(sentBack?.content[0]).toEqual(recorded.content[0]); // thinking + signature, byte for byte
    expect(sentBack?.content.slice(1)).toEqual(recorded.content.slice(1));
  });

  test("a redacted_thinking block returns unchanged, also when the history went through JSON", async () => {
    const recorded = fixtureJson<{ content: Record<string, unknown>[] }>("anthropic/messages-redacted-thinking.json");
    server.reply(fixtureReply("anthropic/messages-redacted-thinking.json"), fixtureReply("anthropic/messages-end-turn-text.json"));
    const agent = new Agent(model({ thinking: { budgetTokens: 1024 } }), new ToolRegistry());
    const first = await agent.run("ANTHROPIC_MAGIC_STRING_TRIGGER_REDACTED_THINKING");
    expect(first.messages[1]?.reasoning).toEqual([{ text: "", redactedData: recorded.content[0]?.data, provider: "anthropic" }]);
    expect(first.final).not.toContain("EvgF");

    const history = JSON.parse(JSON.stringify(first.messages)) as Message[];
    await agent.run("And now?", { history });
    expect(body(1).messages[1]).toEqual({ role: "assistant", content: recorded.content });
  });

  test.each([
    ["anthropic/stream-thinking-signature-delta.sse", 1],
    ["anthropic/stream-thinking-haiku-4-5.sse", 1],
    ["anthropic/stream-redacted-thinking.sse", 2],
  ])("streamed %s: thinking deltas are reported as reasoning and the signature is kept", async (fixture, parts) => {
    server.reply(fixtureReply(fixture, { chunkSize: 11 }));
    const events: ModelStreamEvent[] = [];
    const response = await model().complete(user("hi"), weatherTool, { onEvent: (event) => events.push(event) });
    const reasoning = response.message.reasoning ?? [];
    expect(reasoning).toHaveLength(parts);
    for (const part of reasoning) expect(part.signature ?? part.redactedData).toMatch(/^E[A-Za-z0-9+/=]{40,}/);
    const reasoningText = events.flatMap((event) => (event.type === "reasoning-delta" ? [event.text] : [])).join("");
    expect(reasoningText).toBe(reasoning.map((part) => part.text).join(""));
    const text = events.flatMap((event) => (event.type === "text-delta" ? [event.text] : [])).join("");
    expect(text).toBe(response.message.content);
    expect(response.message.content).not.toContain(reasoning[0]?.text || "\u0000");
  });
});

describe("AnthropicModel: stop reasons", () => {
  test.each([
    ["anthropic/messages-end-turn-text.json", "end_turn"],
    ["anthropic/messages-tool-use-parallel-2.json", "tool_use"],
    ["anthropic/messages-stop-sequence.json", "stop_sequence"],
    ["anthropic/messages-pause-turn-web-search.json", "pause_turn"],
    ["anthropic/messages-refusal-stop-details.json", "refusal"],
    ["anthropic/stream-stop-sequence.sse", "stop_sequence"],
    ["anthropic/stream-refusal.sse", "refusal"],
    ["anthropic/stream-pause-turn-web-search.sse", "pause_turn"],
    ["anthropic/stream-max-tokens-text.chunks.jsonl", "max_tokens"],
  ])("%s → %s", async (fixture, stopReason) => {
    server.reply(fixtureReply(fixture));
    const onEvent = fixture.endsWith(".json") ? {} : { onEvent: () => {} };
    const response = await model().complete(user("hi"), [], onEvent);
    expect(response.stopReason).toBe(stopReason);
  });

  test("max_tokens cutting a tool_use short gives the call an error the model reads, not a crash", async () => {
    server.reply(
      fixtureReply("anthropic/stream-max-tokens-mid-tool-input.sse", { chunkSize: 3 }),
      fixtureReply("anthropic/stream-stop-sequence.sse"),
    );
    const registry = new ToolRegistry().add({
      name: "make_file",
      description: "Writes a file",
      parameters: { type: "object" },
      execute: () => "written",
    });
    const steps: string[] = [];
    const result = await new Agent(model(), registry).run("Write taxes.txt", {
      stream: true,
      onEvent: (event) => {
        if (event.type === "model-call-end") steps.push(event.response.stopReason);
      },
    });
    const call = result.messages[1]?.toolCalls?.[0];
    expect(steps[0]).toBe("max_tokens");
    expect(call?.name).toBe("make_file");
    expect(call?.arguments).toEqual({});
    expect(call?.argumentsError).toMatch(/output token limit \(max_tokens\).*cut off/);
    expect(result.messages[2]).toMatchObject({ role: "tool", isError: true });
    expect(result.messages[2]?.content).toMatch(/^Invalid arguments for tool "make_file": the response hit the output token limit/);
  });

  test("pause_turn: the loop sends the paused turn back to continue it", async () => {
    server.reply(fixtureReply("anthropic/messages-pause-turn-web-search.json"), fixtureReply("anthropic/messages-end-turn-text.json"));
    const result = await new Agent(model(), new ToolRegistry()).run("Search the web");
    expect(server.requests).toHaveLength(2);
    expect(body(1).messages.map((message) => message.role)).toEqual(["user", "assistant"]);
    expect(result.final).toBe(result.messages.at(-1)?.content);
  });
});

describe("AnthropicModel: parallel tool calls", () => {
  test("four calls in one message become four tool calls, answered in one user message", async () => {
    server.reply(fixtureReply("anthropic/messages-tool-use-parallel-4.json"), fixtureReply("anthropic/messages-end-turn-text.json"));
    const response = await model().complete(user("hi"), []);
    expect(response.message.toolCalls).toHaveLength(4);
    const ids = response.message.toolCalls?.map((call) => call.id) ?? [];
    const tools: Message[] = ids.map((id, index) => ({ role: "tool", content: `result ${index}`, toolCallId: id }));
    await model().complete([...user("hi"), response.message, ...tools], []);
    const results = body(1).messages[2];
    expect(results?.role).toBe("user");
    expect(results?.content.map((block) => block.tool_use_id)).toEqual(ids);
    expect(body(1).messages).toHaveLength(3);
  });

  test('streamed calls without arguments (partial_json "") get empty argument objects', async () => {
    server.reply(fixtureReply("anthropic/stream-tool-use-parallel-empty-input.sse", { chunkSize: 1 }));
    const ends: ModelStreamEvent[] = [];
    const response = await model().complete(user("hi"), [], { onEvent: (event) => event.type === "tool-input-end" && ends.push(event) });
    expect(response.message.toolCalls?.map((call) => call.arguments)).toEqual([{}, {}]);
    expect(ends.map((event) => (event.type === "tool-input-end" ? event.index : -1))).toEqual([0, 1]);
  });
});
