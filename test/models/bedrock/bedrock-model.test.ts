import { describe, expect, test } from "vitest";
import type { Message, ToolSchema } from "../../../src/core/types.js";
import { UsageError } from "../../../src/errors.js";
import { BedrockModel, mapBedrockStopReason, mapBedrockUsage } from "../../../src/models/bedrock/index.js";
import { fixtureJson, fixtureReply } from "../../helpers/provider-fixtures.js";
import { testCredentials, useBedrockServer } from "./bedrock-harness.js";

type RecordedRequest = {
  request: { body: { messages: unknown[]; system?: unknown; toolConfig?: unknown; additionalModelRequestFields?: unknown } };
};
const recorded = (name: string) => fixtureJson<RecordedRequest>(`bedrock/${name}.meta.json`).request.body;
const thinking = { thinking: { type: "enabled", budget_tokens: 1024 } };

describe("BedrockModel: the request is SigV4-signed and goes to the model's Converse path", () => {
  const bedrock = useBedrockServer({ keepCredentials: true });

  test("a text answer: the signed POST to /model/<URL-encoded id>/converse, only the messages in the body, content, end_turn, usage", async () => {
    bedrock.server.reply(fixtureReply("bedrock/converse-text.json"));
    const model = bedrock.model({ model: "us.amazon.nova-micro-v1:0" });
    const response = await model.complete([{ role: "user", content: "Hello!" }], []);
    expect(response).toEqual({
      message: {
        role: "assistant",
        content: "Hello! How can I assist you today? Whether you have questions, need information, or just want to chat, I'm here to help.",
        providerMetadata: { bedrock: { content: [{ text: expect.stringMatching(/^Hello! How can I assist/) }] } },
      },
      stopReason: "end_turn",
      usage: { inputTokens: 7, outputTokens: 30 },
    });
    const [request] = bedrock.server.requests;
    expect(request?.method).toBe("POST");
    expect(request?.path).toBe("/model/us.amazon.nova-micro-v1%3A0/converse");
    expect(request?.body).toEqual({ messages: [{ role: "user", content: [{ text: "Hello!" }] }] });
    expect(request?.headers.authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLETEST\/\d{8}\/us-east-1\/bedrock\/aws4_request, SignedHeaders=.+, Signature=[0-9a-f]{64}$/,
    );
    expect(request?.headers["x-amz-date"]).toMatch(/^\d{8}T\d{6}Z$/);
    expect(JSON.stringify(bedrock.server.requests)).not.toContain(testCredentials.secretAccessKey);
  });

  test("headers are sent, and signed with the request", async () => {
    bedrock.server.reply(fixtureReply("bedrock/converse-text.json"));
    await bedrock.model({ headers: { "x-team-tag": "agents" } }).complete([{ role: "user", content: "Hello!" }], []);
    const headers = bedrock.server.requests[0]?.headers ?? {};
    expect(headers["x-team-tag"]).toBe("agents");
    expect(headers.authorization).toMatch(/SignedHeaders=[^,]*\bx-team-tag\b/);
  });
});

