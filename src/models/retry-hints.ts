/**
 * HTTP statuses worth retrying: rate limited (429), server errors, and Anthropic's overloaded (529).
 * Other 4xx statuses mean the request itself is wrong, so sending it again cannot help.
 */
export function isRetryableStatus(status: number): boolean {
  return status === 429 || status === 500 || status === 502 || status === 503 || status === 504 || status === 529;
}

/** The wait a response asks for, from `retry-after-ms` (milliseconds) or `retry-after` (seconds or an HTTP date). */
export function parseRetryAfter(headers: { get(name: string): string | null } | undefined, now = Date.now()): number | undefined {
  const milliseconds = Number.parseFloat(headers?.get("retry-after-ms") ?? "");
  if (Number.isFinite(milliseconds) && milliseconds >= 0) return milliseconds;
  const value = headers?.get("retry-after");
  if (!value) return undefined;
  const seconds = Number(value.trim());
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
