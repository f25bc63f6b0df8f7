import { AssertionError } from "node:assert";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { type AgentEvent, FakeModel, type Model, type ModelResponse, ReActAgent, type RunResult, ToolRegistry } from "../../src/index.js";
import {
  type Cassette,
  cassetteModel,
  RecordingModel,
  ReplayModel,
  readCassette,
  reply,
  toolCall,
  withUsage,
} from "../../src/testing/index.js";

const apiKey = "sk-ant-api03-realLookingKey0123456789abcdefghijkl";
const system = "你是一个天气助手，先想再做。";
// Each test's cassette in a folder of its own, all removed at the end.
const folders: string[] = [];
afterAll(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});
const cassettePath = () => {
  const folder = mkdtempSync(join(tmpdir(), "minagent-cassette-"));
  folders.push(folder);
  return join(folder, "cassettes", "weather.json");
};

/** Stands in for a real provider: a scripted model that, like an SDK client, holds an API key. */
function keyedModel(script: ConstructorParameters<typeof FakeModel>[0]): Model {
  const fake = new FakeModel(script);
  return {
    provider: "anthropic",
    modelId: "claude-sonnet-4-5",
    apiKey,
    headers: { "x-api-key": apiKey, authorization: `Bearer ${apiKey}` },
    complete: (messages, tools, options) => fake.complete(messages, tools, options),
  } as Model;
}

function realModel(): Model {
  return keyedModel([
    withUsage(reply("Thought: 先查北京。", toolCall("weather", { city: "北京" }, "toolu_01")), { inputTokens: 92, outputTokens: 31 }),
    withUsage(reply("Thought: 再查上海。", toolCall("weather", { city: "上海" }, "toolu_02")), { inputTokens: 141, outputTokens: 29 }),
    withUsage(reply("北京晴 24°C，上海多云 27°C。"), { inputTokens: 188, outputTokens: 24 }),
  ]);
}

function weather(description = "查询某城市当前天气") {
  return new ToolRegistry().add({
    name: "weather",
    description,
    parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
    execute: ({ city }) => ({ 北京: "晴 24°C", 上海: "多云 27°C" })[city as string] ?? "未知",
  });
}

const run = (model: Model, options: { system?: string; description?: string } = {}) =>
  new ReActAgent(model, weather(options.description), { system: options.system ?? system }).run("对比北京和上海的天气");

async function record(): Promise<{ path: string; recorded: RunResult }> {
  const path = cassettePath();
  const recorded = await run(new RecordingModel(realModel(), { path }));
  return { path, recorded };
}

/** A result without its run id, which is new for every run: what a replay must reproduce exactly. */
const sameRun = ({ runId: _runId, ...result }: RunResult) => result;

/** Awaits `promise` and returns the AssertionError it rejects with. */
async function rejection(promise: Promise<unknown>): Promise<AssertionError> {
  const error = await promise.then(
    () => undefined,
    (error: unknown) => error,
  );
  expect(error).toBeInstanceOf(AssertionError);
  return error as AssertionError;
}

