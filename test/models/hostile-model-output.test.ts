import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { Agent } from "../../src/core/agent.js";
import { AnthropicModel } from "../../src/models/anthropic/index.js";
import { createToolCall } from "../../src/models/create-tool-call.js";
import { OpenAIModel } from "../../src/models/openai/index.js";
import { formatServerSentEvents, startWireServer, type WireResponse, type WireServer } from "../../src/testing/wire-server.js";
import { maxArgumentsDepth, maxArgumentsLength } from "../../src/tools/argument-bounds.js";
import { ToolRegistry } from "../../src/tools/tool-registry.js";
import { anthropicStream } from "../helpers/wire-bodies.js";

// What a model (or a server imitating one) may send that must not break the next request.

let server: WireServer;
beforeEach(async () => {
  server = await startWireServer();
});
afterEach(() => server.close());

let runs: unknown[] = [];
const registry = () => {
  runs = [];
  return new ToolRegistry().add({
    name: "save",
    description: "Saves a value",
    parameters: { type: "object" },
    execute: (args) => {
      runs.push(args);
      return "saved";
    },
  });
};
const anthropic = (options: { stream?: boolean } = {}) =>
  new Agent(new AnthropicModel({ model: "claude-test", apiKey: "test-key", baseURL: server.url, maxRetries: 0 }), registry(), options);
const openai = () =>
  new Agent(new OpenAIModel({ model: "gpt-test", apiKey: "test-key", baseURL: `${server.url}/v1`, maxRetries: 0 }), registry());

const deepText = (levels: number) => `${'{"a":'.repeat(levels)}1${"}".repeat(levels)}`;
const anthropicEnd: WireResponse = { json: { content: [{ type: "text", text: "Done." }], stop_reason: "end_turn" } };
const anthropicStreamEnd: WireResponse = { sse: anthropicStream([{ type: "text", text: "Done." }], "end_turn") };
const openaiEnd: WireResponse = { json: { choices: [{ message: { role: "assistant", content: "Done." }, finish_reason: "stop" }] } };

type AnthropicBody = {
  messages: {
    role: string;
    content: { type: string; id?: string; tool_use_id?: string; input?: unknown; is_error?: boolean; content?: string }[];
  }[];
};
type OpenAIBody = {
  messages: { role: string; tool_calls?: { id: string; function: { arguments: string } }[]; tool_call_id?: string; content?: string }[];
};

describe("tool-call arguments nested thousands deep or megabytes long", () => {
  test("createToolCall refuses them with an argumentsError and {} arguments, without a RangeError", () => {
    const deep = createToolCall("id", "save", deepText(10_000));
    expect(deep.arguments).toEqual({});
    expect(deep.argumentsError).toBe(`the arguments are nested more than ${maxArgumentsDepth} levels deep. Send flatter arguments.`);
    const deepObject = createToolCall("id", "save", JSON.parse(deepText(10_000)));
    expect(deepObject.argumentsError).toMatch(/nested more than 64 levels/);
    const long = createToolCall("id", "save", JSON.stringify({ text: "x".repeat(maxArgumentsLength) }));
    expect(long.argumentsError).toMatch(/^the arguments are 1,000,011 characters long; at most 1,000,000 are accepted/);
    expect(createToolCall("id", "save", { text: "x".repeat(maxArgumentsLength) }).argumentsError).toMatch(/over 1,000,000 characters long/);
    // At the limits, and with brackets inside strings, arguments are fine.
    expect(createToolCall("id", "save", deepText(maxArgumentsDepth)).argumentsError).toBeUndefined();
    expect(createToolCall("id", "save", JSON.stringify({ text: "[[[[".repeat(100) })).argumentsError).toBeUndefined();
  });

  test("anthropic, received whole: the run goes on and the next request is well-formed", async () => {
    const body = `{"content":[{"type":"text","text":"Saving."},{"type":"tool_use","id":"toolu_1","name":"save","input":${deepText(5000)}}],"stop_reason":"tool_use"}`;
    server.reply({ body }, anthropicEnd);
    const result = await anthropic().run("save it");
    expect(result.final).toBe("Done.");
    expect(runs).toEqual([]);
    const sent = server.requests[1]?.body as AnthropicBody;
    expect(sent.messages[1]?.content).toEqual([
      { type: "text", text: "Saving." },
      { type: "tool_use", id: "toolu_1", name: "save", input: {} },
    ]);
    expect(sent.messages[2]?.content[0]).toMatchObject({ type: "tool_result", tool_use_id: "toolu_1", is_error: true });
    expect(sent.messages[2]?.content[0]?.content).toMatch(/nested more than 64 levels deep/);
  });

  test("anthropic, streamed: a deep and a megabyte-long input; both refused, the run goes on", async () => {
    const events = [
      {
        type: "message_start",
        message: {
          id: "m",
          type: "message",
          role: "assistant",
          content: [],
          stop_reason: null,
          usage: { input_tokens: 1, output_tokens: 1 },
        },
      },
      { type: "content_block_start", index: 0, content_block: { type: "tool_use", id: "toolu_deep", name: "save", input: {} } },
      { type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json: deepText(5000) } },
      { type: "content_block_stop", index: 0 },
      { type: "content_block_start", index: 1, content_block: { type: "tool_use", id: "toolu_long", name: "save", input: {} } },
      {
        type: "content_block_delta",
        index: 1,
        delta: { type: "input_json_delta", partial_json: JSON.stringify({ text: "y".repeat(1_500_000) }) },
      },
      { type: "content_block_stop", index: 1 },
      { type: "message_delta", delta: { stop_reason: "tool_use", stop_sequence: null }, usage: { output_tokens: 9 } },
      { type: "message_stop" },
    ];
    server.reply(
      { sse: formatServerSentEvents(events.map((event) => ({ event: event.type, data: JSON.stringify(event) }))) },
      anthropicStreamEnd,
    );
    const result = await anthropic({ stream: true }).run("save it");
    expect(result.final).toBe("Done.");
    expect(runs).toEqual([]);
    const sent = server.requests[1]?.body as AnthropicBody;
    expect(sent.messages[1]?.content.map((block) => block.input)).toEqual([{}, {}]);
    expect(sent.messages[2]?.content.map((block) => [block.tool_use_id, block.is_error])).toEqual([
      ["toolu_deep", true],
      ["toolu_long", true],
    ]);
    expect(server.requests[1]?.text.length).toBeLessThan(10_000);
  });

  test("openai: deep arguments as text and as an object (a compatible server), long arguments; the run goes on", async () => {
    const calls = [
      `{"id":"call_1","type":"function","function":{"name":"save","arguments":${JSON.stringify(deepText(5000))}}}`,
      `{"id":"call_2","type":"function","function":{"name":"save","arguments":${deepText(5000)}}}`,
      `{"id":"call_3","type":"function","function":{"name":"save","arguments":${JSON.stringify(JSON.stringify({ text: "z".repeat(1_200_000) }))}}}`,
    ];
    const body = `{"choices":[{"message":{"role":"assistant","content":null,"tool_calls":[${calls.join(",")}]},"finish_reason":"tool_calls"}]}`;
    server.reply({ body }, openaiEnd);
    const result = await openai().run("save it");
    expect(result.final).toBe("Done.");
    expect(runs).toEqual([]);
    const sent = server.requests[1]?.body as OpenAIBody;
    expect(sent.messages[1]?.tool_calls?.map((call) => [call.id, call.function.arguments])).toEqual([
      ["call_1", "{}"],
      ["call_2", "{}"],
      ["call_3", "{}"],
    ]);
    expect(sent.messages.slice(2).map((message) => [message.tool_call_id, message.content])).toEqual([
      ["call_1", expect.stringMatching(/the arguments are nested more than 64 levels deep\. Send flatter arguments\./)],
      ["call_2", expect.stringMatching(/the arguments are nested more than 64 levels deep/)],
      [
        "call_3",
        expect.stringMatching(/the arguments are 1,200,011 characters long; at most 1,000,000 are accepted\. Send shorter arguments\./),
      ],
    ]);
  });
});

