import { afterEach, beforeEach, describe, expect, test } from "vitest";
import type { Message, ToolChoice, ToolSchema } from "../../src/core/types.js";
import { PlanAndSolveAgent, ToolRegistry } from "../../src/index.js";
import { AnthropicModel, type AnthropicModelOptions, mapAnthropicToolChoice } from "../../src/models/anthropic/index.js";
import { FakeModel } from "../../src/models/fake-model.js";
import { mapOpenAIToolChoice, OpenAIModel, type OpenAIModelOptions } from "../../src/models/openai/index.js";
import { reply } from "../../src/testing/script.js";
import { startWireServer, type WireServer } from "../../src/testing/wire-server.js";
import { fixtureReply } from "../helpers/provider-fixtures.js";

let server: WireServer;
beforeEach(async () => {
  server = await startWireServer();
});
afterEach(() => server.close());

const messages: Message[] = [{ role: "user", content: "Plan the trip." }];
const tools: ToolSchema[] = [
  { name: "write_plan", description: "Write the plan", parameters: { type: "object", properties: { steps: { type: "array" } } } },
  { name: "weather", description: "Weather of a city", parameters: { type: "object", properties: { city: { type: "string" } } } },
];
const choices: ToolChoice[] = ["auto", "none", "required", { name: "write_plan" }];

function anthropic(options: Partial<AnthropicModelOptions> = {}): AnthropicModel {
  return new AnthropicModel({ model: "claude-test", apiKey: "sk-ant-test", baseURL: server.url, ...options });
}
function openai(options: Partial<OpenAIModelOptions> = {}): OpenAIModel {
  return new OpenAIModel({ model: "gpt-test", apiKey: "sk-test", baseURL: `${server.url}/v1`, ...options });
}
const openaiText = { json: { choices: [{ index: 0, message: { role: "assistant", content: "ok" }, finish_reason: "stop" }] } };

/** The body the server received for one call of `send`. */
async function sentBody(send: () => Promise<unknown>): Promise<Record<string, unknown>> {
  await send();
  return server.requests.at(-1)?.body as Record<string, unknown>;
}

describe("AnthropicModel: toolChoice → tool_choice", () => {
  test.each([
    ["auto", { type: "auto" }],
    ["none", { type: "none" }],
    ["required", { type: "any" }],
    [{ name: "write_plan" }, { type: "tool", name: "write_plan" }],
  ] as const)("%j is sent as %j", async (toolChoice, expected) => {
    server.reply(fixtureReply("anthropic/messages-end-turn-text.json"));
    const body = await sentBody(() => anthropic().complete(messages, tools, { toolChoice }));
    expect(body.tool_choice).toEqual(expected);
    expect(body.tools).toHaveLength(2);
  });

  test.each([
    ["auto", { type: "auto" }],
    ["none", { type: "none" }],
    ["required", { type: "auto" }],
    [{ name: "write_plan" }, { type: "auto" }],
  ] as const)("with extended thinking, %j is sent as %j (the API forbids forcing a tool while thinking)", async (toolChoice, expected) => {
    server.reply(fixtureReply("anthropic/messages-end-turn-text.json"));
    const body = await sentBody(() => anthropic({ thinking: { budgetTokens: 1024 } }).complete(messages, tools, { toolChoice }));
    expect(body.tool_choice).toEqual(expected);
    expect(body.thinking).toEqual({ type: "enabled", budget_tokens: 1024 });
    expect(body.tools).toHaveLength(2);
  });

  test("without tools no tool_choice is sent, whatever was asked", async () => {
    for (const toolChoice of choices) {
      server.reply(fixtureReply("anthropic/messages-end-turn-text.json"));
      const body = await sentBody(() => anthropic().complete(messages, [], { toolChoice }));
      expect(body).not.toHaveProperty("tool_choice");
      expect(body).not.toHaveProperty("tools");
    }
  });

  test("server tools count as tools", async () => {
    server.reply(fixtureReply("anthropic/messages-end-turn-text.json"));
    const serverTools = [{ type: "web_search_20250305" as const, name: "web_search" as const, max_uses: 1 }];
    const body = await sentBody(() => anthropic({ serverTools }).complete(messages, [], { toolChoice: "required" }));
    expect(body.tool_choice).toEqual({ type: "any" });
  });

  test("not asked (or asked with undefined): the request carries no tool_choice", async () => {
    server.reply(fixtureReply("anthropic/messages-end-turn-text.json"), fixtureReply("anthropic/messages-end-turn-text.json"));
    expect(await sentBody(() => anthropic().complete(messages, tools))).not.toHaveProperty("tool_choice");
    expect(await sentBody(() => anthropic().complete(messages, tools, { toolChoice: undefined }))).not.toHaveProperty("tool_choice");
    expect(anthropic().createRequest(messages, tools)).not.toHaveProperty("tool_choice");
  });

  test("a streamed call sends the same tool_choice", async () => {
    server.reply(fixtureReply("anthropic/stream-tool-use-input-json-delta.sse"));
    const body = await sentBody(() => anthropic().complete(messages, tools, { toolChoice: "required", onEvent: () => {} }));
    expect(body).toMatchObject({ stream: true, tool_choice: { type: "any" } });
  });

  test("createRequest takes the tool choice too", () => {
    expect(anthropic().createRequest(messages, tools, { toolChoice: { name: "weather" } }).tool_choice).toEqual({
      type: "tool",
      name: "weather",
    });
    expect(mapAnthropicToolChoice("required", { thinking: false })).toEqual({ type: "any" });
  });
});

