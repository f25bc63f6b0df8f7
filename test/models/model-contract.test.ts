/**
 * One contract every Model keeps, run against FakeModel and each adapter (non-streaming and
 * streaming, through the local wire server): text, a tool round trip, stop reasons, usage.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { Agent } from "../../src/core/agent.js";
import type { Message, Model, ModelResponse, ModelStreamEvent, StopReason } from "../../src/core/types.js";
import { AnthropicModel } from "../../src/models/anthropic/index.js";
import { BedrockModel } from "../../src/models/bedrock/index.js";
import { FakeModel } from "../../src/models/fake-model.js";
import { GoogleModel } from "../../src/models/google/index.js";
import { OpenAIModel, OpenAIResponsesModel } from "../../src/models/openai/index.js";
import { startWireServer, type WireReply, type WireServer } from "../../src/testing/wire-server.js";
import { toolOutput } from "../../src/tools/tool.js";
import { ToolRegistry } from "../../src/tools/tool-registry.js";
import { bedrockStreamEvents, encodeBedrockEvents } from "../helpers/bedrock-event-stream.js";
import {
  anthropicStream,
  geminiStream,
  openAIStream,
  responsesOutput,
  responsesResponse,
  responsesStream,
} from "../helpers/wire-bodies.js";

/** A reply in no provider's format: what the model "says". */
type Turn = {
  text: string;
  call?: { name: string; input: Record<string, unknown> };
  stop: "end_turn" | "tool_use" | "max_tokens";
  usage: [number, number];
};

type Harness = {
  name: string;
  streaming: boolean;
  create(turns: Turn[]): Model;
  /** Where the last request put a user message's and a tool result's images and documents, in the wire's own blocks. */
  sentParts?(): { userImage: string; userDocument: string; resultImage: string; resultDocument: string };
};

let server: WireServer;
beforeAll(async () => {
  server = await startWireServer();
});
afterAll(() => server.close());

const fake: Harness = {
  name: "FakeModel",
  streaming: false,
  create: (turns) =>
    new FakeModel(
      turns.map(
        (turn): ModelResponse => ({
          message: {
            role: "assistant",
            content: turn.text,
            ...(turn.call && { toolCalls: [{ id: "call_1", name: turn.call.name, arguments: turn.call.input }] }),
          },
          stopReason: turn.stop,
          usage: { inputTokens: turn.usage[0], outputTokens: turn.usage[1] },
        }),
      ),
    ),
};

function anthropicReply(turn: Turn, streaming: boolean): WireReply {
  const blocks = [
    ...(turn.text ? [{ type: "text" as const, text: turn.text }] : []),
    ...(turn.call ? [{ type: "tool_use" as const, id: "toolu_1", name: turn.call.name, input: turn.call.input }] : []),
  ];
  const usage = { input_tokens: turn.usage[0], output_tokens: turn.usage[1] };
  return streaming
    ? { sse: anthropicStream(blocks, turn.stop, usage), chunkSize: 17 }
    : { json: { content: blocks, stop_reason: turn.stop, usage } };
}

const finishReasons = { end_turn: "stop", tool_use: "tool_calls", max_tokens: "length" } as const;

function openAIReply(turn: Turn, streaming: boolean): WireReply {
  const calls = turn.call ? [{ name: turn.call.name, arguments: turn.call.input }] : [];
  const usage = { prompt_tokens: turn.usage[0], completion_tokens: turn.usage[1] };
  if (streaming) {
    const body = openAIStream(turn.text, calls, finishReasons[turn.stop]);
    const usageChunk = `data: ${JSON.stringify({ choices: [], usage })}\n\n`;
    return { sse: body.replace("data: [DONE]", `${usageChunk}data: [DONE]`), chunkSize: 17 };
  }
  const toolCalls = calls.map((call, index) => ({
    id: `call_${index}`,
    type: "function",
    function: { name: call.name, arguments: JSON.stringify(call.arguments) },
  }));
  const message = { role: "assistant", content: turn.text || null, ...(toolCalls.length > 0 && { tool_calls: toolCalls }) };
  return { json: { choices: [{ index: 0, message, finish_reason: finishReasons[turn.stop] }], usage } };
}