describe("BedrockModel: tool use", () => {
  const bedrock = useBedrockServer();
  const getCapital: ToolSchema = {
    name: "get_capital",
    description: "Get the capital of a country.",
    parameters: {
      additionalProperties: false,
      properties: { country: { description: "The country name.", type: "string" } },
      required: ["country"],
      type: "object",
    },
  };

  test("text then a toolUse; the failed tool result goes back as the recorded turn-2 request (toolResult, status error)", async () => {
    bedrock.server.reply(
      fixtureReply("bedrock/converse-text-then-tool-use.json"),
      fixtureReply("bedrock/converse-end-turn-after-tool-result.json"),
    );
    const model = bedrock.model({ model: "us.amazon.nova-micro-v1:0", temperature: 0 });
    const messages: Message[] = [
      { role: "system", content: "You are a helpful chatbot." },
      { role: "user", content: "What is the capital of France?" },
    ];
    const first = await model.complete(messages, [getCapital], { toolChoice: "auto" });
    expect(first.stopReason).toBe("tool_use");
    expect(first.message.toolCalls).toEqual([
      { id: "tooluse_Ze_bgl9CSqu8aJv7XD-_Dw", name: "get_capital", arguments: { country: "France" } },
    ]);
    expect(first.message.content).toMatch(/^<thinking> To determine the capital/); // Nova writes its thinking as plain text
    messages.push(first.message, {
      role: "tool",
      toolCallId: "tooluse_Ze_bgl9CSqu8aJv7XD-_Dw",
      content: "The country is not supported.\n\nFix the errors and try again.",
      isError: true,
    });
    const second = await model.complete(messages, [getCapital], { toolChoice: "auto" });
    expect(second).toMatchObject({ stopReason: "end_turn", usage: { inputTokens: 531, outputTokens: 76 } });
    expect(second.message.content).toMatch(/The capital of France is Paris\./);
    const expected = recorded("converse-end-turn-after-tool-result");
    const sent = bedrock.sentBody<typeof expected & { inferenceConfig?: unknown }>(1);
    expect(sent.messages).toEqual(expected.messages);
    expect(sent.system).toEqual(expected.system);
    expect(sent.toolConfig).toEqual(expected.toolConfig);
    expect(sent.inferenceConfig).toEqual({ temperature: 0 });
  });

  test("parallel calls: both toolUse ids kept; sent back without the response's extra members, both results in one user turn", async () => {
    bedrock.server.reply(fixtureReply("bedrock/converse-tool-use-parallel.json"), fixtureReply("bedrock/converse-text.json"));
    const model = bedrock.model();
    const tools: ToolSchema[] = ["get_resistor_value", "get_capacitor_value"].map((name) => ({
      name,
      description: name,
      parameters: { type: "object", properties: { ref: { type: "string" } } },
    }));
    const messages: Message[] = [{ role: "user", content: "R1 and C1?" }];
    const first = await model.complete(messages, tools);
    expect(first.message.toolCalls).toEqual([
      { id: "tooluse_hr5juciYZJwUHpRczsw13R", name: "get_resistor_value", arguments: { ref: "R1" } },
      { id: "tooluse_AZHw3Ym0S07qOv5NlXj9iJ", name: "get_capacitor_value", arguments: { ref: "C1" } },
    ]);
    expect(first).toMatchObject({
      stopReason: "tool_use",
      usage: { inputTokens: 694, outputTokens: 110, cacheReadTokens: 0, cacheWriteTokens: 0 },
    });
    messages.push(
      first.message,
      { role: "tool", toolCallId: "tooluse_hr5juciYZJwUHpRczsw13R", content: "10 kΩ" },
      { role: "tool", toolCallId: "tooluse_AZHw3Ym0S07qOv5NlXj9iJ", content: "100 nF" },
    );
    await model.complete(JSON.parse(JSON.stringify(messages)) as Message[], tools);
    expect(bedrock.sentBody<{ messages: unknown[] }>(1).messages.slice(1)).toEqual([
      {
        role: "assistant",
        content: [
          { text: "Sure! I'll look up both values simultaneously right away!" },
          { toolUse: { toolUseId: "tooluse_hr5juciYZJwUHpRczsw13R", name: "get_resistor_value", input: { ref: "R1" } } },
          { toolUse: { toolUseId: "tooluse_AZHw3Ym0S07qOv5NlXj9iJ", name: "get_capacitor_value", input: { ref: "C1" } } },
        ],
      },
      {
        role: "user",
        content: [
          { toolResult: { toolUseId: "tooluse_hr5juciYZJwUHpRczsw13R", content: [{ text: "10 kΩ" }] } },
          { toolResult: { toolUseId: "tooluse_AZHw3Ym0S07qOv5NlXj9iJ", content: [{ text: "100 nF" }] } },
        ],
      },
    ]);
  });

  test("a toolUseId already used in the conversation gets a fresh id, so results stay unambiguous", async () => {
    bedrock.server.reply(fixtureReply("bedrock/converse-tool-use-parallel.json"));
    const history: Message[] = [
      { role: "user", content: "R1?" },
      { role: "assistant", content: "", toolCalls: [{ id: "tooluse_hr5juciYZJwUHpRczsw13R", name: "get_resistor_value", arguments: {} }] },
      { role: "tool", toolCallId: "tooluse_hr5juciYZJwUHpRczsw13R", content: "10 kΩ" },
    ];
    const response = await bedrock.model().complete(history, []);
    const [first, second] = response.message.toolCalls ?? [];
    expect(first?.id).toMatch(/^tooluse_/);
    expect(first?.id).not.toBe("tooluse_hr5juciYZJwUHpRczsw13R");
    expect(second?.id).toBe("tooluse_AZHw3Ym0S07qOv5NlXj9iJ");
  });

  test("max_tokens: maxTokens is sent as inferenceConfig.maxTokens, the cut answer stops with max_tokens", async () => {
    bedrock.server.reply(fixtureReply("bedrock/converse-max-tokens.json"));
    const response = await bedrock.model({ maxTokens: 5 }).complete([{ role: "user", content: "What is the capital of France?" }], []);
    expect(response).toMatchObject({ message: { content: "The capital of France is" }, stopReason: "max_tokens" });
    expect(bedrock.server.requests[0]?.body).toMatchObject({ inferenceConfig: { maxTokens: 5 } });
  });
});