describe("record and replay", () => {
  it("replays a recorded run offline and gets the identical RunResult", async () => {
    const { path, recorded } = await record();
    const replay = new ReplayModel(path);
    const replayed = await run(replay);
    expect(sameRun(replayed)).toStrictEqual(sameRun(recorded));
    expect(replay.remaining).toBe(0);
    expect([replay.provider, replay.modelId]).toEqual(["anthropic", "claude-sonnet-4-5"]);
  });

  it("writes a readable cassette: each request's messages and tools, each response", async () => {
    const { path } = await record();
    const cassette = readCassette(path);
    expect(cassette).toMatchObject({
      format: "minagent-cassette",
      version: 1,
      model: { provider: "anthropic", modelId: "claude-sonnet-4-5" },
    });
    expect(cassette.interactions).toHaveLength(3);
    const [first, second] = cassette.interactions as [Cassette["interactions"][number], Cassette["interactions"][number]];
    expect(first.request.messages.map((message) => message.role)).toEqual(["system", "user"]);
    expect(first.request.tools).toEqual([
      { name: "weather", description: "查询某城市当前天气", parameters: expect.objectContaining({ type: "object" }) },
    ]);
    expect(second.request.messages.at(-1)).toEqual({ role: "tool", content: "晴 24°C", toolCallId: "toolu_01" });
    expect("response" in first && first.response.stopReason).toBe("tool_use");
  });

  it("never writes an API key into a cassette", async () => {
    const path = cassettePath();
    const leaky = keyedModel([reply(`I should not repeat ${apiKey}.`, toolCall("weather", { city: "北京", apiKey }, "toolu_01")), "done"]);
    await new ReActAgent(new RecordingModel(leaky, { path }), weather(), { system: `Authorization: Bearer ${apiKey}` }).run(
      `my key is ${apiKey}`,
    );
    const text = readFileSync(path, "utf8");
    expect(text).not.toContain(apiKey);
    expect(text).not.toContain("realLookingKey");
    expect(text).toContain("[redacted]");
    expect(text).not.toMatch(/headers|x-api-key/); // the model's own configuration is never serialised
  });

  it("fails loudly with a diff when the system prompt changed", async () => {
    const { path } = await record();
    const error = await rejection(run(new ReplayModel(path), { system: "你是一个天气助手。" }));
    expect(error.message).toBe(
      [
        `Replay call 1 does not match cassette ${path}: the request changed since it was recorded.`,
        "  messages[0].content:",
        '    recorded: "你是一个天气助手，先想再做。"',
        '    now:      "你是一个天气助手。"',
        "Re-record the cassette if the change is intended, or loosen the match, e.g. new ReplayModel(path, { match: { systemPrompt: false } }).",
      ].join("\n"),
    );
    expect(error.expected).toMatchObject({ messages: [{ role: "system", content: system }, { role: "user" }] });
  });

  it("fails with a diff when a tool schema changed", async () => {
    const { path } = await record();
    const error = await rejection(run(new ReplayModel(path), { description: "Current weather" }));
    expect(error.message).toContain('  tools[0].description:\n    recorded: "查询某城市当前天气"\n    now:      "Current weather"');
  });

  it("fails when the conversation diverges, e.g. a tool now returns something else", async () => {
    const { path } = await record();
    const changed = new ToolRegistry().add({
      name: "weather",
      description: "查询某城市当前天气",
      parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
      execute: () => "雨",
    });
    const error = await rejection(new ReActAgent(new ReplayModel(path), changed, { system }).run("对比北京和上海的天气"));
    expect(error.message).toMatch(/^Replay call 2 does not match/);
    expect(error.message).toContain('  messages[3].content:\n    recorded: "晴 24°C"\n    now:      "雨"');
  });

  it("accepts what the test opts out of comparing", async () => {
    const { path, recorded } = await record();
    const looser = await run(new ReplayModel(path, { match: { systemPrompt: false } }), { system: "你是一个天气助手。" });
    expect(looser.final).toBe(recorded.final);
    const toolsIgnored = await run(new ReplayModel(path, { match: { tools: false } }), { description: "Current weather" });
    expect(toolsIgnored.final).toBe(recorded.final);
    const custom = await run(new ReplayModel(path, { match: (saved, now) => saved.messages.length === now.messages.length }), {
      system: "other",
    });
    expect(custom.final).toBe(recorded.final);
  });

  it("says so when the run makes more calls than were recorded", async () => {
    const { path } = await record();
    const replay = new ReplayModel(path);
    await run(replay);
    const error = await rejection(replay.complete([], []));
    expect(error.message).toMatch(/^Replay call 4 has no recording: cassette .* holds 3 call\(s\)/);
  });

  it("records and replays a model error", async () => {
    const path = cassettePath();
    const failing: Model = {
      complete: () => Promise.reject(Object.assign(new Error(`401 invalid x-api-key ${apiKey}`), { name: "ProviderError" })),
    };
    await expect(run(new RecordingModel(failing, { path }))).rejects.toThrow(/401/);
    expect(readFileSync(path, "utf8")).not.toContain(apiKey);
    const replayed = await run(new ReplayModel(path)).catch((error: Error) => error);
    expect(replayed).toMatchObject({ name: "ProviderError", message: "401 invalid x-api-key [redacted]" });
  });

  it("streams a replay like the recorded model did", async () => {
    const { path } = await record();
    const deltas: string[] = [];
    const onEvent = (event: AgentEvent) => event.type === "text-delta" && deltas.push(event.text);
    await new ReActAgent(new ReplayModel(path), weather(), { system, onEvent, stream: true }).run("对比北京和上海的天气");
    expect(deltas).toEqual(["Thought: 先查北京。", "Thought: 再查上海。", "北京晴 24°C，上海多云 27°C。"]);
  });

  it("replays responses as copies, so a test cannot change the cassette it shares", async () => {
    const { path } = await record();
    const replay = new ReplayModel(path);
    const first = (await replay.complete(readCassette(path).interactions[0]?.request.messages ?? [], weather().schemas())) as ModelResponse;
    first.message.content = "changed";
    expect(readCassette(path).interactions[0]).toMatchObject({ response: { message: { content: "Thought: 先查北京。" } } });
  });
});

describe("cassetteModel", () => {
  it("records when the cassette is missing, replays when it exists, without creating the real model", async () => {
    const path = cassettePath();
    let created = 0;
    const create = () => {
      created++;
      return realModel();
    };
    const first = cassetteModel(path, create);
    expect(first).toBeInstanceOf(RecordingModel);
    const recorded = await run(first);
    expect(existsSync(path)).toBe(true);
    const second = cassetteModel(path, create);
    expect(second).toBeInstanceOf(ReplayModel);
    expect(sameRun(await run(second))).toStrictEqual(sameRun(recorded));
    expect(created).toBe(1);
    expect(cassetteModel(path, create, { mode: "record" })).toBeInstanceOf(RecordingModel);
    expect(() => cassetteModel(join(path, "..", "missing.json"), create, { mode: "replay" })).toThrow(
      /No cassette at .*missing\.json: record one first/,
    );
  });
});
