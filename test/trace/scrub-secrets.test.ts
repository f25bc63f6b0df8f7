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

describe("what the scrubber recognises (docs/tracing.md, Secrets)", () => {
  const scrubber = createSecretScrubber();
  const awsSecret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";
  const pem = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAx4f\nQWxhZGRpbjpvcGVuc2VzYW1l\n-----END RSA PRIVATE KEY-----";

  it.each([
    // GitHub fine-grained tokens
    ["push with github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEF done", "push with [redacted] done"],
    // Bearer tokens made only of letters (mixed case, or too long for a word)
    ["curl -H 'Bearer AbCdEfGhIjKlMnOpQrSt'", "curl -H 'Bearer [redacted]'"],
    ["Bearer abcdefghijklmnopqrstuvwxyz", "Bearer [redacted]"],
    ["Authorization: Bearer abcdefghijklmnopqrstuvwxyz", "Authorization: [redacted]"],
    // AWS: ASIA ids, secret access keys after their name or their id
    ["id ASIAIOSFODNN7EXAMPLE ok", "id [redacted] ok"],
    [
      `aws_access_key_id = AKIAIOSFODNN7EXAMPLE\naws_secret_access_key = ${awsSecret}`,
      "aws_access_key_id = [redacted]\naws_secret_access_key = [redacted]",
    ],
    [`AKIAIOSFODNN7EXAMPLE,${awsSecret}`, "[redacted],[redacted]"],
    [`export AWS_SECRET_ACCESS_KEY=${awsSecret}`, "export AWS_SECRET_ACCESS_KEY=[redacted]"],
    [
      `{"SecretAccessKey": "${awsSecret}", "SessionToken": "FwoGZXIvYXdzEJr//////////wEaDM"}`,
      '{"SecretAccessKey": "[redacted]", "SessionToken": "[redacted]"}',
    ],
    // Stripe live (and test) secret and restricted keys
    ["sk_live_51H8abcdefghijklmnopqrstuv and rk_live_51H8abcdefghijklmnop", "[redacted] and [redacted]"],
    // Credentials in URLs
    ["postgres://ada:s3cr3t@db.example.com:5432/app", "postgres://[redacted]@db.example.com:5432/app"],
    ["redis://:p4ss@cache:6379", "redis://[redacted]@cache:6379"],
    ["GET https://api.example.com/v1?token=abc123&lang=en", "GET https://api.example.com/v1?token=[redacted]&lang=en"],
    [
      "https://maps.example.com/q?api_key=k-1&city=Paris&key=AIzaXYZ#top",
      "https://maps.example.com/q?api_key=[redacted]&city=Paris&key=[redacted]#top",
    ],
    // PEM private key blocks: the armour lines stay
    [`key:\n${pem}\nnext`, "key:\n-----BEGIN RSA PRIVATE KEY-----[redacted]-----END RSA PRIVATE KEY-----\nnext"],
    ["-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA", "-----BEGIN OPENSSH PRIVATE KEY-----[redacted]"],
    // NAME_API_KEY=…, *_TOKEN=, *_SECRET= and other named credentials, quoted values whole
    [
      "OPENAI_API_KEY=abc123 GITHUB_TOKEN=xyz JWT_SECRET='two words'",
      "OPENAI_API_KEY=[redacted] GITHUB_TOKEN=[redacted] JWT_SECRET='[redacted]'",
    ],
    ['db_password: "x y z", authToken: abc, private_key: k', 'db_password: "[redacted]", authToken: [redacted], private_key: [redacted]'],
    ["TOKEN=abc123 secret=xyz", "TOKEN=[redacted] secret=[redacted]"],
    // JSON inside a string (as a tool result holds it): escaped quotes
    ['{\\"password\\": \\"two words\\"}', '{\\"password\\": \\"[redacted]\\"}'],
  ])("hides %j", (input, expected) => {
    expect(scrubber.text(input)).toBe(expected);
  });

  it.each([
    "Bearer responsibilities are listed in section 4 (Bearer Responsibilities, state-of-the-art-solutions).",
    "Basic principles of Bearer instruments",
    "The secret: practice. Next token: the. max_tokens: 1024, eos_token: </s>",
    "commit 3f786850e387550fdab836ed7e6dc881de23001b, sha256 e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "request 123e4567-e89b-12d3-a456-426614174000 at https://example.com:8080/a@b by https://ada@example.com/?monkey=1",
    "Asia and AKIA alone, sk-short, sk_live_ and github_pat_ without a key",
    "password: null, has_password=false",
  ])("leaves ordinary text alone: %j", (input) => {
    expect(scrubber.text(input)).toBe(input);
  });

  it("hides the values of credential object keys, in any spelling, and keeps flags and lookalikes", () => {
    const payload = scrubber.payload({
      auth_token: "a",
      secret_key: 1,
      private_key: "-----BEGIN",
      aws_secret_access_key: "b",
      SessionToken: "c",
      password: { nested: true },
      apiKey: "d",
      "X-Api-Key": "e",
      has_password: false,
      password_hint: "the usual",
      eos_token: "</s>",
      next_page_token: "p2",
      max_tokens: 1024,
      usage: { input_tokens: 3 },
      result: 'config: {"password": "two words"}',
    });
    expect(JSON.parse(payload)).toEqual({
      auth_token: "[redacted]",
      secret_key: "[redacted]",
      private_key: "[redacted]",
      aws_secret_access_key: "[redacted]",
      SessionToken: "[redacted]",
      password: "[redacted]",
      apiKey: "[redacted]",
      "X-Api-Key": "[redacted]",
      has_password: false,
      password_hint: "the usual",
      eos_token: "</s>",
      next_page_token: "p2",
      max_tokens: 1024,
      usage: { input_tokens: 3 },
      result: 'config: {"password": "[redacted]"}',
    });
    expect(scrubber.isSecretKey("aws_secret_access_key")).toBe(true);
    expect(scrubber.isSecretKey("aws_access_key_id")).toBe(false);
  });

  it("matches user-chosen keys in any spelling", () => {
    expect(createSecretScrubber({ secretKeys: ["sessionId"] }).payload({ session_id: "s-1", "Session-ID": "s-2", user: "ada" })).toBe(
      '{"session_id":"[redacted]","Session-ID":"[redacted]","user":"ada"}',
    );
  });

  it("hides a long value or private key whole when the payload is cut inside it", () => {
    const small = createSecretScrubber({ maxPayloadLength: 60 });
    const password = small.text(`password: "${"p".repeat(1_000)}" and more`);
    expect(password).not.toMatch(/pp/);
    expect(password.startsWith('password: "[redacted]')).toBe(true);
    const key = small.text(`${pem.replace("QWxh", "QWxh".repeat(500))}`);
    expect(key).not.toContain("QWxh");
    expect(key.startsWith("-----BEGIN RSA PRIVATE KEY-----[redacted]")).toBe(true);
  });

  it("stays linear on hostile text (a sanity bound, not a benchmark)", () => {
    const hostile = [
      `${"a-".repeat(4_000)}password=`,
      `${"_".repeat(8_000)}token=`,
      `${": ".repeat(4_000)}x`,
      `Bearer ${"a-".repeat(4_000)}`,
      `https://${"a:".repeat(4_000)}`,
      `?${"a".repeat(8_000)}`,
      `AKIAIOSFODNN7EXAMPLE${" ".repeat(100)}${"A".repeat(8_000)}`,
      "-----BEGIN PRIVATE KEY-----".repeat(300),
      `"${"\\".repeat(4_000)}`,
    ];
    const started = performance.now();
    for (const text of hostile) scrubber.text(text);
    expect(performance.now() - started).toBeLessThan(1_000);
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