describe("BedrockModel: reasoningContent", () => {
  const bedrock = useBedrockServer();

  test("reasoning text and signature land in message.reasoning, not content, and go back unchanged as the recorded turn-2 request", async () => {
    bedrock.server.reply(
      fixtureReply("bedrock/converse-reasoning-signature.json"),
      fixtureReply("bedrock/converse-reasoning-signature-turn-2.json"),
    );
    const model = bedrock.model({ additionalModelRequestFields: thinking });
    const messages: Message[] = [{ role: "user", content: "How do I cross the street?" }];
    const first = await model.complete(messages, []);
    const [turn1] = recorded("converse-reasoning-signature-turn-2").messages.slice(1) as {
      content: [{ reasoningContent: { reasoningText: { text: string; signature: string } } }, { text: string }];
    }[];
    const { text, signature } = turn1?.content[0].reasoningContent.reasoningText ?? { text: "", signature: "" };
    expect(first.message.reasoning).toEqual([{ text, signature, provider: "bedrock" }]);
    expect(first.message.content).toBe(turn1?.content[1].text);
    expect(first.message.content).not.toContain(text);
    expect(bedrock.server.requests[0]?.body).toMatchObject({ additionalModelRequestFields: thinking });

    // The history goes through JSON, as a saved run's would.
    const history = JSON.parse(JSON.stringify([...messages, first.message])) as Message[];
    history.push({ role: "user", content: "Considering the way to cross the street, analogously, how do I cross the river?" });
    const second = await model.complete(history, []);
    expect(second.message.reasoning?.[0]?.signature).toMatch(/^EqkECkgIBxAB/);
    expect(bedrock.server.requests[1]?.body).toMatchObject({
      messages: recorded("converse-reasoning-signature-turn-2").messages,
      additionalModelRequestFields: thinking,
    });
  });

  test("an answer edited since it was received is rebuilt: its reasoning first, then the new text; other providers' reasoning is dropped", async () => {
    bedrock.server.reply(fixtureReply("bedrock/converse-reasoning-signature.json"), fixtureReply("bedrock/converse-text.json"));
    const model = bedrock.model({ additionalModelRequestFields: thinking });
    const first = await model.complete([{ role: "user", content: "How do I cross?" }], []);
    const edited: Message = { ...first.message, content: "Look both ways." };
    const foreign: Message = {
      role: "assistant",
      content: "Other.",
      reasoning: [{ text: "hidden", signature: "sig", provider: "anthropic" }],
    };
    await model.complete(
      [{ role: "user", content: "How do I cross?" }, edited, { role: "user", content: "And?" }, foreign, { role: "user", content: "Ok" }],
      [],
    );
    const sent = bedrock.sentBody<{ messages: { content: unknown[] }[] }>(1).messages;
    expect(sent[1]?.content).toEqual([
      {
        reasoningContent: {
          reasoningText: { text: first.message.reasoning?.[0]?.text, signature: first.message.reasoning?.[0]?.signature },
        },
      },
      { text: "Look both ways." },
    ]);
    expect(sent[3]?.content).toEqual([{ text: "Other." }]);
  });
});

