import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { Agent } from "../../../src/core/agent.js";
import { AnthropicModel } from "../../../src/models/anthropic/index.js";
import { startWireServer, type WireServer } from "../../../src/testing/wire-server.js";
import { ToolRegistry } from "../../../src/tools/tool-registry.js";
import { fixtureReply } from "../../helpers/provider-fixtures.js";

let server: WireServer;
beforeEach(async () => {
  server = await startWireServer();
});
afterEach(() => server.close());

describe("AnthropicModel: the request carries only what the model needs", () => {
  test("non-streaming: model, max_tokens (the API requires it), system, messages and tools as given — no stream", async () => {
    server.reply(fixtureReply("anthropic/messages-end-turn-text.json"));
    const model = new AnthropicModel({ model: "claude-test", apiKey: "sk-ant-test-key", baseURL: server.url });
    const parameters = { type: "object", properties: { city: { type: "string" } } };
    const tools = new ToolRegistry().add({ name: "weather", description: "Weather", parameters, execute: () => "sunny" });
    await new Agent(model, tools, { system: "Be brief." }).run("go");
    expect(server.requests[0]?.body).toEqual({
      model: "claude-test",
      max_tokens: 4096,
      system: "Be brief.",
      messages: [{ role: "user", content: [{ type: "text", text: "go" }] }],
      tools: [{ name: "weather", description: "Weather", input_schema: parameters }],
    });
  });
});