function bedrockReply(turn: Turn, streaming: boolean): WireReply {
  const blocks = [
    ...(turn.text ? [{ type: "text" as const, text: turn.text }] : []),
    ...(turn.call ? [{ type: "toolUse" as const, id: "tooluse_1", name: turn.call.name, input: turn.call.input }] : []),
  ];
  const usage = { inputTokens: turn.usage[0], outputTokens: turn.usage[1] };
  if (streaming) {
    const bytes = encodeBedrockEvents(bedrockStreamEvents(blocks, turn.stop, usage));
    return { bytes, chunkSize: 17, headers: { "content-type": "application/vnd.amazon.eventstream" } };
  }
  const content = blocks.map((block) =>
    block.type === "text" ? { text: block.text } : { toolUse: { toolUseId: block.id, name: block.name, input: block.input } },
  );
  return { json: { output: { message: { role: "assistant", content } }, stopReason: turn.stop, usage } };
}

/** Static test credentials: the tests never read ~/.aws or the environment's keys. */
const awsTestCredentials = { accessKeyId: "AKIDTEST", secretAccessKey: "test-secret" };

const geminiFinishReasons = { end_turn: "STOP", tool_use: "STOP", max_tokens: "MAX_TOKENS" } as const;

function geminiReply(turn: Turn, streaming: boolean): WireReply {
  const calls = turn.call ? [{ name: turn.call.name, args: turn.call.input }] : [];
  const usage = { promptTokenCount: turn.usage[0], candidatesTokenCount: turn.usage[1] };
  if (streaming) return { sse: geminiStream(turn.text, calls, geminiFinishReasons[turn.stop], usage), chunkSize: 17 };
  const parts = [...(turn.text ? [{ text: turn.text }] : []), ...calls.map((call) => ({ functionCall: call }))];
  return {
    json: { candidates: [{ content: { role: "model", parts }, finishReason: geminiFinishReasons[turn.stop] }], usageMetadata: usage },
  };
}

function responsesReply(turn: Turn, streaming: boolean): WireReply {
  const output = responsesOutput(turn.text, turn.call ? [{ name: turn.call.name, arguments: turn.call.input }] : []);
  const response = responsesResponse(output, {
    usage: turn.usage,
    ...(turn.stop === "max_tokens" && { incompleteReason: "max_output_tokens" }),
  });
  return streaming ? { sse: responsesStream(response), chunkSize: 17 } : { json: response };
}

