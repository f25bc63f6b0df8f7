import { describe, expect, test } from "vitest";
import type { Model, ModelResponse, ModelStreamEvent } from "../../src/core/types.js";
import { AbortError } from "../../src/errors.js";
import { ProviderError } from "../../src/models/provider-error.js";
import { type RetryEvent, withRetry } from "../../src/models/with-retry.js";

const answer: ModelResponse = { message: { role: "assistant", content: "ok" }, stopReason: "end_turn" };
const overloaded = (details: Partial<ConstructorParameters<typeof ProviderError>[0]> = {}) =>
  new ProviderError({
    provider: "test",
    status: 529,
    errorType: "overloaded_error",
    providerMessage: "Overloaded",
    retryable: true,
    ...details,
  });

/** A model that fails with the given errors, in order, then answers. */
function flaky(...failures: Error[]): Model & { calls: number } {
  const model = {
    provider: "test",
    modelId: "flaky",
    calls: 0,
    async complete(_messages: unknown, _tools: unknown, options: { onEvent?: (event: { type: "text-delta"; text: string }) => void } = {}) {
      const failure = failures[model.calls++];
      options.onEvent?.({ type: "text-delta", text: "partial" });
      if (failure) throw failure;
      return answer;
    },
  };
  return model as Model & { calls: number };
}

describe("withRetry", () => {
  test("retries retryable provider errors with exponential backoff and jitter, then answers", async () => {
    const model = flaky(overloaded(), overloaded(), overloaded());
    const retries: RetryEvent[] = [];
    const wrapped = withRetry(model, { maxRetries: 3, baseDelayMs: 4, onRetry: (retry) => retries.push(retry) });
    expect(await wrapped.complete([], [])).toBe(answer);
    expect(model.calls).toBe(4);
    expect(retries.map((retry) => retry.attempt)).toEqual([1, 2, 3]);
    retries.forEach((retry, index) => {
      const backoff = 4 * 2 ** index;
      expect(retry.delayMs).toBeGreaterThan(backoff * 0.75 - 0.001);
      expect(retry.delayMs).toBeLessThanOrEqual(backoff);
    });
    expect(wrapped.provider).toBe("test");
    expect(wrapped.modelId).toBe("flaky");
  });

  test("past the budget, the last error is thrown with the number of attempts", async () => {
    const model = flaky(overloaded(), overloaded(), overloaded({ providerMessage: "last" }), overloaded());
    const error = (await withRetry(model, { maxRetries: 2, baseDelayMs: 1 })
      .complete([], [])
      .catch((caught: unknown) => caught)) as ProviderError;
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ attempts: 3, providerMessage: "last" });
    expect(error.message).toBe("test 529 overloaded_error: last (gave up after 3 attempts)");
  });

  test("non-retryable provider errors and other errors are thrown at once", async () => {
    const quota = new ProviderError({
      provider: "test",
      status: 429,
      errorType: "insufficient_quota",
      providerMessage: "quota",
      retryable: false,
    });
    const bug = new TypeError("bug");
    for (const failure of [quota, bug]) {
      const model = flaky(failure);
      await expect(withRetry(model, { baseDelayMs: 1 }).complete([], [])).rejects.toBe(failure);
      expect(model.calls).toBe(1);
    }
  });

  test("retry-after is honoured, capped by maxDelayMs (a longer wait is not attempted)", async () => {
    const delays: number[] = [];
    await withRetry(flaky(overloaded({ retryAfterMs: 7 })), { baseDelayMs: 1000, onRetry: ({ delayMs }) => delays.push(delayMs) }).complete(
      [],
      [],
    );
    expect(delays).toEqual([7]);
    const model = flaky(overloaded({ retryAfterMs: 5000 }));
    await expect(withRetry(model, { maxDelayMs: 1000 }).complete([], [])).rejects.toMatchObject({ retryAfterMs: 5000, attempts: 1 });
    expect(model.calls).toBe(1);
  });

  test("an attempt that already streamed is retried, and the listener hears model-call-retry before the new attempt streams", async () => {
    const model = flaky(overloaded({ requestId: "req_1" }));
    const events: ModelStreamEvent[] = [];
    const retries: RetryEvent[] = [];
    const response = await withRetry(model, { baseDelayMs: 1, onRetry: (retry) => retries.push(retry) }).complete([], [], {
      onEvent: (event) => events.push(event),
    });
    expect(response).toBe(answer);
    expect(model.calls).toBe(2);
    expect(events).toEqual([
      { type: "text-delta", text: "partial" },
      {
        type: "model-call-retry",
        attempt: 1,
        delayMs: retries[0]?.delayMs,
        streamed: true,
        error: { provider: "test", kind: "api", status: 529, errorType: "overloaded_error", message: "Overloaded" },
      },
      { type: "text-delta", text: "partial" },
    ]);
    expect(JSON.parse(JSON.stringify(events[1]))).toEqual(events[1]); // plain data: no cause, no headers
  });

  test("an attempt that failed before streaming says so (streamed: false); without a listener nothing is emitted", async () => {
    const silent: Model = {
      calls: 0,
      async complete(_messages, _tools, options = {}) {
        if ((this as { calls: number }).calls++ === 0)
          throw overloaded({ kind: "connection", status: undefined, errorType: "connection_error" });
        options.onEvent?.({ type: "text-delta", text: "whole" });
        return answer;
      },
    } as Model & { calls: number };
    const events: ModelStreamEvent[] = [];
    await withRetry(silent, { baseDelayMs: 1 }).complete([], [], { onEvent: (event) => events.push(event) });
    expect(
      events.map((event) => (event.type === "model-call-retry" ? [event.type, event.streamed, event.error.kind] : event.type)),
    ).toEqual([["model-call-retry", false, "connection"], "text-delta"]);
    expect(await withRetry(flaky(overloaded()), { baseDelayMs: 1 }).complete([], [])).toBe(answer);
  });

  test("aborting during the wait rejects promptly with an AbortError", async () => {
    const controller = new AbortController();
    const pending = withRetry(flaky(overloaded({ retryAfterMs: 10_000 })), { maxDelayMs: 60_000 }).complete([], [], {
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(), 10);
    const started = Date.now();
    await expect(pending).rejects.toBeInstanceOf(AbortError);
    expect(Date.now() - started).toBeLessThan(1000);
  });

  test("invalid settings are rejected early", () => {
    expect(() => withRetry(flaky(), { maxRetries: -1 })).toThrow(/maxRetries must be a whole number/);
    expect(() => withRetry(flaky(), { maxRetries: 1.5 })).toThrow(/maxRetries/);
    expect(() => withRetry(flaky(), { baseDelayMs: Number.NaN })).toThrow(/baseDelayMs/);
  });
});
