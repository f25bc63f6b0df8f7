import { createTransportError, isNetworkError } from "./provider-error.js";

/** Settings of {@link createGuardedFetch}. */
export type GuardedFetchOptions = {
  /** Provider name for the errors. */
  provider: string;
  /** The fetch to guard (default: the global fetch). */
  fetch?: typeof fetch | undefined;
  /** Longest silence while a response body arrives, in milliseconds; 0 turns the watch off. */
  idleTimeoutMs: number;
};

/**
 * A fetch for a provider SDK that watches what the SDK does not: the response body. The SDKs time out
 * only until the headers arrive and hand the body's failures through raw (`TypeError: terminated`).
 * Through this fetch, a body (a stream, or a JSON body after its headers)
 * - that stays silent for `idleTimeoutMs` fails with a retryable `timeout` ProviderError, and the connection is closed;
 * - whose connection drops fails with a retryable `connection` ProviderError;
 * - that is a server-sent event stream ending in the middle of a line loses that partial line, as the SSE
 *   specification says it must, instead of handing it to a parser (which would log it and call the stream
 *   malformed): the stream simply ends early, and the adapter reports it incomplete.
 * An abort of the request's own signal passes through unchanged, as the SDK expects.
 */
export function createGuardedFetch({ provider, fetch: inner, idleTimeoutMs }: GuardedFetchOptions): typeof fetch {
  return async (input, init) => {
    const response = await (inner ?? globalThis.fetch)(input, init);
    if (response.body === null) return response;
    const eventStream = response.headers.get("content-type")?.includes("text/event-stream") ?? false;
    const body = guardBody(response.body, { provider, idleTimeoutMs, eventStream, signal: init?.signal ?? undefined });
    const guarded = new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
    Object.defineProperty(guarded, "url", { value: response.url });
    return guarded;
  };
}

type ReadResult = Awaited<ReturnType<ReadableStreamDefaultReader<Uint8Array>["read"]>>;

type BodyWatch = { provider: string; idleTimeoutMs: number; eventStream: boolean; signal: AbortSignal | undefined };

const newline = 0x0a;
const carriageReturn = 0x0d;

function guardBody(source: ReadableStream<Uint8Array>, watch: BodyWatch): ReadableStream<Uint8Array> {
  const reader = source.getReader();
  // An event stream's bytes after its last line break: held back until the line is complete.
  let partialLine: Uint8Array[] = [];
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      // A pull must enqueue something or end the stream: a reader waits on it.
      for (;;) {
        let result: ReadResult;
        try {
          result = await readWithin(reader, watch);
        } catch (error) {
          controller.error(error);
          return;
        }
        if (result.done) {
          // A partial last line is dropped (the SSE spec); the collector then finds the stream incomplete.
          controller.close();
          return;
        }
        const chunk = result.value;
        if (!watch.eventStream) {
          controller.enqueue(chunk);
          return;
        }
        const end = lastLineBreak(chunk) + 1;
        if (end === 0) {
          partialLine.push(chunk);
          continue;
        }
        controller.enqueue(concat([...partialLine, chunk.subarray(0, end)]));
        partialLine = end < chunk.length ? [chunk.subarray(end)] : [];
        return;
      }
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
}

/** The next chunk, or a ProviderError: silence longer than the idle timeout, or a dropped connection. */
async function readWithin(reader: ReadableStreamDefaultReader<Uint8Array>, watch: BodyWatch): Promise<ReadResult> {
  let timer: NodeJS.Timeout | undefined;
  const read = reader.read();
  try {
    if (!(watch.idleTimeoutMs > 0 && watch.idleTimeoutMs < Number.POSITIVE_INFINITY)) return await read;
    const silence = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const seconds = watch.idleTimeoutMs / 1000;
        const problem = `the server sent nothing for ${seconds} s while sending its response (idleTimeoutMs: ${watch.idleTimeoutMs})`;
        reject(createTransportError(watch.provider, "timeout", undefined, problem));
      }, watch.idleTimeoutMs);
    });
    return await Promise.race([read, silence]);
  } catch (error) {
    if (watch.signal?.aborted) throw error; // the SDK's own abort: it ends the stream quietly
    read.catch(() => {}); // a read left pending by the timeout rejects when the reader is cancelled
    reader.cancel(error).catch(() => {}); // closes the connection
    if (isNetworkError(error)) {
      throw createTransportError(
        watch.provider,
        "connection",
        error,
        `the connection dropped while the response was arriving${reason(error)}`,
      );
    }
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

function reason(error: unknown): string {
  const cause = error instanceof Error ? error.cause : undefined;
  return cause instanceof Error && cause.message !== "" ? ` (${cause.message})` : "";
}

function lastLineBreak(bytes: Uint8Array): number {
  for (let index = bytes.length - 1; index >= 0; index--) {
    if (bytes[index] === newline || bytes[index] === carriageReturn) return index;
  }
  return -1;
}

function concat(chunks: Uint8Array[]): Uint8Array {
  if (chunks.length === 1) return chunks[0] as Uint8Array;
  const joined = new Uint8Array(chunks.reduce((total, chunk) => total + chunk.length, 0));
  let offset = 0;
  for (const chunk of chunks) {
    joined.set(chunk, offset);
    offset += chunk.length;
  }
  return joined;
}