describe("anthropic: repeated tool-call ids are made unique before they are sent back", () => {
  const twoCalls = (id: string) => ({
    json: {
      content: [
        { type: "text", text: "Saving twice." },
        { type: "tool_use", id, name: "save", input: { value: 1 } },
        { type: "tool_use", id, name: "save", input: { value: 2 } },
      ],
      stop_reason: "tool_use",
    },
  });

  function expectUniqueAndAnswered(body: AnthropicBody, expectedCalls: number): void {
    const uses = body.messages.flatMap((message) => message.content.filter((block) => block.type === "tool_use").map((block) => block.id));
    const results = body.messages.flatMap((message) =>
      message.content.filter((block) => block.type === "tool_result").map((block) => block.tool_use_id),
    );
    expect(uses).toHaveLength(expectedCalls);
    expect(new Set(uses).size).toBe(expectedCalls);
    expect(results).toEqual(uses);
    for (const id of uses) expect(id).toMatch(/^[A-Za-z0-9_-]+$/);
  }

  test("within a response and across turns, received whole; the first use of an id keeps it", async () => {
    server.reply(twoCalls("toolu_dup"), twoCalls("toolu_dup"), anthropicEnd);
    const result = await anthropic().run("save");
    expect(result.final).toBe("Done.");
    expect(runs).toEqual([{ value: 1 }, { value: 2 }, { value: 1 }, { value: 2 }]);
    expectUniqueAndAnswered(server.requests[2]?.body as AnthropicBody, 4);
    const second = server.requests[1]?.body as AnthropicBody;
    expect(second.messages[1]?.content[1]?.id).toBe("toolu_dup");
  });

  test("streamed: the tool-input-start event already carries the new id", async () => {
    const calls = [
      { type: "tool_use" as const, id: "toolu_same", name: "save", input: { value: 1 } },
      { type: "tool_use" as const, id: "toolu_same", name: "save", input: { value: 2 } },
    ];
    server.reply({ sse: anthropicStream(calls, "tool_use") }, { sse: anthropicStream(calls, "tool_use") }, anthropicStreamEnd);
    const started: string[] = [];
    const result = await anthropic({ stream: true }).run("save", {
      onEvent: (event) => event.type === "tool-input-start" && started.push(event.id),
    });
    expect(result.status).toBe("completed");
    const body = server.requests[2]?.body as AnthropicBody;
    expectUniqueAndAnswered(body, 4);
    const uses = body.messages.flatMap((message) => message.content.filter((block) => block.type === "tool_use").map((block) => block.id));
    expect(started).toEqual(uses);
  });
});
