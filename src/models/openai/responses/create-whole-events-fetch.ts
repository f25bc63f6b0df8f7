/**
 * Fetches for the Responses API's server-sent event streams, which name every event (`event:` before `data:`).
 * The SDK dispatches a pending event at the end of a stream (for servers that leave out the last blank line),
 * so a stream cut inside an event would arrive as an event with no data or half its JSON: a parse error,
 * reported as a malformed response, rather than the incomplete stream (retryable) it is.
 * - {@link createWholeEventsFetch}, around the guarded fetch, hands on whole events only (up to a blank line)
 *   and drops an unfinished last one, as the SSE specification says; the collector then finds the stream incomplete.
 * - {@link createTerminatedEventsFetch}, under it, ends a stream whose whole last line lacks only its line break
 *   with that break and a blank line, so that its last event (`response.completed`) is not lost.
 * Other bodies, and failures, pass through as they are.
 * @see https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation
 */
export function createWholeEventsFetch(inner: typeof fetch): typeof fetch {
  return transformEventStreams(inner, wholeEvents);
}

/** See {@link createWholeEventsFetch}: a last line that is a whole `data:` line gets its missing line break and blank line. */
export function createTerminatedEventsFetch(inner: typeof fetch | undefined): typeof fetch {
  return transformEventStreams(inner ?? ((input, init) => globalThis.fetch(input, init)), terminatedEvents);
}

type Transform = (source: ReadableStream<Uint8Array>) => ReadableStream<Uint8Array>;

function transformEventStreams(inner: typeof fetch, transform: Transform): typeof fetch {
  return async (input, init) => {
    const response = await inner(input, init);
    if (response.body === null || !response.headers.get("content-type")?.includes("text/event-stream")) return response;
    const changed = new Response(transform(response.body), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
    Object.defineProperty(changed, "url", { value: response.url });
    return changed;
  };
}

const newline = 0x0a;
const carriageReturn = 0x0d;

function wholeEvents(source: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
  const reader = source.getReader();
  let held: Uint8Array = new Uint8Array(0);
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      for (;;) {
        const result = await reader.read().catch((error: unknown) => ({ error }));
        if ("error" in result) {
          controller.error(result.error);
          return;
        }
        if (result.done) {
          controller.close(); // an unfinished last event is dropped
          return;
        }
        held = concat(held, result.value);
        const end = afterLastBlankLine(held);
        if (end > 0) {
          controller.enqueue(held.subarray(0, end));
          held = held.slice(end);
          return;
        }
      }
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
}

/** The offset just after the last blank line (`\n\n` or `\n\r\n`) of `bytes`, or 0. */
function afterLastBlankLine(bytes: Uint8Array): number {
  for (let index = bytes.length - 1; index > 0; index--) {
    if (bytes[index] !== newline) continue;
    if (bytes[index - 1] === newline || (bytes[index - 1] === carriageReturn && bytes[index - 2] === newline)) return index + 1;
  }
  return 0;
}

function terminatedEvents(source: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
  const reader = source.getReader();
  // The bytes after the last line break seen: the stream's last line, if it ends here.
  let lastLine: Uint8Array = new Uint8Array(0);
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const result = await reader.read().catch((error: unknown) => ({ error }));
      if ("error" in result) controller.error(result.error);
      else if (result.done) {
        if (isWholeDataLine(lastLine)) controller.enqueue(new TextEncoder().encode("\n\n"));
        controller.close();
      } else {
        const chunk = result.value;
        const lastBreak = chunk.lastIndexOf(newline);
        lastLine = lastBreak === -1 ? concat(lastLine, chunk) : chunk.slice(lastBreak + 1);
        controller.enqueue(chunk);
      }
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
}

/** A `data:` line whose JSON is complete (a line cut short is not). */
function isWholeDataLine(bytes: Uint8Array): boolean {
  const line = new TextDecoder().decode(bytes).replace(/\r$/, "");
  if (!line.startsWith("data:")) return false;
  try {
    JSON.parse(line.slice("data:".length));
    return true;
  } catch {
    return false;
  }
}

function concat(left: Uint8Array, right: Uint8Array): Uint8Array {
  if (left.length === 0) return right;
  const joined = new Uint8Array(left.length + right.length);
  joined.set(left);
  joined.set(right, left.length);
  return joined;
}