const adapters: Harness[] = [false, true].flatMap((streaming) => [
  {
    name: `AnthropicModel${streaming ? " (streaming)" : ""}`,
    streaming,
    create: (turns: Turn[]) => {
      server.reply(...turns.map((turn) => anthropicReply(turn, streaming)));
      return new AnthropicModel({ model: "claude-test", apiKey: "test", baseURL: server.url, maxRetries: 0 });
    },
    sentParts: () => {
      const { messages } = lastBody<{ messages: { content: Block[] }[] }>();
      const blocks = messages.flatMap((message) => message.content);
      const result = blocks.find((block) => block.type === "tool_result")?.content as Block[];
      const source = (list: Block[], type: string) =>
        (list.find((block) => block.type === type)?.source as { data?: string } | undefined)?.data ?? "";
      return {
        userImage: source(blocks, "image"),
        userDocument: source(blocks, "document"),
        resultImage: source(result, "image"),
        resultDocument: source(result, "document"),
      };
    },
  },
  {
    name: `OpenAIModel${streaming ? " (streaming)" : ""}`,
    streaming,
    create: (turns: Turn[]) => {
      server.reply(...turns.map((turn) => openAIReply(turn, streaming)));
      return new OpenAIModel({ model: "gpt-test", baseURL: `${server.url}/v1`, maxRetries: 0 });
    },
    // A tool message takes text only: the result's parts come in the user message after the results.
    sentParts: () => {
      const { messages } = lastBody<{ messages: { role: string; content: string | Block[] }[] }>();
      const users = messages
        .filter((message) => message.role === "user" && Array.isArray(message.content))
        .map((message) => message.content as Block[]);
      const image = (list: Block[] | undefined) =>
        dataOf((list?.find((block) => block.type === "image_url")?.image_url as { url?: string } | undefined)?.url ?? "");
      const file = (list: Block[] | undefined) =>
        dataOf((list?.find((block) => block.type === "file")?.file as { file_data?: string } | undefined)?.file_data ?? "");
      return { userImage: image(users[0]), userDocument: file(users[0]), resultImage: image(users[1]), resultDocument: file(users[1]) };
    },
  },
  {
    name: `BedrockModel${streaming ? " (streaming)" : ""}`,
    streaming,
    create: (turns: Turn[]) => {
      server.reply(...turns.map((turn) => bedrockReply(turn, streaming)));
      return new BedrockModel({
        model: "us.anthropic.claude-test-v1:0",
        region: "us-east-1",
        endpoint: server.url,
        credentials: awsTestCredentials,
        maxRetries: 0,
      });
    },
    sentParts: () => {
      const { messages } = lastBody<{ messages: { content: Block[] }[] }>();
      const blocks = messages.flatMap((message) => message.content);
      const result = (blocks.find((block) => block.toolResult)?.toolResult as { content?: Block[] } | undefined)?.content ?? [];
      const bytes = (list: Block[], kind: "image" | "document") =>
        (list.find((block) => block[kind])?.[kind] as { source?: { bytes?: string } } | undefined)?.source?.bytes ?? "";
      return {
        userImage: bytes(blocks, "image"),
        userDocument: bytes(blocks, "document"),
        resultImage: bytes(result, "image"),
        resultDocument: bytes(result, "document"),
      };
    },
  },
  {
    name: `GoogleModel${streaming ? " (streaming)" : ""}`,
    streaming,
    create: (turns: Turn[]) => {
      server.reply(...turns.map((turn) => geminiReply(turn, streaming)));
      return new GoogleModel({ model: "gemini-test", apiKey: "test", baseURL: server.url, maxRetries: 0 });
    },
    // Inline data in the user's turn; a result's parts follow its functionResponse in the same turn.
    sentParts: () => {
      const { contents } = lastBody<{ contents: { role: string; parts: Block[] }[] }>();
      const inline = (parts: Block[] | undefined) =>
        (parts ?? []).flatMap((part) => (part.inlineData ? [(part.inlineData as { data: string }).data] : []));
      const [userImage, userDocument] = inline(contents[0]?.parts);
      const resultTurn = contents.find((content) => content.parts.some((part) => part.functionResponse));
      const [resultImage, resultDocument] = inline(resultTurn?.parts);
      return {
        userImage: userImage ?? "",
        userDocument: userDocument ?? "",
        resultImage: resultImage ?? "",
        resultDocument: resultDocument ?? "",
      };
    },
  },
  {
    name: `OpenAIResponsesModel${streaming ? " (streaming)" : ""}`,
    streaming,
    create: (turns: Turn[]) => {
      server.reply(...turns.map((turn) => responsesReply(turn, streaming)));
      return new OpenAIResponsesModel({ model: "gpt-test", baseURL: `${server.url}/v1`, maxRetries: 0 });
    },
    sentParts: () => {
      const { input } = lastBody<{ input: Block[] }>();
      const user = input.find((item) => item.role === "user")?.content as Block[];
      const output = input.find((item) => item.type === "function_call_output")?.output as Block[];
      const image = (list: Block[]) => dataOf(list.find((block) => block.type === "input_image")?.image_url as string);
      const file = (list: Block[]) => dataOf(list.find((block) => block.type === "input_file")?.file_data as string);
      return { userImage: image(user), userDocument: file(user), resultImage: image(output), resultDocument: file(output) };
    },
  },
]);

type Block = Record<string, unknown>;

function lastBody<T>(): T {
  return server.requests.at(-1)?.body as T;
}

/** The base64 of a data: URL. */
function dataOf(url: string): string {
  return url.slice(url.indexOf(",") + 1);
}

// A 1×1 PNG, and bytes that stand for a PDF (no adapter reads them).
const png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
const pdf = Buffer.from("%PDF-1.4 a document for the contract").toString("base64");

