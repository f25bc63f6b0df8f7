import { toAbortError } from "../../errors.js";
import { formatSeconds, type HookVerdict, readJsonAnswer } from "./read-hook-output.js";
import type { HookEventName, HttpHook } from "./types.js";

/** How to make one HTTP hook's request. */
export type HttpHookOptions = {
  /** The request body: the hook's input as JSON. */
  body: string;
  /** The environment `$VAR` in a header value is read from (only the hook's `allowedEnvVars`). */
  env: Readonly<Record<string, string | undefined>>;
  timeoutMs: number;
  /** The run's signal: aborting it aborts the request and rejects with an AbortError. */
  signal?: AbortSignal | undefined;
};

/** Most bytes of a response body read: an endpoint that sends more fails, as a command that prints more does. */
const maxBodyBytes = 1024 * 1024;

/**
 * POSTs the hook's input to its URL and reads the answer as Claude Code does: a 2xx response with an empty body is no
 * answer, one with a JSON object is read as a command's JSON output; any other body, any other status, a
 * connection that fails and a timeout are failures (the hook's policy decides what they block). A status cannot
 * block by itself: to deny, answer 2xx with a decision. The request follows no redirect, so the input goes only to
 * the URL written.
 */
export async function runHttpHook<E extends HookEventName>(event: E, hook: HttpHook, options: HttpHookOptions): Promise<HookVerdict<E>> {
  if (options.signal?.aborted) throw toAbortError(options.signal);
  const timeout = AbortSignal.timeout(options.timeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
  let response: Response;
  let body: string;
  try {
    response = await fetch(hook.url, {
      method: "POST",
      headers: { ...interpolatedHeaders(hook, options.env), "content-type": "application/json" },
      body: options.body,
      redirect: "manual",
      signal,
    });
    body = await readBody(response);
  } catch (error) {
    if (options.signal?.aborted) throw toAbortError(options.signal);
    if (timeout.aborted) return { kind: "failed", reason: `it timed out after ${formatSeconds(options.timeoutMs)}` };
    if (error instanceof BodyTooLarge) return { kind: "failed", reason: "it answered with more than 1 MiB" };
    return { kind: "failed", reason: `the request failed: ${describeFetchError(error)}` };
  }
  if (response.status < 200 || response.status > 299) return { kind: "failed", reason: `it answered HTTP ${response.status}` };
  const text = body.trim();
  if (text === "") return { kind: "answered", result: {} };
  if (!text.startsWith("{")) return { kind: "failed", reason: "its response body is not a JSON object" };
  return readJsonAnswer(event, text, "response body");
}

/**
 * The hook's headers, `$VAR` and `${VAR}` replaced by the variables its `allowedEnvVars` lists (others by nothing,
 * as in Claude Code: a header cannot be made to carry a secret the settings did not name).
 */
function interpolatedHeaders(hook: HttpHook, env: HttpHookOptions["env"]): Record<string, string> {
  const allowed = new Set(hook.allowedEnvVars ?? []);
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(hook.headers ?? {}))
    headers[name] = value.replace(/\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))/g, (_, braced, bare) => {
      const variable = (braced ?? bare) as string;
      return allowed.has(variable) ? (env[variable] ?? "") : "";
    });
  return headers;
}

class BodyTooLarge extends Error {}

async function readBody(response: Response): Promise<string> {
  if (!response.body) return "";
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    bytes += chunk.length;
    if (bytes > maxBodyBytes) {
      await response.body.cancel().catch(() => {});
      throw new BodyTooLarge();
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** undici's "fetch failed" hides the reason in `cause` (ECONNREFUSED, ENOTFOUND…). */
function describeFetchError(error: unknown): string {
  const cause = error instanceof Error ? (error.cause as { code?: string; message?: string } | undefined) : undefined;
  if (cause?.code) return cause.code;
  if (cause?.message) return cause.message;
  return error instanceof Error ? error.message : String(error);
}
