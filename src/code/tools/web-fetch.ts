import { type Model, type Tool, type ToolOutput, toolOutput } from "../../engine.js";
import { ToolError } from "../../errors.js";
import { formatNumber } from "../../text.js";
import type { PermissionRule } from "../permissions/parse-rule.js";
import { type LookupAll, lookupAll } from "../web/address-guard.js";
import { domainPatternNames, hostOfUrl, portOfUrl } from "../web/domain-pattern.js";
import { type FetchedPage, fetchPage } from "../web/fetch-page.js";
import { defaultMediaLimits, readMediaBytes } from "./read-media.js";

/** Settings of {@link createWebFetchTool} (CodingAgentOptions' `webFetch`). */
export type WebFetchOptions = {
  /**
   * A small, fast model that answers the call's `prompt` over the page (one call: the page's Markdown and the prompt,
   * no tools). Without one the result is the Markdown itself, saying that no model answered the prompt.
   */
  model?: Model | undefined;
  /** Characters of Markdown kept, from the start (default 100,000); the result says when the page was cut. */
  maxMarkdownCharacters?: number | undefined;
  /** Bytes of body read at most, after decompression (default 10 MB); a bigger page is a failure. */
  maxBodyBytes?: number | undefined;
  /** Milliseconds a fetch may take, redirects and body included (default 30,000). */
  timeoutMs?: number | undefined;
  /** Milliseconds a fetched page is reused for the same URL (default 15 minutes; 0 turns the cache off). */
  cacheMs?: number | undefined;
  /** Pages kept in the cache at most (default 50); the oldest goes first. */
  maxCachedPages?: number | undefined;
  /** Resolves host names to all their addresses (default: `dns.lookup` with `all: true`); tests inject their own. */
  lookup?: LookupAll | undefined;
};

/** What the tool is made with besides its settings: whether a permission rule names a host (see {@link allowRulesNameHost}). */
export type WebFetchToolOptions = WebFetchOptions & {
  /**
   * Whether this host may be reached at a loopback, link-local or private address (default: never). The coding
   * agent answers with its allow rules: one naming the host itself, `WebFetch(domain:localhost)`.
   */
  allowsPrivateHost?: ((host: string, port: number) => boolean) | undefined;
};

type WebFetchArguments = { url: string; prompt: string };

/** A fetch's outcome as kept: a page already turned into Markdown (not yet cut), or a redirect not followed. */
type LoadedPage =
  | { kind: "page"; url: string; status: number; mediaType: string; markdown: string }
  | Extract<FetchedPage, { kind: "media" }>
  | Extract<FetchedPage, { kind: "redirect" }>;

type CachedPage = { page: LoadedPage; upgraded: boolean; expires: number; size: number };

/** Characters the cache holds at most, all pages together (Claude Code's cache holds 50 MB). */
const maxCachedCharacters = 50 * 1024 * 1024;

/**
 * Claude Code's `WebFetch { url, prompt }`: GETs an http(s) URL (http is upgraded to https, except for a host an
 * allow rule names, which may be a local server), turns HTML into Markdown, cuts it to a cap, and answers `prompt`
 * over it with `model` when one is given, else returns the Markdown saying so. Redirects within the host are
 * followed (up to 5); one to another host is reported for the model to fetch itself, so that the new host is judged
 * by the permissions too. No loopback, link-local or private address is reached unless `allowsPrivateHost` says so,
 * checked after resolving the name and on every hop, and the connection goes to the checked address. Pages are
 * cached by URL for `cacheMs`. Read-only for plan mode; the coding agent's permissions ask for a host no
 * `WebFetch(domain:…)` rule allows.
 */