describe("BedrockModel: createRequest", () => {
  const tools: ToolSchema[] = [{ name: "weather", description: "Weather", parameters: { type: "object" } }];
  const model = (options: Partial<ConstructorParameters<typeof BedrockModel>[0]> = {}) =>
    new BedrockModel({ model: "m", region: "us-east-1", credentials: testCredentials, ...options });
  const user: Message[] = [{ role: "user", content: "hi" }];
  const withToolBlocks: Message[] = [
    ...user,
    { role: "assistant", content: "", toolCalls: [{ id: "t1", name: "weather", arguments: {} }] },
    { role: "tool", toolCallId: "t1", content: "sunny" },
  ];

  test("toolChoice → toolConfig.toolChoice: auto {auto}, required {any}, { name } {tool}; none sends no tools", () => {
    const choice = (toolChoice: Parameters<BedrockModel["createRequest"]>[2]) => model().createRequest(user, tools, toolChoice).toolConfig;
    expect(choice({})).toEqual({
      tools: [{ toolSpec: { name: "weather", description: "Weather", inputSchema: { json: { type: "object" } } } }],
    });
    expect(choice({ toolChoice: "auto" })?.toolChoice).toEqual({ auto: {} });
    expect(choice({ toolChoice: "required" })?.toolChoice).toEqual({ any: {} });
    expect(choice({ toolChoice: { name: "weather" } })?.toolChoice).toEqual({ tool: { name: "weather" } });
    expect(choice({ toolChoice: "none" })).toBeUndefined();
    expect(model().createRequest(user, [], { toolChoice: "required" }).toolConfig).toBeUndefined();
  });

  test("none with tool calls in the conversation still sends the tools (the API requires them), without a toolChoice", () => {
    expect(model().createRequest(withToolBlocks, tools, { toolChoice: "none" }).toolConfig).toEqual({
      tools: [{ toolSpec: { name: "weather", description: "Weather", inputSchema: { json: { type: "object" } } } }],
    });
  });

  test("with Claude's thinking a forced tool choice is sent as auto", () => {
    const thinker = model({ additionalModelRequestFields: thinking });
    expect(thinker.createRequest(user, tools, { toolChoice: "required" }).toolConfig?.toolChoice).toEqual({ auto: {} });
    expect(thinker.createRequest(user, tools, { toolChoice: { name: "weather" } }).toolConfig?.toolChoice).toEqual({ auto: {} });
  });

  test("inference options go in inferenceConfig; nothing is added that was not asked for", () => {
    expect(model().createRequest(user, [])).toEqual({ modelId: "m", messages: [{ role: "user", content: [{ text: "hi" }] }] });
    expect(model({ maxTokens: 100, temperature: 0.2, topP: 0.9, stopSequences: ["END"] }).createRequest(user, []).inferenceConfig).toEqual({
      maxTokens: 100,
      temperature: 0.2,
      topP: 0.9,
      stopSequences: ["END"],
    });
  });

  test("responseFormat: no native structured output unless nativeResponseFormat (then outputConfig.textFormat)", () => {
    const responseFormat = { name: "answer", schema: { type: "object", properties: { city: { type: "string" } } } };
    expect(model().supportsResponseFormat).toBeUndefined();
    expect(model().createRequest(user, [], { responseFormat }).outputConfig).toBeUndefined();
    const native = model({ nativeResponseFormat: true });
    expect(native.supportsResponseFormat).toBe(true);
    expect(native.createRequest(user, [], { responseFormat }).outputConfig).toEqual({
      textFormat: { type: "json_schema", structure: { jsonSchema: { name: "answer", schema: JSON.stringify(responseFormat.schema) } } },
    });
  });

  test("misuse is thrown early", () => {
    expect(() => new BedrockModel({ model: "" })).toThrow(UsageError);
    expect(() => model({ maxTokens: 0 })).toThrow(/maxTokens must be a positive whole number/);
    expect(() => model({ timeoutMs: -1 })).toThrow(/timeoutMs must be/);
  });
});

describe("Bedrock mappings", () => {
  test.each([
    ["end_turn", false, "end_turn"],
    ["tool_use", true, "tool_use"],
    ["max_tokens", false, "max_tokens"],
    ["stop_sequence", false, "stop_sequence"],
    ["guardrail_intervened", false, "refusal"],
    ["content_filtered", false, "refusal"],
    ["model_context_window_exceeded", false, "max_tokens"],
    [undefined, true, "tool_use"],
    ["something_new", false, "end_turn"],
  ] as const)("stop reason %s (tool calls: %s) → %s", (reason, hasToolCalls, expected) => {
    expect(mapBedrockStopReason(reason, hasToolCalls)).toBe(expected);
  });

  test("usage: cache reads and writes are counted in inputTokens and reported apart", () => {
    expect(mapBedrockUsage({ inputTokens: 10, outputTokens: 5, cacheReadInputTokens: 1000, cacheWriteInputTokens: 200 })).toEqual({
      inputTokens: 1210,
      outputTokens: 5,
      cacheReadTokens: 1000,
      cacheWriteTokens: 200,
    });
    expect(mapBedrockUsage({ inputTokens: 3, outputTokens: 4 })).toEqual({ inputTokens: 3, outputTokens: 4 });
    expect(mapBedrockUsage(undefined)).toBeUndefined();
  });
});
