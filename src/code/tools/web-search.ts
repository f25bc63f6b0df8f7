import {
  filterWebSearchResults,
  type Model,
  searchesWeb,
  type Tool,
  type WebSearchOptions,
  type WebSearchOutcome,
  type WebSearchResult,
} from "../../engine.js";
import { ToolError } from "../../errors.js";
import { formatNumber } from "../../text.js";

/**
 * A search backend of the user's (a search engine's API, a company index): the results for `query`, within the
 * domain lists when the backend can honour them (results from other domains are dropped anyway).
 */
export type WebSearchBackend = (query: string, options: WebSearchOptions) => Promise<WebSearchResult[]>;

/** Settings of {@link createWebSearchTool} (CodingAgentOptions' `webSearch`). */
export type WebSearchToolOptions = {
  /**
   * Searches with this instead of the model's provider: for a model whose provider has no server-side search
   * (Gemini, Bedrock, Chat Completions servers), or to keep searches on a backend of your choice.
   */
  search?: WebSearchBackend | undefined;
  /** Searches the provider may run for one call at most (default 5). */
  maxSearches?: number | undefined;
  /** Characters of result kept at most (default 30,000); the result says when it was cut. */
  maxResultCharacters?: number | undefined;
};

type WebSearchArguments = { query: string; allowed_domains?: string[]; blocked_domains?: string[] };

/**
 * Claude Code's `WebSearch { query, allowed_domains?, blocked_domains? }`: searches the web and gives the results with
 * their titles and URLs, and the searching model's summary. The search is `options.search` when given, else the
 * session model's provider's own (see {@link searchesWeb}: Anthropic's web search tool, OpenAI's `web_search`), one
 * separate call that may only search; with another provider the call says plainly that web search is not available.
 * Read-only; the coding agent's permissions ask for it unless an allow rule `WebSearch` allows it.
 */
export function createWebSearchTool(model: Model | undefined, options: WebSearchToolOptions = {}): Tool {
  const maxCharacters = options.maxResultCharacters ?? 30_000;
  return {
    name: "WebSearch",
    description: [
      "Search the web and get the results (titles and URLs) with a summary of what they say: for current events and anything past your training data.",
      "allowed_domains limits the results to those domains, blocked_domains excludes them (give one of the two at most).",
      "Cite the sources you use as Markdown links in your answer.",
    ].join(" "),
    compileOnFirstCall: true,
    parameters: {
      type: "object",
      properties: {
        query: { type: "string", minLength: 2, description: "The search query." },
        allowed_domains: { type: "array", items: { type: "string" }, description: "Only include results from these domains." },
        blocked_domains: { type: "array", items: { type: "string" }, description: "Never include results from these domains." },
      },
      required: ["query"],
    },
    readOnly: true,
    timeoutMs: 5 * 60_000,
    async execute(args, context) {
      const { query, allowed_domains: allowed = [], blocked_domains: blocked = [] } = args as WebSearchArguments;
      if (typeof query !== "string" || query.trim().length < 2) throw new ToolError("WebSearch needs a query of at least 2 characters.");
      if (allowed.length > 0 && blocked.length > 0)
        throw new ToolError("Give allowed_domains or blocked_domains, not both in the same WebSearch call.");
      const limits: WebSearchOptions = {
        ...(allowed.length > 0 && { allowedDomains: allowed }),
        ...(blocked.length > 0 && { blockedDomains: blocked }),
        ...(options.maxSearches !== undefined && { maxSearches: options.maxSearches }),
        signal: context.signal,
      };
      const outcome = await search(model, options.search, query, limits);
      return cut(formatOutcome(query, outcome), maxCharacters);
    },
  };
}

async function search(
  model: Model | undefined,
  backend: WebSearchBackend | undefined,
  query: string,
  limits: WebSearchOptions,
): Promise<WebSearchOutcome> {
  if (backend) {
    const results = filterWebSearchResults(await backend(query, limits), limits);
    return { queries: [query], results, text: "", errors: [] };
  }
  if (model && searchesWeb(model)) return model.searchWeb(query, limits);
  throw new ToolError(
    `web search is not available with this model (${model?.provider ?? "a model that names no provider"}): only Anthropic's and OpenAI's Responses models search the web on their provider's side. ` +
      "Do not call WebSearch again in this session; fetch a page you know the URL of with WebFetch, or answer without searching and say so. " +
      "(A search backend of your own can be given as CodingAgentOptions.webSearch.search.)",
  );
}

/** The results as a numbered list of titles and URLs, then the searching model's summary. */
function formatOutcome(query: string, outcome: WebSearchOutcome): string {
  const lines = [`Web search results for query: "${query}"`];
  const others = outcome.queries.filter((ran) => ran !== query);
  if (others.length > 0) lines.push(`Searches run: ${outcome.queries.map((ran) => `"${ran}"`).join(", ")}`);
  if (outcome.errors.length > 0) lines.push(`The search reported: ${outcome.errors.join(", ")}`);
  lines.push("");
  if (outcome.results.length === 0) lines.push("No results.");
  for (const [index, result] of outcome.results.entries()) {
    lines.push(`${index + 1}. ${result.title} — ${result.url}${result.pageAge ? ` (${result.pageAge})` : ""}`);
    if (result.snippet) lines.push(`   ${result.snippet}`);
  }
  if (outcome.text !== "") lines.push("", "Summary:", outcome.text);
  lines.push("", "Cite the sources you use as Markdown links, e.g. [Title](URL).");
  return lines.join("\n");
}

function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}\n\n[… ${formatNumber(text.length - max)} more characters of results were cut]`;
}

/** The coding agent's WebSearch, as a list (empty for `false`), searching with `options.search` or `model`'s provider. */
export function webSearchTools(options: false | WebSearchToolOptions | undefined, model: Model | undefined): Tool[] {
  return options === false ? [] : [createWebSearchTool(model, options)];
}
