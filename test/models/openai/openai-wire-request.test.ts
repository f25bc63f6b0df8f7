import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { Agent } from "../../../src/core/agent.js";
import type { Message } from "../../../src/core/types.js";
import { OpenAIModel, type OpenAIModelOptions } from "../../../src/models/openai/index.js";
import { startWireServer, type WireServer } from "../../../src/testing/wire-server.js";
import { ToolRegistry } from "../../../src/tools/tool-registry.js";

let server: WireServer;
beforeEach(async () => {
  server = await startWireServer();
});
afterEach(() => server.close());

function model(options: Partial<OpenAIModelOptions> = {}): OpenAIModel {
  return new OpenAIModel({ model: "gpt-test", apiKey: "sk-test", baseURL: `${server.url}/v1`, retry: { baseDelayMs: 1 }, ...options });
}

const parameters = { type: "object", properties: { i: { type: "integer" } }, required: ["i"] };

/** A completion asking for `step` with the given id (a server that reuses "call_0" every turn, like some local ones). */
function callReply(id: string, i: number) {
  const call = { id, type: "function", function: { name: "step", arguments: JSON.stringify({ i }) } };
  return {
    json: { choices: [{ index: 0, message: { role: "assistant", content: null, tool_calls: [call] }, finish_reason: "tool_calls" }] },
  };
}
const textReply = { json: { choices: [{ index: 0, message: { role: "assistant", content: "done" }, finish_reason: "stop" }] } };

describe("OpenAIModel: the request carries only what the model needs", () => {
  test("non-streaming: exactly model, messages and tools as given — no stream, no tool_choice, no schema additions", async () => {
    server.reply(textReply);
    const tools = new ToolRegistry().add({ name: "step", description: "One step", parameters, execute: () => "ok" });
    await new Agent(model(), tools).run("go");
    expect(server.requests[0]?.body).toEqual({
      model: "gpt-test",
      messages: [{ role: "user", content: "go" }],
      tools: [{ type: "function", function: { name: "step", description: "One step", parameters } }],
    });
  });

  test("options the user set are sent, and nothing else", async () => {
    server.reply(textReply);
    await model({ temperature: 0, maxTokens: 50, stopSequences: ["END"] }).complete([{ role: "user", content: "go" }], []);
    expect(server.requests[0]?.body).toEqual({
      model: "gpt-test",
      messages: [{ role: "user", content: "go" }],
      max_tokens: 50,
      temperature: 0,
      stop: ["END"],
    });
  });
});

describe("OpenAIModel: tool-call ids stay unique without rescanning the history", () => {
  test("a server that returns the same id every turn gets a fresh id each time, turn after turn", async () => {
    const turns = 6;
    server.reply(...Array.from({ length: turns }, (_, i) => callReply("call_0", i)), textReply);
    const tools = new ToolRegistry().add({ name: "step", description: "One step", parameters, execute: ({ i }) => `step ${i}` });
    const result = await new Agent(model(), tools).run("go");
    const ids = result.messages.flatMap((message) => message.toolCalls?.map((call) => call.id) ?? []);
    expect(ids).toHaveLength(turns);
    expect(ids[0]).toBe("call_0");
    expect(new Set(ids).size).toBe(turns);
    // Each tool result answers its own call.
    expect(result.messages.filter((message) => message.role === "tool").map((message) => message.toolCallId)).toEqual(ids);
  });

  test("a conversation rewritten in place is read again, so an id that left it is usable again", async () => {
    const openai = model();
    const history: Message[] = [
      { role: "user", content: "go" },
      { role: "assistant", content: "", toolCalls: [{ id: "call_7", name: "step", arguments: { i: 0 } }] },
      { role: "tool", content: "ok", toolCallId: "call_7" },
    ];
    server.reply(callReply("call_7", 1), callReply("call_7", 2));
    const first = await openai.complete(history, []);
    expect(first.message.toolCalls?.[0]?.id).not.toBe("call_7");
    history.splice(1, 2, { role: "assistant", content: "compacted" });
    const second = await openai.complete(history, []);
    expect(second.message.toolCalls?.[0]?.id).toBe("call_7");
  });

  test("a text reply needs no ids, and a missing id is generated", async () => {
    server.reply(textReply, callReply("", 0));
    expect((await model().complete([{ role: "user", content: "go" }], [])).message.content).toBe("done");
    const generated = await model().complete([{ role: "user", content: "go" }], []);
    expect(generated.message.toolCalls?.[0]?.id).toMatch(/^call_[0-9a-f]{24}$/);
  });
});
