import { afterEach, beforeEach, expect, test } from "vitest";
import { Agent } from "../../src/core/agent.js";
import type { Model } from "../../src/core/types.js";
import { AbortError } from "../../src/errors.js";
import { AnthropicModel } from "../../src/models/anthropic/index.js";
import { BedrockModel } from "../../src/models/bedrock/index.js";
import { GoogleModel } from "../../src/models/google/index.js";
import { OpenAIModel, OpenAIResponsesModel } from "../../src/models/openai/index.js";
import { startWireServer, type WireResponse, type WireServer } from "../../src/testing/wire-server.js";
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

let server: WireServer;
beforeEach(async () => {
  server = await startWireServer();
});
afterEach(() => server.close());

const longText = "word ".repeat(400);
/** Each model, and its provider's stream of `longText` (server-sent events, or AWS's binary event stream). */
const cases: [string, () => Model, () => WireResponse][] = [
  [
    "AnthropicModel",
    () => new AnthropicModel({ model: "claude-test", apiKey: "test", baseURL: server.url }),
    () => ({ sse: anthropicStream([{ type: "text", text: longText }], "end_turn") }),
  ],
  [
    "OpenAIModel",
    () => new OpenAIModel({ model: "gpt-test", baseURL: `${server.url}/v1` }),
    () => ({ sse: openAIStream(longText, [], "stop") }),
  ],
  [
    "BedrockModel",
    () =>
      new BedrockModel({
        model: "amazon.nova-micro-v1:0",
        region: "us-east-1",
        endpoint: server.url,
        credentials: { accessKeyId: "AKIDTEST", secretAccessKey: "test" },
      }),
    () => ({
      bytes: encodeBedrockEvents(bedrockStreamEvents([{ type: "text", text: longText }], "end_turn")),
      headers: { "content-type": "application/vnd.amazon.eventstream" },
    }),
  ],
  [
    "GoogleModel",
    () => new GoogleModel({ model: "gemini-test", apiKey: "test", baseURL: server.url }),
    () => ({ sse: geminiStream(longText, [], "STOP") }),
  ],
  [
    "OpenAIResponsesModel",
    () => new OpenAIResponsesModel({ model: "gpt-test", baseURL: `${server.url}/v1` }),
    () => ({ sse: responsesStream(responsesResponse(responsesOutput(longText, []))) }),
  ],
];

test.each(cases)("%s: aborting a run in the middle of a slow stream rejects promptly with an AbortError", async (_name, create, body) => {
  // About 40 s of stream in total; the abort comes after the first words.
  server.reply({ ...body(), chunkSize: 64, chunkDelayMs: 100 } as WireResponse);
  const controller = new AbortController();
  let words = 0;
  const started = Date.now();
  const run = new Agent(create(), new ToolRegistry(), { signal: controller.signal }).run("Talk", {
    stream: true,
    onEvent: (event) => {
      if (event.type === "text-delta" && ++words === 3) controller.abort();
    },
  });
  await expect(run).rejects.toBeInstanceOf(AbortError);
  expect(Date.now() - started).toBeLessThan(3000);
});

test.each(cases)("%s: an already aborted signal sends nothing", async (_name, create) => {
  const error = await create()
    .complete([{ role: "user", content: "hi" }], [], { signal: AbortSignal.abort() })
    .catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(AbortError);
  expect(server.requests).toHaveLength(0);
});
