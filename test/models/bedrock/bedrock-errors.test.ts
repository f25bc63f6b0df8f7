import { readdirSync, readFileSync } from "node:fs";
import { inspect } from "node:util";
import { describe, expect, test } from "vitest";
import type { Message, ModelStreamEvent } from "../../../src/core/types.js";
import { AbortError, UsageError } from "../../../src/errors.js";
import { bedrockSdkPackage, loadBedrockSdk } from "../../../src/models/bedrock/load-bedrock-sdk.js";
import { ProviderError } from "../../../src/models/provider-error.js";
import type { RetryEvent } from "../../../src/models/with-retry.js";
import { startWireServer, type WireResponse } from "../../../src/testing/wire-server.js";
import { bedrockStreamEvents, encodeBedrockEvents } from "../../helpers/bedrock-event-stream.js";
import { fixtureReply } from "../../helpers/provider-fixtures.js";
import { testCredentials, useBedrockServer } from "./bedrock-harness.js";

const bedrock = useBedrockServer();
const user: Message[] = [{ role: "user", content: "hi" }];
const success = () => fixtureReply("bedrock/converse-text.json");
const answer = "The capital of France is Paris.";
const eventStream = { "content-type": "application/vnd.amazon.eventstream" };
const streamBytes = () => encodeBedrockEvents(bedrockStreamEvents([{ type: "text", text: answer }], "end_turn"));
/** Where the first text delta's frame ends in {@link streamBytes}: messageStart's frame, then "The "'s. */
const afterFirstDelta = () => encodeBedrockEvents(bedrockStreamEvents([{ type: "text", text: "The " }], "end_turn").slice(0, 2)).length;

async function failure(promise: Promise<unknown>): Promise<ProviderError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(ProviderError);
  return error as ProviderError;
}

/** An AWS JSON error: the exception's name only in x-amzn-errortype, the body `{ message }`. */
const awsError = (status: number, type: string, message = `${type} happened`): WireResponse => ({
  status,
  headers: { "x-amzn-errortype": `${type}:http://internal.amazon.com/coral/com.amazon.bedrock/`, "x-amzn-requestid": "req-1" },
  json: { message },
});

describe("BedrockModel: AWS errors", () => {
  test("the recorded 429 ThrottlingException: status, errorType, message, request id, retryable; retried with maxRetries", async () => {
    bedrock.server.reply(fixtureReply("bedrock/error-429-throttling-too-many-tokens.json"), success());
    const retries: RetryEvent[] = [];
    const response = await bedrock
      .model({ maxRetries: 1, retry: { baseDelayMs: 1, onRetry: (retry) => retries.push(retry) } })
      .complete(user, []);
    expect(response.stopReason).toBe("end_turn");
    expect(bedrock.server.requests).toHaveLength(2);
    expect(retries.map(({ error }) => [error.status, error.errorType])).toEqual([[429, "ThrottlingException"]]);

    bedrock.server.reply(...Array.from({ length: 3 }, () => fixtureReply("bedrock/error-429-throttling-too-many-tokens.json")));
    const error = await failure(bedrock.model({ maxRetries: 2 }).complete(user, []));
    expect(error).toMatchObject({
      provider: "bedrock",
      kind: "api",
      status: 429,
      errorType: "ThrottlingException",
      providerMessage: "Too many tokens, please wait before trying again.",
      retryable: true,
      requestId: "ca47a5ce-e260-4824-aa0e-2e62669d5d6e",
      attempts: 3,
    });
    expect(bedrock.server.requests).toHaveLength(2 + 3);
  });

  test("the recorded 400 invalid model id as a ValidationException: not retryable, sent once", async () => {
    bedrock.server.reply(
      fixtureReply("bedrock/error-400-invalid-model-identifier.json", { headers: { "x-amzn-errortype": "ValidationException" } }),
    );
    const error = await failure(bedrock.model({ model: "us.does-not-exist-model-v1:0", maxRetries: 3 }).complete(user, []));
    expect(error).toMatchObject({
      status: 400,
      errorType: "ValidationException",
      retryable: false,
      providerMessage: "The provided model identifier is invalid.",
    });
    expect(bedrock.server.requests).toHaveLength(1);
  });

  test("the same 400 as recorded, without x-amzn-errortype: judged by its status, no made-up type", async () => {
    bedrock.server.reply(fixtureReply("bedrock/error-400-invalid-model-identifier.json"));
    const error = await failure(bedrock.model().complete(user, []));
    expect(error).toMatchObject({
      status: 400,
      errorType: undefined,
      retryable: false,
      providerMessage: "The provided model identifier is invalid.",
    });
    expect(bedrock.server.requests).toHaveLength(1);
  });

  test.each([
    ["ThrottlingException", 429, true],
    ["ServiceUnavailableException", 503, true],
    ["InternalServerException", 500, true],
    ["ModelNotReadyException", 429, true],
    ["ModelTimeoutException", 408, true],
    ["ModelErrorException", 424, false],
    ["ValidationException", 400, false],
    ["AccessDeniedException", 403, false],
    ["ResourceNotFoundException", 404, false],
    ["ServiceQuotaExceededException", 400, false],
  ])("%s (HTTP %i): retryable %s", async (type, status, retryable) => {
    bedrock.server.reply(awsError(status, type), success());
    const error = await failure(bedrock.model({ maxRetries: 0 }).complete(user, []));
    expect(error).toMatchObject({ status, errorType: type, retryable, requestId: "req-1", providerMessage: `${type} happened` });
    expect(error.message).toBe(`bedrock ${status} ${type}: ${type} happened [request req-1]`);
  });

  test("an error body that echoes the secret access key keeps the words, not the key", async () => {
    bedrock.server.reply(awsError(403, "AccessDeniedException", `The key ${testCredentials.secretAccessKey} is not allowed`));
    const error = await failure(bedrock.model().complete(user, []));
    const shown = [
      error.message,
      error.providerMessage,
      String(error),
      inspect(error, { depth: 20, showHidden: true }),
      inspect(error.cause, { depth: 20 }),
    ];
    expect(error.providerMessage).toMatch(/\[redacted\]/);
    expect(shown.join("\n")).not.toContain(testCredentials.secretAccessKey);
  });
});

