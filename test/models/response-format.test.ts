import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { z } from "zod";
import type { Message, ResponseFormat, ToolSchema } from "../../src/core/types.js";
import { Agent, finalAnswerName, OutputValidationError, ToolRegistry, UsageError } from "../../src/index.js";
import { AnthropicModel, type AnthropicModelOptions } from "../../src/models/anthropic/index.js";
import { OpenAIModel, type OpenAIModelOptions } from "../../src/models/openai/index.js";
import { startWireServer, type WireServer } from "../../src/testing/wire-server.js";
import { fixtureReply } from "../helpers/provider-fixtures.js";

let server: WireServer;
beforeEach(async () => {
  server = await startWireServer();
});
afterEach(() => server.close());

const messages: Message[] = [{ role: "user", content: "How warm is it in Vienna?" }];
const tools: ToolSchema[] = [
  { name: "weather", description: "Weather of a city", parameters: { type: "object", properties: { city: { type: "string" } } } },
];
const schema = {
  type: "object",
  properties: { city: { type: "string" }, celsius: { type: "number", minimum: -90 } },
  required: ["city", "celsius"],
};
const responseFormat: ResponseFormat = { name: finalAnswerName, schema };

function anthropic(options: Partial<AnthropicModelOptions> = {}): AnthropicModel {
  return new AnthropicModel({ model: "claude-test", apiKey: "sk-ant-test", baseURL: server.url, ...options });
}
function openai(options: Partial<OpenAIModelOptions> = {}): OpenAIModel {
  return new OpenAIModel({ model: "gpt-test", apiKey: "sk-test", baseURL: `${server.url}/v1`, ...options });
}

async function sentBody(send: () => Promise<unknown>): Promise<Record<string, unknown>> {
  await send().catch(() => {});
  return server.requests.at(-1)?.body as Record<string, unknown>;
}

describe("AnthropicModel: responseFormat → output_config.format", () => {
  test("is sent beside the tools, the schema closed and its unsupported bounds moved to descriptions (the SDK's transform)", async () => {
    server.reply(fixtureReply("anthropic/messages-end-turn-text.json"));
    const body = await sentBody(() => anthropic().complete(messages, tools, { responseFormat }));
    expect(body.output_config).toEqual({
      format: {
        type: "json_schema",
        schema: {
          type: "object",
          properties: { city: { type: "string" }, celsius: { type: "number", description: expect.stringMatching(/minimum.*-90/) } },
          required: ["city", "celsius"],
          additionalProperties: false,
        },
      },
    });
    expect(body.tools).toHaveLength(1);
    expect(schema.properties.celsius).toEqual({ type: "number", minimum: -90 }); // the caller's schema is untouched
  });

  test("structuredOutput: false sends none and says the model has none; without responseFormat nothing is sent", async () => {
    expect(anthropic().supportsResponseFormat).toBe(true);
    const off = anthropic({ structuredOutput: false });
    expect(off.supportsResponseFormat).toBe(false);
    server.reply(fixtureReply("anthropic/messages-end-turn-text.json"));
    expect(await sentBody(() => off.complete(messages, tools, { responseFormat }))).not.toHaveProperty("output_config");
    server.reply(fixtureReply("anthropic/messages-end-turn-text.json"));
    expect(await sentBody(() => anthropic().complete(messages, tools))).not.toHaveProperty("output_config");
  });

  test("a schema the API cannot take is a UsageError naming the way out, before any request", async () => {
    const untyped = { name: "answer", schema: { description: "anything" } };
    await expect(anthropic().complete(messages, [], { responseFormat: untyped })).rejects.toThrow(UsageError);
    await expect(anthropic().complete(messages, [], { responseFormat: untyped })).rejects.toThrow(/structuredOutput: false/);
    expect(server.requests).toHaveLength(0);
  });

  test("an Agent with a zod output schema sends it on every call, streaming too", async () => {
    server.reply(fixtureReply("anthropic/stream-stop-sequence.sse"));
    const agent = new Agent(anthropic(), new ToolRegistry(), { output: z.object({ answer: z.string() }), outputRetries: 0 });
    // The recorded answer is prose, not JSON: with no retries left the run fails, after one request that asked for JSON.
    await expect(agent.stream("?").result).rejects.toThrow(OutputValidationError);
    const body = server.requests[0]?.body as Record<string, unknown>;
    expect(body.stream).toBe(true);
    expect(body.output_config).toMatchObject({
      format: { type: "json_schema", schema: { required: ["answer"], additionalProperties: false } },
    });
    expect(body.tools).toBeUndefined();
  });
});

describe("OpenAIModel: responseFormat → response_format json_schema", () => {
  test("OpenAI itself has structured output; an OpenAI-compatible server (a baseURL) does not, unless structuredOutput says so", () => {
    expect(new OpenAIModel({ model: "gpt-test", apiKey: "sk-test" }).supportsResponseFormat).toBe(true);
    expect(openai().supportsResponseFormat).toBe(false);
    expect(openai({ structuredOutput: true }).supportsResponseFormat).toBe(true);
  });

  test("is sent as { type: json_schema, json_schema: { name, schema, strict: false } } beside the tools", async () => {
    server.reply(fixtureReply("openai/chat-text-stop.json"));
    const body = await sentBody(() => openai({ structuredOutput: true }).complete(messages, tools, { responseFormat }));
    expect(body.response_format).toEqual({ type: "json_schema", json_schema: { name: finalAnswerName, schema, strict: false } });
    expect(body.tools).toHaveLength(1);
  });

  test("a model without structured output sends no response_format, and an Agent gives it the final_answer tool instead", async () => {
    server.reply(fixtureReply("openai/chat-text-stop.json"));
    expect(await sentBody(() => openai().complete(messages, tools, { responseFormat }))).not.toHaveProperty("response_format");
    server.reply(fixtureReply("openai/chat-text-stop.json"));
    const agent = new Agent(openai(), new ToolRegistry(), { output: schema, outputRetries: 0 });
    await expect(agent.run("?")).rejects.toThrow(OutputValidationError);
    const body = server.requests.at(-1)?.body as { tools?: { function: { name: string; parameters: unknown } }[] };
    expect(body).not.toHaveProperty("response_format");
    expect(body.tools?.map((tool) => tool.function)).toEqual([expect.objectContaining({ name: finalAnswerName, parameters: schema })]);
  });
});
