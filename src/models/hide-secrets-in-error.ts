import { createSecretScrubber, type SecretScrubber } from "../trace/scrub-secrets.js";
import { ProviderError } from "./provider-error.js";

// Not in provider-error.ts: that module is part of `import "minagent"`, which must not load the trace scrubber.

/**
 * Removes `secrets` (an adapter's API key) from an error made of a failed call, on top of the shape-based
 * scrubbing of `scrub-secrets` (`sk-…`, `Bearer …`, `x-api-key: …`): some servers echo the key in an error
 * body (a 401 "invalid key sk-…"). A ProviderError comes back as a new one with clean details; its cause
 * chain (the SDK's error, which holds the response body) is scrubbed in place, so neither `String(error)`
 * nor `util.inspect(error)` shows the key.
 */
export function hideSecretsInError<T>(error: T, secrets: readonly (string | undefined)[]): T {
  if (!(error instanceof Error)) return error;
  const scrubber = createSecretScrubber({ secrets, maxPayloadLength: 100_000 });
  scrubCauses(error instanceof ProviderError ? error.cause : error, scrubber, 0);
  if (!(error instanceof ProviderError)) return error;
  const details = error.details();
  const providerMessage = scrubber.text(details.providerMessage);
  const requestId = details.requestId === undefined ? undefined : scrubber.text(details.requestId);
  if (providerMessage === details.providerMessage && requestId === details.requestId) return error;
  return new ProviderError({ ...details, providerMessage, requestId }, { cause: error.cause }) as T;
}

function scrubCauses(error: unknown, scrubber: SecretScrubber, depth: number): void {
  if (!(error instanceof Error) || depth > 4) return;
  const fields = error as unknown as Record<string, unknown>;
  for (const key of ["message", "stack", ...Object.keys(error)]) {
    const value = fields[key];
    try {
      if (typeof value === "string") fields[key] = scrubber.text(value);
      else if (key !== "cause" && key !== "headers" && typeof value === "object" && value !== null && !(value instanceof Error))
        fields[key] = scrubber.value(value);
    } catch {
      // A read-only or exotic field: leave it, it was not built from the response.
    }
  }
  scrubCauses(error.cause, scrubber, depth + 1);
}
