import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { main } from "../../src/cli/main.js";
import { evaluate } from "../../src/cli/tools/calculator.js";
import { describeTime } from "../../src/cli/tools/current-time.js";
import { startWireServer, type WireServer } from "../../src/testing/wire-server.js";
import { fakeIo } from "../helpers/fake-io.js";
import { fixtureReply } from "../helpers/provider-fixtures.js";
import { anthropicStream, openAIStream } from "../helpers/wire-bodies.js";

let server: WireServer;
beforeEach(async () => {
  server = await startWireServer();
});
afterEach(() => server.close());

const apiKey = "sk-ant-SECRET-cli-key";

describe("minagent run", () => {
  test("streams the answer, prints tool calls and results compactly, and ends with usage and cost", async () => {
    server.reply(
      {
        sse: anthropicStream(
          [
            { type: "text", text: "I'll compute that." },
            { type: "tool_use", id: "toolu_1", name: "calculator", input: { expression: "17 * 23" } },
          ],
          "tool_use",
          { input_tokens: 612, output_tokens: 58 },
        ),
      },
      { sse: anthropicStream([{ type: "text", text: "17 × 23 = 391." }], "end_turn", { input_tokens: 689, output_tokens: 14 }) },
    );
    const { io, stdout, stderr } = fakeIo({ ANTHROPIC_API_KEY: apiKey, ANTHROPIC_BASE_URL: server.url });
    const code = await main(["run", "What is 17 * 23?", "--model", "anthropic:claude-haiku-4-5"], io);
    expect(stderr()).toBe(`→ calculator({"expression":"17 * 23"})
← calculator: 391
tokens: 1,301 in · 72 out · ≈ $0.00166 at list prices
`);
    expect(stdout()).toBe("I'll compute that.\n17 × 23 = 391.\n");
    expect(code).toBe(0);
    const request = server.requests[0]?.body as { stream: boolean; system: string; tools: { name: string }[] };
    expect(request.stream).toBe(true);
    expect(request.tools.map((tool) => tool.name)).toEqual(["calculator", "current_time"]);
    expect(request.system).toMatch(/Use the tools/);
    expect(JSON.stringify(server.requests)).not.toContain("SECRET");
  });

  test("runs against a keyless OpenAI-compatible server (Ollama-style), with the tool's error as a ✗ line", async () => {
    server.reply(
      { sse: openAIStream("", [{ name: "current_time", arguments: { timeZone: "Mars/Olympus" } }], "tool_calls") },
      { sse: openAIStream("I could not read the time on Mars.", [], "stop") },
    );
    const { io, stdout, stderr } = fakeIo({});
    const code = await main(["run", "What time is it on Mars?", "-m", `openai-compatible:qwen3:8b@${server.url}/v1`], io);
    expect(code).toBe(0);
    expect(stdout()).toBe("I could not read the time on Mars.\n");
    expect(stderr()).toBe(`→ current_time({"timeZone":"Mars/Olympus"})
✗ current_time: Unknown time zone "Mars/Olympus": use an IANA name such as Europe/Paris.
tokens: 0 in · 0 out · cost: no price known for qwen3:8b
`);
    expect(server.requests[0]?.headers.authorization).toBeUndefined();
    expect((server.requests[0]?.body as { model?: string } | undefined)?.model).toBe("qwen3:8b");
  });

  test("without a model it says how to choose one and points to the offline demo (exit 2)", async () => {
    const { io, stdout, stderr } = fakeIo({});
    expect(await main(["run", "hello"], io)).toBe(2);
    expect(stderr()).toMatch(/choose a model with --model \(or set MINAGENT_MODEL\)/);
    expect(stderr()).toMatch(/anthropic:<model>/);
    expect(stderr()).toMatch(/minagent demo react/);
    expect(stdout()).toBe("");
  });

  test.each([
    ["anthropic:claude-sonnet-4-5", "ANTHROPIC_API_KEY"],
    ["openai:gpt-4.1", "OPENAI_API_KEY"],
  ])("without the key for %s it exits 2 naming %s", async (model, variable) => {
    const { io, stderr } = fakeIo({ OPENAI_API_KEY: "", MINAGENT_MODEL: model });
    expect(await main(["run", "hello"], io)).toBe(2);
    expect(stderr()).toMatch(new RegExp(`Set the ${variable} environment variable`));
    expect(server.requests).toHaveLength(0);
  });

  test("a malformed model string or option exits 2 with the accepted syntax", async () => {
    const bad = fakeIo({});
    expect(await main(["run", "hi", "--model", "gemini:pro"], bad.io)).toBe(2);
    expect(bad.stderr()).toMatch(/unknown provider "gemini"[\s\S]*openai-compatible:<model>@<url>/);
    const option = fakeIo({});
    expect(await main(["run", "hi", "--max-steps", "0", "-m", "ollama:x"], option.io)).toBe(2);
    expect(option.stderr()).toMatch(/--max-steps must be a whole number ≥ 1/);
    const noTask = fakeIo({});
    expect(await main(["run", "--model", "ollama:x"], noTask.io)).toBe(2);
  });

  test("a provider failure exits 1 with the typed error's message and no key", async () => {
    server.reply(
      fixtureReply("anthropic/error-529-overloaded.json", { headers: { "retry-after-ms": "1" } }),
      fixtureReply("anthropic/error-529-overloaded.json", { headers: { "retry-after-ms": "1" } }),
    );
    const { io, stderr } = fakeIo({ ANTHROPIC_API_KEY: apiKey, ANTHROPIC_BASE_URL: server.url });
    expect(await main(["run", "hi", "--model", "anthropic:claude-haiku-4-5", "--max-retries", "1"], io)).toBe(1);
    expect(stderr()).toBe(`… 529 Overloaded; retrying in 0.0 s
minagent run: anthropic 529 overloaded_error: Overloaded (gave up after 2 attempts) [request req_01RCc7MbLyQNtGKzBTv8VCep]
`);
    expect(stderr()).not.toContain("SECRET");
  });

  test("--help lists the model syntax, and the top-level help lists run", async () => {
    const help = fakeIo({});
    expect(await main(["run", "--help"], help.io)).toBe(0);
    expect(help.stdout()).toMatch(/ollama:<model>/);
    const top = fakeIo({});
    await main(["--help"], top.io);
    expect(top.stdout()).toMatch(/minagent run <task> --model <m>/);
  });
});