describe.each(adapters)("Model contract, images and documents: $name", (harness) => {
  test("a user message's and a tool result's image and PDF reach the wire as the provider's own blocks", async () => {
    const model = harness.create([
      { text: "", call: { name: "screenshot", input: {} }, stop: "tool_use", usage: [20, 8] },
      { text: "I see both.", stop: "end_turn", usage: [30, 6] },
    ]);
    const registry = new ToolRegistry().add({
      name: "screenshot",
      description: "Takes a screenshot",
      parameters: { type: "object", properties: {} },
      execute: () =>
        toolOutput("The screen, and the report:", [
          { type: "image", mediaType: "image/png", data: png },
          { type: "document", mediaType: "application/pdf", data: pdf, name: "report.pdf" },
        ]),
    });
    const history: Message[] = [
      {
        role: "user",
        content: "Here is my screen and a PDF.",
        parts: [
          { type: "image", mediaType: "image/png", data: png },
          { type: "document", mediaType: "application/pdf", data: pdf, name: "notes.pdf" },
        ],
      },
    ];
    const result = await new Agent(model, registry).run("Take a screenshot too.", {
      history,
      ...(harness.streaming && { onEvent: () => {}, stream: true }),
    });
    expect(result.final).toBe("I see both.");
    expect(result.messages.find((message) => message.role === "tool")?.parts).toHaveLength(2);
    expect(harness.sentParts?.()).toEqual({ userImage: png, userDocument: pdf, resultImage: png, resultDocument: pdf });
  });
});

describe.each([fake, ...adapters])("Model contract: $name", (harness) => {
  const complete = async (model: Model) => {
    const events: ModelStreamEvent[] = [];
    const response = await model.complete(
      [{ role: "user", content: "hi" }],
      [],
      harness.streaming ? { onEvent: (event) => events.push(event) } : {},
    );
    return { response, events };
  };

  test("text: the content, end_turn and usage", async () => {
    const { response, events } = await complete(harness.create([{ text: "Hello there.", stop: "end_turn", usage: [12, 3] }]));
    expect(response).toMatchObject({
      message: { role: "assistant", content: "Hello there." },
      stopReason: "end_turn",
      usage: { inputTokens: 12, outputTokens: 3 },
    });
    expect(response.message.toolCalls).toBeUndefined();
    if (harness.streaming)
      expect(events.flatMap((event) => (event.type === "text-delta" ? [event.text] : [])).join("")).toBe("Hello there.");
  });

  test("a tool round trip through the Agent", async () => {
    const model = harness.create([
      { text: "Let me add.", call: { name: "add", input: { a: 2, b: 3 } }, stop: "tool_use", usage: [20, 8] },
      { text: "2 + 3 = 5.", stop: "end_turn", usage: [30, 6] },
    ]);
    const registry = new ToolRegistry().add({
      name: "add",
      description: "Adds two numbers",
      parameters: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] },
      execute: ({ a, b }) => Number(a) + Number(b),
    });
    const result = await new Agent(model, registry).run("What is 2 + 3?", harness.streaming ? { onEvent: () => {}, stream: true } : {});
    expect(result.final).toBe("2 + 3 = 5.");
    expect(result.messages.map((message) => message.role)).toEqual(["user", "assistant", "tool", "assistant"]);
    expect(result.messages[1]?.toolCalls?.map(({ name, arguments: args }) => ({ name, args }))).toEqual([
      { name: "add", args: { a: 2, b: 3 } },
    ]);
    expect(result.messages[2]).toMatchObject({ role: "tool", content: "5", toolCallId: result.messages[1]?.toolCalls?.[0]?.id });
    expect(result.usage).toMatchObject({ inputTokens: 50, outputTokens: 14 });
  });

  test.each<[Turn["stop"], StopReason]>([
    ["end_turn", "end_turn"],
    ["max_tokens", "max_tokens"],
  ])("stop reason %s → %s", async (stop, expected) => {
    const { response } = await complete(harness.create([{ text: "Cut", stop, usage: [1, 1] }]));
    expect(response.stopReason).toBe(expected);
  });
});
