import type { IncomingMessage } from "node:http";
import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import type { LookupFunction } from "node:net";
import type { Readable } from "node:stream";
import { createBrotliDecompress, createGunzip, createInflate } from "node:zlib";
import { ToolError } from "../../errors.js";
import { type LookupAll, PrivateAddressError, type ResolvedAddress, resolveCheckedAddresses } from "./address-guard.js";
import { hostOfUrl, portOfUrl } from "./domain-pattern.js";

/** What {@link fetchPage} needs besides the URL. */
export type FetchPageOptions = {
  /** Resolves host names; every address is checked before one is connected to. */
  lookup: LookupAll;
  /** Whether a rule names this host, so that it may be reached at a loopback, link-local or private address. */
  allowsPrivateHost: (host: string, port: number) => boolean;
  /** Bytes of (decompressed) body read at most; past it the fetch fails. */
  maxBodyBytes: number;
  /** Same-host redirects followed at most. */
  maxRedirects: number;
  /** Aborted when the fetch's time is up or the run is aborted; {@link fetchPage} tells them apart with `timedOut`. */
  signal: AbortSignal;
  /** Whether `signal` was aborted by the time limit (the message says so) rather than by the run. */
  timedOut: () => boolean;
  /** The time limit, for the message. */
  timeoutMs: number;
};

/** A response {@link fetchPage} read: the page, or a redirect to another host it did not follow. */
export type FetchedPage =
  | {
      kind: "page";
      /** The URL the page came from, after same-host redirects. */
      url: string;
      status: number;
      /** The media type, lower case, without parameters (`text/html`); `""` when the server sent none. */
      mediaType: string;
      /** The body as text, decoded with the response's charset (UTF-8 by default). */
      text: string;
    }
  | {
      kind: "media";
      url: string;
      status: number;
      /** An image type every provider takes (PNG, JPEG, GIF, WebP) or `application/pdf`. */
      mediaType: string;
      bytes: Buffer;
    }
  | {
      kind: "redirect";
      /** The URL that answered with the redirect. */
      url: string;
      status: number;
      /** Where it points, absolute. */
      location: string;
    };

const redirectStatuses = new Set([301, 302, 303, 307, 308]);
/** What WebFetch gives the model as an image or a document rather than as text. */
const mediaTypes: ReadonlySet<string> = new Set(["image/png", "image/jpeg", "image/gif", "image/webp", "application/pdf"]);

/**
 * GETs `url` and reads its body as text. Each hop resolves its host and refuses it when any address is not public
 * (unless a rule names the host), then connects to the checked address only. Redirects within the same host (and
 * `www.` of it) are followed; one to another host, or from https to http, is returned unfollowed. Failures — an
 * HTTP error status, a binary content type, a body over the cap, the time limit, a refused address — are thrown
 * as ToolErrors that say what happened.
 */
export async function fetchPage(start: URL, options: FetchPageOptions): Promise<FetchedPage> {
  let url = start;
  for (let hop = 0; ; hop++) {
    const response = await requestOnce(url, options);
    const status = response.statusCode ?? 0;
    const location = response.headers.location;
    if (redirectStatuses.has(status) && location !== undefined) {
      response.destroy();
      const next = URL.canParse(location, url) ? new URL(location, url) : undefined;
      if (next === undefined)
        throw new ToolError(`${url.href} answered ${status} with a Location that is not a URL: ${JSON.stringify(location)}`);
      if (!isFollowedRedirect(url, next)) return { kind: "redirect", url: url.href, status, location: next.href };
      if (hop >= options.maxRedirects)
        throw new ToolError(`${start.href} redirected more than ${options.maxRedirects} times; the last hop went to ${next.href}`);
      url = next;
      continue;
    }
    if (status >= 400) {
      response.destroy();
      throw new ToolError(`${url.href} answered HTTP ${status}${response.statusMessage ? ` ${response.statusMessage}` : ""}`);
    }
    const contentType = String(response.headers["content-type"] ?? "");
    const mediaType = (contentType.split(";")[0] ?? "").trim().toLowerCase();
    // An image or a PDF is read as bytes: the model sees it as one.
    if (mediaTypes.has(mediaType))
      return { kind: "media", url: url.href, status, mediaType, bytes: await readBody(response, url, options) };
    if (mediaType !== "" && !isTextual(mediaType)) {
      response.destroy();
      throw new ToolError(`${url.href} is ${mediaType}, not a text or HTML page; WebFetch reads text only`);
    }
    const bytes = await readBody(response, url, options);
    if (mediaType === "" && bytes.subarray(0, 1024).includes(0))
      throw new ToolError(`${url.href} sent binary content without a content type; WebFetch reads text only`);
    return { kind: "page", url: url.href, status, mediaType, text: decode(bytes, contentType) };
  }
}

/** Same host (give or take `www.`), same port or both the schemes' own, and no step down from https to http. */
function isFollowedRedirect(from: URL, to: URL): boolean {
  if (to.protocol !== "http:" && to.protocol !== "https:") return false;
  if (from.protocol === "https:" && to.protocol === "http:") return false;
  const bare = (url: URL) => hostOfUrl(url).replace(/^www\./, "");
  if (bare(from) !== bare(to)) return false;
  // http://host to https://host is the same server's upgrade: both on their schemes' own ports.
  return portOfUrl(from) === portOfUrl(to) || (from.port === "" && to.port === "");
}