export function createWebFetchTool(options: WebFetchToolOptions = {}): Tool {
  const settings = {
    maxMarkdownCharacters: options.maxMarkdownCharacters ?? 100_000,
    maxBodyBytes: options.maxBodyBytes ?? 10 * 1024 * 1024,
    timeoutMs: options.timeoutMs ?? 30_000,
    cacheMs: options.cacheMs ?? 15 * 60_000,
    maxCachedPages: options.maxCachedPages ?? 50,
  };
  const lookup = options.lookup ?? lookupAll;
  const allowsPrivateHost = options.allowsPrivateHost ?? (() => false);
  const cache = new Map<string, CachedPage>();
  let cachedCharacters = 0;
  const forget = (key: string) => {
    cachedCharacters -= cache.get(key)?.size ?? 0;
    cache.delete(key);
  };
  const load = async (url: URL, signal: AbortSignal): Promise<CachedPage> => {
    const cached = cache.get(url.href);
    if (cached && cached.expires > Date.now()) return cached;
    forget(url.href);
    const upgraded = url.protocol === "http:" && !allowsPrivateHost(hostOfUrl(url), portOfUrl(url));
    const target = upgraded ? new URL(url.href.replace(/^http:/, "https:")) : url;
    const limit = AbortSignal.timeout(settings.timeoutMs);
    const fetched = await fetchPage(target, {
      lookup,
      allowsPrivateHost,
      maxBodyBytes: settings.maxBodyBytes,
      maxRedirects: 5,
      signal: AbortSignal.any([signal, limit]),
      timedOut: () => limit.aborted,
      timeoutMs: settings.timeoutMs,
    });
    const page: LoadedPage =
      fetched.kind === "page"
        ? { kind: "page", url: fetched.url, status: fetched.status, mediaType: fetched.mediaType, markdown: await pageMarkdown(fetched) }
        : fetched;
    const size = page.kind === "page" ? page.markdown.length : page.kind === "media" ? page.bytes.length : page.location.length;
    const entry = { page, upgraded, expires: Date.now() + settings.cacheMs, size };
    if (settings.cacheMs > 0 && size <= maxCachedCharacters) {
      cache.set(url.href, entry);
      cachedCharacters += size;
      // A Map iterates in insertion order: the oldest pages go first.
      for (const key of cache.keys()) if (cache.size > settings.maxCachedPages || cachedCharacters > maxCachedCharacters) forget(key);
    }
    return entry;
  };
  return {
    name: "WebFetch",
    description: [
      "Fetch a web page (http or https; http is upgraded to https) and answer a prompt about it: the page is turned into Markdown and the prompt is answered over it. An image or a PDF is shown to you as one.",
      "A redirect to another host is not followed: the result gives the new URL, to fetch with another WebFetch call.",
      `${settings.cacheMs > 0 ? `Pages are cached for ${Math.max(1, Math.round(settings.cacheMs / 60_000))} minutes. ` : ""}The tool reads public pages: it cannot log in, and local or private addresses need a permission rule.`,
    ].join(" "),
    compileOnFirstCall: true,
    parameters: {
      type: "object",
      properties: {
        url: { type: "string", description: "The full URL to fetch (https://…)." },
        prompt: { type: "string", description: "What to find or extract in the page." },
      },
      required: ["url", "prompt"],
    },
    readOnly: true,
    timeoutMs: 5 * 60_000,
    async execute(args, context) {
      const { url: written, prompt } = args as WebFetchArguments;
      const url = URL.canParse(written) ? new URL(written) : undefined;
      if (!url) throw new ToolError(`"${written}" is not a URL; give a full one, such as https://example.com/page`);
      if (url.protocol !== "http:" && url.protocol !== "https:")
        throw new ToolError(`WebFetch fetches http and https URLs only, not ${url.protocol}`);
      if (url.username !== "" || url.password !== "")
        throw new ToolError("WebFetch does not send credentials written in the URL; give it without user:password@");
      url.hash = "";
      const { page, upgraded } = await load(url, context.signal);
      const notes = upgraded ? ["(http was upgraded to https.)"] : [];
      if (page.kind === "redirect")
        return [
          `${page.url} answered ${page.status}: redirected to ${page.location}, another host (or from https to http), which WebFetch does not follow on its own.`,
          `To read it, call WebFetch again with url "${page.location}".`,
          ...notes,
        ].join("\n");
      if (page.kind === "media") return mediaOutput(page, notes);
      const { text, cut } = cutMarkdown(page.markdown, settings.maxMarkdownCharacters);
      const heading = [
        `${page.url} (HTTP ${page.status}${page.mediaType ? `, ${page.mediaType}` : ""}): ${count(page.markdown.length)} characters of Markdown${cut ? `, cut to the first ${count(settings.maxMarkdownCharacters)}` : ""}.`,
        ...notes,
      ];
      if (!options.model)
        return [
          ...heading,
          "No model is configured to answer the prompt (CodingAgentOptions.webFetch.model), so the page is given as is:",
          "",
          text,
        ].join("\n");
      const answer = await answerOverPage(options.model, text, prompt, context.signal).catch((error: Error) => {
        if (context.signal.aborted) throw error;
        return new Error(error.message);
      });
      if (answer instanceof Error)
        return [
          ...heading,
          `The model that answers prompts over pages failed (${answer.message}), so the page is given as is:`,
          "",
          text,
        ].join("\n");
      return [...heading, "", answer].join("\n");
    },
  };
}