describe("BedrockModel: connections, timeouts, aborts", () => {
  test("a refused connection is a retryable connection error", async () => {
    const closed = await startWireServer();
    const url = closed.url;
    await closed.close();
    const error = await failure(bedrock.model({ endpoint: url, maxRetries: 0 }).complete(user, []));
    expect(error).toMatchObject({ provider: "bedrock", kind: "connection", errorType: "connection_error", retryable: true });
    expect(error.providerMessage).toBe(
      `the connection to ${url} (set by the endpoint option) failed: ECONNREFUSED (connection refused; nothing is listening at that address and port)`,
    );
    const named = await failure(bedrock.model({ endpoint: url, endpointSource: "the model string", maxRetries: 0 }).complete(user, []));
    expect(named.providerMessage).toMatch(/\(set by the model string\)/);
  });

  test("a connection dropped before the headers, or in the middle of a stream, is retried", async () => {
    bedrock.server.reply({ reset: true }, success());
    expect((await bedrock.model().complete(user, [])).stopReason).toBe("end_turn");
    expect(bedrock.server.requests).toHaveLength(2);

    bedrock.server.reply(
      { bytes: streamBytes(), headers: eventStream, dropAfterBytes: afterFirstDelta() + 5 },
      { bytes: streamBytes(), headers: eventStream },
    );
    const events: ModelStreamEvent[] = [];
    const response = await bedrock.model().complete(user, [], { onEvent: (event) => events.push(event) });
    expect(response.message.content).toBe(answer);
    expect(events.find((event) => event.type === "model-call-retry")).toMatchObject({
      streamed: true,
      error: { provider: "bedrock", kind: "connection", errorType: "connection_error" },
    });
  });

  test("timeoutMs bounds an attempt whose stream stalls, and the timeout is retried", async () => {
    bedrock.server.reply(
      { bytes: streamBytes(), headers: eventStream, stallAfterBytes: afterFirstDelta() },
      { bytes: streamBytes(), headers: eventStream },
    );
    const started = Date.now();
    const response = await bedrock.model({ timeoutMs: 300, idleTimeoutMs: 0 }).complete(user, [], { onEvent: () => {} });
    expect(response.message.content).toBe(answer);
    expect(Date.now() - started).toBeLessThan(3000);

    bedrock.server.reply({ stall: true });
    const error = await failure(bedrock.model({ timeoutMs: 150, maxRetries: 0 }).complete(user, []));
    expect(error).toMatchObject({ kind: "timeout", errorType: "timeout", retryable: true });
    expect(error.providerMessage).toBe("the model call took longer than its 0.15 s timeout (timeoutMs: 150)");
  });

  test("idleTimeoutMs ends a stream that goes silent (the HTTP handler's socket timeout), without any timeoutMs", async () => {
    bedrock.server.reply(
      { bytes: streamBytes(), headers: eventStream, stallAfterBytes: afterFirstDelta() },
      { bytes: streamBytes(), headers: eventStream },
    );
    const events: ModelStreamEvent[] = [];
    const started = Date.now();
    const response = await bedrock.model({ idleTimeoutMs: 150 }).complete(user, [], { onEvent: (event) => events.push(event) });
    expect(response.message.content).toBe(answer);
    expect(Date.now() - started).toBeLessThan(2500);
    expect(events.find((event) => event.type === "model-call-retry")).toMatchObject({
      streamed: true,
      error: { kind: "timeout", message: "the server sent nothing for 0.15 s (idleTimeoutMs: 150)" },
    });
  });

  test("aborting in the middle of a slow stream rejects promptly with an AbortError", async () => {
    bedrock.server.reply({
      bytes: encodeBedrockEvents(bedrockStreamEvents([{ type: "text", text: "word ".repeat(400) }], "end_turn")),
      headers: eventStream,
      chunkSize: 64,
      chunkDelayMs: 100,
    });
    const controller = new AbortController();
    let words = 0;
    const started = Date.now();
    const pending = bedrock.model().complete(user, [], {
      signal: controller.signal,
      onEvent: (event) => {
        if (event.type === "text-delta" && ++words === 3) controller.abort();
      },
    });
    await expect(pending).rejects.toBeInstanceOf(AbortError);
    expect(Date.now() - started).toBeLessThan(3000);
  });

  test("an already aborted signal sends nothing", async () => {
    await expect(bedrock.model().complete(user, [], { signal: AbortSignal.abort() })).rejects.toBeInstanceOf(AbortError);
    expect(bedrock.server.requests).toHaveLength(0);
  });
});