async function requestOnce(url: URL, options: FetchPageOptions): Promise<IncomingMessage> {
  const host = hostOfUrl(url);
  const port = portOfUrl(url);
  const resolving = resolveCheckedAddresses(host, { lookup: options.lookup, allowPrivate: options.allowsPrivateHost(host, port) });
  // The resolver takes no signal: the time limit (or the run's abort) must not wait for it.
  const addresses = await untilAborted(resolving, options.signal).catch((error: Error) => {
    if (options.signal.aborted) throw failure(url, error, options);
    if (error instanceof PrivateAddressError) throw new ToolError(`WebFetch refused ${url.href}: ${error.message}`);
    throw new ToolError(`Could not resolve the host of ${url.href}: ${error.message}`);
  });
  const send = url.protocol === "https:" ? httpsRequest : httpRequest;
  return new Promise<IncomingMessage>((resolve, reject) => {
    const request = send(
      {
        host,
        port,
        path: `${url.pathname}${url.search}`,
        method: "GET",
        headers: {
          accept: "text/markdown, text/html;q=0.9, text/*;q=0.8, application/xhtml+xml, application/json, */*;q=0.1",
          "accept-encoding": "gzip, deflate, br",
          "user-agent": "minagent-webfetch",
        },
        // A fresh connection per request, to the addresses checked above only: a resolver answering differently now
        // (DNS rebinding) is never asked again.
        agent: false,
        lookup: pinnedLookup(addresses),
        signal: options.signal,
      },
      resolve,
    );
    request.on("error", (error) => reject(failure(url, error, options)));
    request.end();
  });
}

/** `promise`, or a rejection as soon as `signal` aborts. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const abort = () => reject(signal.reason);
    signal.addEventListener("abort", abort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", abort));
  });
}

/** A `lookup` for `net.connect` that answers with the checked addresses, whatever it is asked. */
function pinnedLookup(addresses: readonly ResolvedAddress[]): LookupFunction {
  return (_hostname, lookupOptions, callback) => {
    const first = addresses[0] as ResolvedAddress;
    if (lookupOptions.all)
      callback(
        null,
        addresses.map((entry) => ({ address: entry.address, family: entry.family })),
      );
    else callback(null, first.address, first.family);
  };
}

function failure(url: URL, error: Error, options: FetchPageOptions): Error {
  if (options.signal.aborted && !options.timedOut()) return options.signal.reason instanceof Error ? options.signal.reason : error;
  if (options.timedOut()) return new ToolError(`${url.href} did not answer within ${options.timeoutMs / 1000} s; WebFetch gave up`);
  return new ToolError(`Could not fetch ${url.href}: ${error.message}`);
}

async function readBody(response: IncomingMessage, url: URL, options: FetchPageOptions): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  const stream = decompressed(response);
  try {
    for await (const chunk of stream) {
      size += (chunk as Buffer).length;
      if (size > options.maxBodyBytes)
        throw new ToolError(`${url.href} is larger than ${formatBytes(options.maxBodyBytes)}; WebFetch stopped reading it`);
      chunks.push(chunk as Buffer);
    }
  } catch (error) {
    if (error instanceof ToolError) throw error;
    throw failure(url, error as Error, options);
  } finally {
    response.destroy();
    if (stream !== response) stream.destroy();
  }
  return Buffer.concat(chunks);
}

/** The body through the decoder its `content-encoding` names (the cap counts decoded bytes: no zip bomb gets past it). */
function decompressed(response: IncomingMessage): Readable {
  const encoding = String(response.headers["content-encoding"] ?? "")
    .trim()
    .toLowerCase();
  const decoder =
    encoding === "gzip" || encoding === "x-gzip"
      ? createGunzip()
      : encoding === "deflate"
        ? createInflate()
        : encoding === "br"
          ? createBrotliDecompress()
          : undefined;
  if (!decoder) return response;
  response.on("error", (error) => decoder.destroy(error));
  return response.pipe(decoder);
}

const textualTypes = new Set([
  "application/xhtml+xml",
  "application/xml",
  "application/json",
  "application/javascript",
  "application/ecmascript",
  "application/x-javascript",
  "application/x-sh",
  "application/toml",
  "application/yaml",
  "application/x-yaml",
]);

function isTextual(mediaType: string): boolean {
  return mediaType.startsWith("text/") || textualTypes.has(mediaType) || mediaType.endsWith("+xml") || mediaType.endsWith("+json");
}

function decode(bytes: Buffer, contentType: string): string {
  const charset = /charset\s*=\s*"?([^";\s]+)/i.exec(contentType)?.[1];
  try {
    return new TextDecoder(charset ?? "utf-8").decode(bytes);
  } catch {
    return new TextDecoder("utf-8").decode(bytes);
  }
}

/** `10 MB`, `512 KB`. */
export function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${Math.round((bytes / (1024 * 1024)) * 10) / 10} MB`;
  if (bytes >= 1024) return `${Math.round(bytes / 1024)} KB`;
  return `${bytes} bytes`;
}
