import { describe, expect, it } from "vitest";
import { Agent, FakeModel, ToolRegistry } from "../../src/index.js";
import { reply, toolCall } from "../../src/testing/index.js";
import { MemoryTraceExporter } from "../../src/trace/memory-trace-exporter.js";
import { createSecretScrubber } from "../../src/trace/scrub-secrets.js";
import { Tracer } from "../../src/trace/tracer.js";

const anthropicKey = "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789";
const openaiKey = "sk-proj-ABCDEFGHIJKLMNOPQRSTUVWX1234";

describe("createSecretScrubber", () => {
  const scrubber = createSecretScrubber({ secrets: ["hunter2-the-password", undefined, "ab"] });

  it.each([
    [`key ${anthropicKey} here`, "key [redacted] here"],
    [`OPENAI_API_KEY=${openaiKey}`, "OPENAI_API_KEY=[redacted]"],
    ["Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.payload.sig", "Authorization: [redacted]"],
    ['{"x-api-key": "abc123456789"}', '{"x-api-key": "[redacted]"}'],
    ["curl -H 'Bearer abcdefgh12345678'", "curl -H 'Bearer [redacted]'"],
    ["aws AKIAIOSFODNN7EXAMPLE ok", "aws [redacted] ok"],
    ["token ghp_abcdefghijklmnopqrstuvwxyz0123", "token [redacted]"],
    ["my hunter2-the-password!", "my [redacted]!"],
    ["an ab stays: user-marked secrets under 4 characters are ignored", "an ab stays: user-marked secrets under 4 characters are ignored"],
    ["nothing secret in sk-short or a task", "nothing secret in sk-short or a task"],
    ["Basic principles of Bearer instruments", "Basic principles of Bearer instruments"],
    ["Basic dXNlcjpwYXNzd29yZDEyMw==", "Basic [redacted]"],
  ])("text(%j)", (input, expected) => {
    expect(scrubber.text(input)).toBe(expected);
  });

  it("hides the values of secret keys in payloads, whatever they look like", () => {
    const payload = scrubber.payload({
      url: "https://api.example.com",
      headers: { Authorization: "plain", "X-Api-Key": 42, cookie: { a: 1 } },
      password: "x",
    });
    expect(JSON.parse(payload)).toEqual({
      url: "https://api.example.com",
      headers: { Authorization: "[redacted]", "X-Api-Key": "[redacted]", cookie: "[redacted]" },
      password: "[redacted]",
    });
  });

  it("finds marked secrets inside JSON payloads, escaped characters and all", () => {
    const quoted = createSecretScrubber({ secrets: ['pa"ss\\word-42'] });
    expect(quoted.payload({ note: 'the pa"ss\\word-42 is here' })).toBe('{"note":"the [redacted] is here"}');
  });

  it("hides user-chosen keys too", () => {
    expect(createSecretScrubber({ secretKeys: ["sessionId"] }).payload({ sessionid: "s-1", user: "ada" })).toBe(
      '{"sessionid":"[redacted]","user":"ada"}',
    );
  });

  it("truncates long payloads with a marker at the configured size, after hiding secrets", () => {
    const small = createSecretScrubber({ maxPayloadLength: 20 });
    expect(small.text("x".repeat(50))).toBe(`${"x".repeat(20)}\n…[truncated 30 of 50 characters]`);
    // The key starts inside the kept part: without scrubbing first, its first characters would leak.
    expect(small.text(`0123456789${anthropicKey}`)).toBe("0123456789[redacted]");
  });

  it("copies values for cassettes without truncating", () => {
    const scrub = createSecretScrubber({ maxPayloadLength: 5 });
    expect(scrub.value({ content: `a long text with ${openaiKey}`, apiKey: "k" })).toEqual({
      content: "a long text with [redacted]",
      apiKey: "[redacted]",
    });
  });
});

describe("tracing never writes a secret", () => {
  it("scrubs keys from prompts, arguments, results, answers and errors of a whole run", async () => {
    const memory = new MemoryTraceExporter();
    const tracer = new Tracer({ exporters: [memory], secrets: ["my-customer-secret"] });
    const registry = new ToolRegistry()
      .add({
        name: "fetch",
        description: "HTTP GET",
        parameters: { type: "object", properties: { url: { type: "string" }, headers: { type: "object" } }, required: ["url"] },
        execute: () => "the body mentions my-customer-secret",
      })
      .add({
        name: "explode",
        description: "fails",
        parameters: { type: "object" },
        execute: () => {
          throw new Error(`could not authenticate with ${openaiKey}`);
        },
      });
    const model = new FakeModel([
      reply(
        "",
        toolCall("fetch", { url: "https://x", headers: { authorization: "Bearer abcdefgh12345678" } }, "c1"),
        toolCall("explode", {}, "c2"),
      ),
      `Done. (Your key was ${anthropicKey}.)`,
    ]);
    const agent = new Agent(model, registry, { system: `Use api_key=${anthropicKey} when asked.`, onEvent: tracer.listener({ model }) });
    await agent.run("Fetch it. My password: my-customer-secret");
    const text = JSON.stringify(memory.traces);
    for (const secret of [anthropicKey, openaiKey, "abcdefgh12345678", "my-customer-secret"]) expect(text).not.toContain(secret);
    expect(text).toContain("[redacted]");
  });

  it("truncates large payloads in spans", async () => {
    const memory = new MemoryTraceExporter();
    const tracer = new Tracer({ exporters: [memory], maxPayloadLength: 100 });
    const registry = new ToolRegistry().add({
      name: "dump",
      description: "",
      parameters: { type: "object" },
      execute: () => "y".repeat(5_000),
    });
    await new Agent(new FakeModel([reply("", toolCall("dump", {}, "c1")), "ok"]), registry, { onEvent: tracer.listener() }).run("go");
    const result = memory.traces[0]?.spans.find((span) => span.type === "tool-execution")?.attributes["gen_ai.tool.call.result"];
    expect(result).toBe(`${"y".repeat(100)}\n…[truncated 4900 of 5000 characters]`);
  });
});
