import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { AnthropicModel } from "../../src/models/anthropic/index.js";
import { OpenAIModel } from "../../src/models/openai/index.js";
import { ollamaBaseURL, parseModelSpec, resolveModel } from "../../src/models/resolve-model.js";
import { startWireServer, type WireServer } from "../../src/testing/wire-server.js";
import { fixtureReply } from "../helpers/provider-fixtures.js";

describe("parseModelSpec", () => {
  test.each([
    [
      "anthropic:claude-haiku-4-5",
      { provider: "anthropic", model: "claude-haiku-4-5", apiKeyVariable: "ANTHROPIC_API_KEY", apiKeyRequired: true },
    ],
    ["openai:gpt-4.1", { provider: "openai", model: "gpt-4.1", apiKeyVariable: "OPENAI_API_KEY", apiKeyRequired: true }],
    [
      "ollama:qwen3:8b",
      { provider: "ollama", model: "qwen3:8b", baseURL: ollamaBaseURL, apiKeyVariable: "OLLAMA_API_KEY", apiKeyRequired: false },
    ],
    ["ollama:llama3.2@http://gpu-box:11434/v1", { provider: "ollama", model: "llama3.2", baseURL: "http://gpu-box:11434/v1" }],
    [
      "openai-compatible:meta-llama/Llama-3.1-8B-Instruct@http://localhost:8000/v1",
      {
        provider: "openai-compatible",
        model: "meta-llama/Llama-3.1-8B-Instruct",
        baseURL: "http://localhost:8000/v1",
        apiKeyVariable: "OPENAI_COMPATIBLE_API_KEY",
        apiKeyRequired: false,
      },
    ],
    ["openai-compatible:m@x@https://user:pass@host/v1", { model: "m@x", baseURL: "https://user:pass@host/v1" }],
    // Ollama without a path gets its /v1; another path (a reverse proxy's prefix) is kept.
    ["ollama:qwen3:8b@http://gpu-box:11434", { model: "qwen3:8b", baseURL: "http://gpu-box:11434/v1" }],
    ["ollama:qwen3:8b@http://gpu-box:11434/", { baseURL: "http://gpu-box:11434/v1" }],
    ["ollama:qwen3:8b@https://proxy.example/ollama/v1", { baseURL: "https://proxy.example/ollama/v1" }],
  ])("%s", (spec, expected) => {
    expect(parseModelSpec(spec)).toMatchObject(expected);
  });

  test.each([
    ["claude-haiku-4-5", /name the provider before the model, as <provider>:<model>/],
    ["anthropic:", /no model id/],
    ["gemini:pro", /unknown provider "gemini"/],
    ["openai-compatible:llama3", /needs its URL/],
    ["openai:gpt-4.1@http://localhost:1234/v1", /takes no URL/],
    [
      "ollama:qwen3@http://gpu-box:11434/api",
      /http:\/\/gpu-box:11434\/api is Ollama's native API; .* under \/v1: use http:\/\/gpu-box:11434\/v1/,
    ],
    ["ollama:qwen3@http://gpu box", /"http:\/\/gpu box" is not a URL/],
  ])("%s is refused with the accepted syntax", (spec, problem) => {
    expect(() => parseModelSpec(spec)).toThrow(problem);
    expect(() => parseModelSpec(spec)).toThrow(/openai-compatible:<model>@<url>/);
  });
});

describe("resolveModel", () => {
  let server: WireServer;
  beforeEach(async () => {
    server = await startWireServer({ keepCredentials: true });
  });
  afterEach(() => server.close());

  test("creates the adapter with the key and base URL from the given environment", async () => {
    const anthropic = await resolveModel("anthropic:claude-test", { env: { ANTHROPIC_API_KEY: "key-a", ANTHROPIC_BASE_URL: server.url } });
    expect(anthropic).toBeInstanceOf(AnthropicModel);
    expect(anthropic).toMatchObject({ provider: "anthropic", modelId: "claude-test" });
    server.reply(fixtureReply("anthropic/messages-end-turn-text.json"));
    await anthropic.complete([{ role: "user", content: "hi" }], []);
    expect(`${server.requests[0]?.headers.authorization}${server.requests[0]?.headers["x-api-key"]}`).toContain("key-a");

    const local = await resolveModel(`openai-compatible:qwen3:8b@${server.url}/v1`, { env: { OPENAI_API_KEY: "must-not-leak" } });
    expect(local).toBeInstanceOf(OpenAIModel);
    expect(local).toMatchObject({ provider: "openai-compatible", modelId: "qwen3:8b" });
    server.reply(fixtureReply("openai/chat-text-stop.json"));
    await local.complete([{ role: "user", content: "hi" }], []);
    expect(server.requests[1]?.headers.authorization).toBeUndefined();

    const gateway = await resolveModel(`openai-compatible:m@${server.url}/v1`, { env: { OPENAI_COMPATIBLE_API_KEY: "key-g" } });
    server.reply(fixtureReply("openai/chat-text-stop.json"));
    await gateway.complete([{ role: "user", content: "hi" }], []);
    expect(server.requests[2]?.headers.authorization).toBe("Bearer key-g");
  });

  test("ollama:<model>@<url> without /v1 reaches Ollama's OpenAI-compatible endpoint", async () => {
    const model = await resolveModel(`ollama:qwen3:8b@${server.url}`, { env: {} });
    server.reply(fixtureReply("openai/chat-text-stop.json"));
    await model.complete([{ role: "user", content: "hi" }], []);
    expect(server.requests[0]?.path).toBe("/v1/chat/completions");
  });

  test("a 404 from a compatible server whose URL has no path says to add /v1", async () => {
    const model = await resolveModel(`openai-compatible:m@${server.url}`, { env: {}, maxRetries: 0 });
    server.reply({ status: 404, body: "404 page not found", headers: { "content-type": "text/plain" } });
    await expect(model.complete([{ role: "user", content: "hi" }], [])).rejects.toThrow(
      `404 page not found (the base URL ${server.url} has no path; OpenAI-compatible servers usually serve the API under /v1: try ${server.url}/v1)`,
    );
    expect(server.requests[0]?.path).toBe("/chat/completions");
  });

  test("timeoutMs and idleTimeoutMs reach the adapter", async () => {
    const model = await resolveModel(`openai-compatible:m@${server.url}/v1`, { env: {}, maxRetries: 0, timeoutMs: 100 });
    server.reply({ json: { choices: [] }, stallAfterBytes: 0 });
    await expect(model.complete([{ role: "user", content: "hi" }], [])).rejects.toMatchObject({ kind: "timeout" });
    const idle = await resolveModel(`openai-compatible:m@${server.url}/v1`, { env: {}, maxRetries: 0, idleTimeoutMs: 100 });
    server.reply({ json: { choices: [] }, stallAfterBytes: 0 });
    await expect(idle.complete([{ role: "user", content: "hi" }], [])).rejects.toMatchObject({
      kind: "timeout",
      providerMessage: /idleTimeoutMs: 100/,
    });
  });

  test("a missing key is a usage error naming the variable", async () => {
    await expect(resolveModel("openai:gpt-4.1", { env: {} })).rejects.toThrow(/set the OPENAI_API_KEY environment variable/);
    await expect(resolveModel("anthropic:claude-haiku-4-5", { env: { ANTHROPIC_API_KEY: "" } })).rejects.toThrow(/ANTHROPIC_API_KEY/);
    await expect(resolveModel("ollama:llama3.2", { env: {} })).resolves.toMatchObject({ provider: "ollama" });
  });
});
