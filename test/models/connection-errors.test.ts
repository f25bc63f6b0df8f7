import { createServer as createHttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, test } from "vitest";
import { ProviderError } from "../../src/models/provider-error.js";
import { resolveModel } from "../../src/models/resolve-model.js";

// A new user's first failure is often a base URL that points nowhere: the error must name the URL, the
// network's reason and what set the URL, for every adapter, instead of fetch's bare "fetch failed".

/** A port on 127.0.0.1 where nothing listens: one that was just free. */
async function closedPort(): Promise<number> {
  const server = createHttpServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function failure(spec: string, env: Record<string, string>): Promise<ProviderError> {
  const model = await resolveModel(spec, { env, maxRetries: 0 });
  const error = await model.complete([{ role: "user", content: "hi" }], []).catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(ProviderError);
  return error as ProviderError;
}

describe("a connection that fails names the URL, the cause and what set the URL", () => {
  test.each([
    ["anthropic:claude-test", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", ""],
    ["openai-chat:gpt-test", "OPENAI_API_KEY", "OPENAI_BASE_URL", "/v1"],
  ])("%s with %s refused", async (spec, keyVariable, urlVariable, path) => {
    const url = `http://127.0.0.1:${await closedPort()}${path}`;
    const error = await failure(spec, { [keyVariable]: "test-key", [urlVariable]: url });
    expect(error).toMatchObject({ kind: "connection", errorType: "connection_error", retryable: true });
    expect(error.providerMessage).toBe(
      `the connection to ${url} (set by ${urlVariable}) failed: ECONNREFUSED (connection refused; nothing is listening at that address and port)`,
    );
  });

  test("a URL in the model string is named as the model string's", async () => {
    const url = `http://127.0.0.1:${await closedPort()}/v1`;
    const error = await failure(`openai-compatible:llama@${url}`, {});
    expect(error.providerMessage).toMatch(
      `the connection to ${url} (set by the model string "openai-compatible:llama@${url}") failed: ECONNREFUSED`,
    );
  });

  test("a host name that does not resolve is a DNS failure", async () => {
    const error = await failure("openai-compatible:llama@http://no-such-host.invalid/v1", {});
    expect(error.providerMessage).toMatch(
      /^the connection to http:\/\/no-such-host\.invalid\/v1 \(set by the model string .*\) failed: (ENOTFOUND|EAI_AGAIN) \(DNS lookup failed/,
    );
  });

  test("https to a server that speaks plain http is a TLS error", async () => {
    const server = createHttpServer((_request, response) => response.end("plain"));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const error = await failure("anthropic:claude-test", { ANTHROPIC_API_KEY: "test-key", ANTHROPIC_BASE_URL: url });
      expect(error.providerMessage).toMatch(`the connection to ${url} (set by ANTHROPIC_BASE_URL) failed: TLS error ERR_SSL_`);
      expect(error.providerMessage).toMatch(/does not speak TLS there: is it an http:\/\/ address\?/);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