/**
 * An image or a PDF the URL answered with, as the model sees one: through Read's own handling (an image past the cap
 * downscaled, a PDF of more than 10 pages refused with how to read it: download it with Bash and Read its pages).
 */
async function mediaOutput(page: Extract<LoadedPage, { kind: "media" }>, notes: string[]): Promise<ToolOutput> {
  const head = `${page.url} (HTTP ${page.status}, ${page.mediaType}), ${formatNumber(page.bytes.length)} bytes`;
  const last = new URL(page.url).pathname.split("/").pop() || "document.pdf";
  // A path that is not valid percent-encoding keeps its name as written.
  const name = safeDecode(last);
  const output = await readMediaBytes(page.bytes, page.url, name, undefined, defaultMediaLimits);
  if (!output) throw new ToolError(`${head}, but its bytes are not a ${page.mediaType} file WebFetch can show`);
  const what = output.parts[0]?.type === "document" ? "the document" : "the image";
  return toolOutput([`${head}: ${what}.`, ...notes, output.text].join("\n"), output.parts);
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** The page as Markdown: HTML converted, other text as it is. */
async function pageMarkdown(page: Extract<FetchedPage, { kind: "page" }>): Promise<string> {
  const html =
    page.mediaType === "text/html" ||
    page.mediaType === "application/xhtml+xml" ||
    (page.mediaType === "" && /^\s*<(!doctype html|html)/i.test(page.text));
  if (!html) return page.text;
  // The HTML parser loads with the first page that needs it, not with every session.
  const { convertHtmlToMarkdown } = await import("../web/html-to-markdown.js");
  return convertHtmlToMarkdown(page.text);
}

/** The first `max` characters, with a last line saying how much was cut (`cut`: whether it was). */
function cutMarkdown(full: string, max: number): { text: string; cut: boolean } {
  if (full.length <= max) return { text: full, cut: false };
  return {
    text: `${full.slice(0, max)}\n\n[… the page goes on: ${count(full.length - max)} more characters were cut]`,
    cut: true,
  };
}

/** `12,345`. */
function count(value: number): string {
  return formatNumber(value);
}

async function answerOverPage(model: Model, markdown: string, prompt: string, signal: AbortSignal): Promise<string> {
  const response = await model.complete(
    [
      {
        role: "system",
        content:
          "You answer a request about one web page, from the page's content only. Be concise; quote exact text (code, commands, numbers, names) where it matters. If the page does not hold the answer, say so.",
      },
      { role: "user", content: `Web page content:\n---\n${markdown}\n---\n\n${prompt}` },
    ],
    [],
    { signal },
  );
  const text = response.message.content.trim();
  if (text === "") throw new Error("it gave an empty answer");
  return text;
}

/**
 * The coding agent's WebFetch, as a list (empty for `false`): a loopback, link-local or private address is reached
 * only for a host that one of `permissions`' allow rules names itself, read at each fetch so that rules added during
 * the session count.
 */
export function webFetchTools(
  options: false | WebFetchOptions | undefined,
  permissions: { settings: { rules: { allow: readonly PermissionRule[] } } },
): Tool[] {
  if (options === false) return [];
  return [
    createWebFetchTool({ ...options, allowsPrivateHost: (host, port) => allowRulesNameHost(permissions.settings.rules.allow, host, port) }),
  ];
}

/**
 * Whether the allow rules name `host` itself in a `WebFetch(domain:…)` rule (not through a wildcard nor a bare
 * `WebFetch`): then WebFetch may reach it at a loopback, link-local or private address, and over plain http.
 */
export function allowRulesNameHost(allow: readonly PermissionRule[], host: string, port: number): boolean {
  return allow.some(
    (rule) => rule.tool === "WebFetch" && rule.target.kind === "domain" && domainPatternNames(rule.target.domain, host, port),
  );
}