describe("the CLI's tools", () => {
  test.each([
    ["17 * 23", 391],
    ["2 ^ 10 - 24", 1000],
    ["-(3 + 4) * 2", -14],
    ["2 ^ 3 ^ 2", 512],
    ["10 % 4 + .5", 2.5],
    ["1e3 / 8", 125],
  ])("calculator: %s = %d", (expression, value) => {
    expect(evaluate(expression)).toBe(value);
  });

  test.each(["", "2 +", "(1 + 2", "process.exit()", "1 / 0", "2 2"])(
    "calculator refuses %j with a message the model can read",
    (expression) => {
      expect(() => evaluate(expression)).toThrow(/^Cannot evaluate/);
    },
  );

  test("current_time describes a moment in a time zone", () => {
    expect(describeTime(new Date("2025-06-01T12:03:09Z"), "Europe/Paris")).toBe(
      "2025-06-01 14:03:09 (Europe/Paris, Sunday); ISO 2025-06-01T12:03:09.000Z",
    );
    expect(() => describeTime(new Date(), "Nowhere/Land")).toThrow(/Unknown time zone/);
  });
});

describe("cost estimates", () => {
  test("known models and their dated snapshots are priced; unknown ones are not guessed", async () => {
    const { estimateCost } = await import("../../src/trace/model-prices.js");
    const usage = { inputTokens: 1_000_000, outputTokens: 1_000_000, cacheReadTokens: 500_000 };
    expect(estimateCost("gpt-4o-2024-08-06", usage)).toBeCloseTo(0.5 * 2.5 + 0.5 * 1.25 + 10);
    expect(estimateCost("claude-haiku-4-5-20251001", { inputTokens: 1000, outputTokens: 0, cacheWriteTokens: 1000 })).toBeCloseTo(0.00125);
    expect(estimateCost("claude-sonnet-9", usage)).toBeUndefined();
    expect(estimateCost("toString", usage)).toBeUndefined();
  });
});