describe("BedrockModel: the optional SDK", () => {
  test("a missing @aws-sdk/client-bedrock-runtime is a UsageError naming the package and the command that installs it", async () => {
    const missing = Object.assign(new Error("Cannot find package '@aws-sdk/client-bedrock-runtime' imported from /app/x.js"), {
      code: "ERR_MODULE_NOT_FOUND",
    });
    const error = await loadBedrockSdk(() => Promise.reject(missing)).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toMatch(
      /@aws-sdk\/client-bedrock-runtime .*optional peer dependency.*npm i @aws-sdk\/client-bedrock-runtime/,
    );
    expect(bedrockSdkPackage.install).toBe("npm i @aws-sdk/client-bedrock-runtime");
    // A package that is there but fails to load is reported as it failed, not as "install it".
    const broken = new SyntaxError("Unexpected token");
    await expect(loadBedrockSdk(() => Promise.reject(broken))).rejects.toBe(broken);
  });

  test("the SDK is loaded by the model's first call only: every other file of minagent/bedrock imports it as types", () => {
    const folder = new URL("../../../src/models/bedrock/", import.meta.url);
    const valueImports = readdirSync(folder).flatMap((file) => {
      const source = readFileSync(new URL(file, folder), "utf8");
      const statics = [...source.matchAll(/^import (?!type )[^;]*from "(@aws-sdk\/[^"]+|@smithy\/[^"]+)"/gm)].map(
        (match) => `${file}: ${match[1]}`,
      );
      const dynamic = [...source.matchAll(/(?<!typeof )import\("(@aws-sdk\/[^"]+)"\)/g)].map((match) => `${file}: import(${match[1]})`);
      return [...statics, ...dynamic];
    });
    expect(valueImports).toEqual(["load-bedrock-sdk.ts: import(@aws-sdk/client-bedrock-runtime)"]);
  });
});