describe("OpenAIModel: toolChoice → tool_choice", () => {
  test.each([
    ["auto", "auto"],
    ["none", "none"],
    ["required", "required"],
    [{ name: "write_plan" }, { type: "function", function: { name: "write_plan" } }],
  ] as const)("%j is sent as %j", async (toolChoice, expected) => {
    server.reply(openaiText);
    const body = await sentBody(() => openai().complete(messages, tools, { toolChoice }));
    expect(body.tool_choice).toEqual(expected);
    expect(body.tools).toHaveLength(2);
  });

  test("without tools no tool_choice is sent, whatever was asked", async () => {
    for (const toolChoice of choices) {
      server.reply(openaiText);
      const body = await sentBody(() => openai().complete(messages, [], { toolChoice }));
      expect(body).not.toHaveProperty("tool_choice");
      expect(body).not.toHaveProperty("tools");
    }
  });

  test("not asked (or asked with undefined): the request carries no tool_choice", async () => {
    server.reply(openaiText, openaiText);
    expect(await sentBody(() => openai().complete(messages, tools))).not.toHaveProperty("tool_choice");
    expect(await sentBody(() => openai().complete(messages, tools, { toolChoice: undefined }))).not.toHaveProperty("tool_choice");
  });

  test("a streamed call sends the same tool_choice", async () => {
    server.reply(fixtureReply("openai/stream-text-stop-usage.sse"));
    const body = await sentBody(() => openai().complete(messages, tools, { toolChoice: { name: "weather" }, onEvent: () => {} }));
    expect(body).toMatchObject({ stream: true, tool_choice: { type: "function", function: { name: "weather" } } });
    expect(mapOpenAIToolChoice("none")).toBe("none");
  });
});

describe("Plan-and-Solve on a thinking Claude model", () => {
  test("the forced plan turn goes out as auto with only the plan tool, and the run completes", async () => {
    const message = (content: unknown[], stop_reason: string) => ({
      json: {
        id: "msg",
        type: "message",
        role: "assistant",
        model: "claude-test",
        content,
        stop_reason,
        usage: { input_tokens: 9, output_tokens: 9 },
      },
    });
    server.reply(
      message([{ type: "tool_use", id: "toolu_1", name: "write_plan", input: { steps: ["Check the weather", "Answer"] } }], "tool_use"),
      message([{ type: "text", text: "Sunny: go." }], "end_turn"),
    );
    const registry = new ToolRegistry().add({
      name: "weather",
      description: "Weather",
      parameters: { type: "object" },
      execute: () => "sunny",
    });
    const model = anthropic({ thinking: { budgetTokens: 1024 } });
    const result = await new PlanAndSolveAgent(model, registry).run("Should I go out?");
    expect(result).toMatchObject({ status: "completed", final: "Sunny: go." });
    const [planning, solving] = server.requests.map((request) => request.body as { tool_choice?: unknown; tools?: { name: string }[] });
    expect(planning?.tool_choice).toEqual({ type: "auto" });
    expect(planning?.tools?.map((tool) => tool.name)).toEqual(["write_plan"]);
    expect(solving).not.toHaveProperty("tool_choice");
  });
});

describe("FakeModel records the tool choice it was sent", () => {
  test("requests[i].toolChoice is the call's, and absent when none was given", async () => {
    const fake = new FakeModel(["a", "b", "c", (_messages, _tools, options) => reply(`asked ${JSON.stringify(options.toolChoice)}`)]);
    const named = { name: "write_plan" };
    await fake.complete(messages, tools, { toolChoice: named });
    named.name = "changed later"; // a copy was kept
    await fake.complete(messages, tools, { toolChoice: "required" });
    await fake.complete(messages, tools, { toolChoice: undefined });
    const last = await fake.complete(messages, tools, { toolChoice: "none" });
    expect(fake.requests.map((request) => request.toolChoice)).toEqual([{ name: "write_plan" }, "required", undefined, "none"]);
    expect(fake.requests[2]).not.toHaveProperty("toolChoice");
    expect(last.message.content).toBe('asked "none"');
  });
});
