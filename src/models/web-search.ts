import type { Message, Model, ModelResponse } from "../core/types.js";

/** What a web search is limited to (see {@link WebSearchModel.searchWeb}). */
export type WebSearchOptions = {
  /** Only results from these domains (e.g. `["docs.python.org"]`); subdomains count. */
  allowedDomains?: readonly string[] | undefined;
  /** Never results from these domains. */
  blockedDomains?: readonly string[] | undefined;
  /** Searches the provider may run for one query at most (default 5, as Claude Code's WebSearch). */
  maxSearches?: number | undefined;
  /** Aborts the search. */
  signal?: AbortSignal | undefined;
};

/** One result of a web search: a page's title and URL, and what the backend says of it. */
export type WebSearchResult = {
  title: string;
  url: string;
  /** How old the page is, as the backend says it ("3 days ago", "March 4, 2025"). */
  pageAge?: string | undefined;
  /** A few words of the page, when the backend gives them (the provider's search tools give none in the clear). */
  snippet?: string | undefined;
};

/** What a provider's server-side search gave for one query. */
export type WebSearchOutcome = {
  /** The queries the provider ran, in order. */
  queries: string[];
  /** The results, in the order received, each URL once. */
  results: WebSearchResult[];
  /** The model's own words over the results (its summary, with what it cites). */
  text: string;
  /** Errors the search tool reported instead of results (e.g. `max_uses_exceeded`, `too_many_requests`). */
  errors: string[];
};

/**
 * A model whose provider runs a web search on its side (Anthropic's web search tool, OpenAI's `web_search`): the
 * adapters that can implement it, and the WebSearch tool uses it when the session's model has it.
 */
export interface WebSearchModel {
  /** Runs one separate model call that may only search the web for `query`, and gives what it found. */
  searchWeb(query: string, options?: WebSearchOptions): Promise<WebSearchOutcome>;
}

/** Whether `model` can search the web through its provider (see {@link WebSearchModel}). */
export function searchesWeb(model: Model): model is Model & WebSearchModel {
  return typeof (model as Partial<WebSearchModel>).searchWeb === "function";
}

/**
 * The conversation of a search call: a short system prompt that says to search and list what was found, and the
 * query.
 */
export function webSearchMessages(query: string): Message[] {
  return [
    {
      role: "system",
      content:
        "You are an assistant for performing a web search tool use. Search the web for the user's query, then list the most relevant results, each with its title and URL, and a short summary of what they say. Do not answer from memory.",
    },
    { role: "user", content: `Perform a web search for the query: ${query}` },
  ];
}

/** Continuations of a paused search turn (`pause_turn`) sent at most before the search gives what it has. */
const maxContinuations = 5;

/**
 * Calls `model` (one that offers only its provider's search tool) for `query`, continuing a turn the provider
 * paused (`pause_turn`: the assistant content goes back as received) until it ends, and returns every response.
 */
export async function completeWebSearch(model: Model, query: string, signal: AbortSignal | undefined): Promise<ModelResponse[]> {
  const messages = webSearchMessages(query);
  const responses: ModelResponse[] = [];
  for (let call = 0; call <= maxContinuations; call++) {
    const response = await model.complete(messages, [], signal ? { signal } : {});
    responses.push(response);
    if (response.stopReason !== "pause_turn") break;
    messages.push(response.message);
  }
  return responses;
}

/**
 * The results the domain lists keep: those of an allowed domain or its subdomains (all when none is given), none of
 * a blocked one. For what cannot filter on its side: OpenAI's search (no blocked domains), a user's backend.
 */
export function filterWebSearchResults(results: readonly WebSearchResult[], options: WebSearchOptions): WebSearchResult[] {
  const hostOf = (url: string) => (URL.canParse(url) ? new URL(url).hostname.toLowerCase() : "");
  const within = (host: string, domain: string) => {
    const bare = domain
      .toLowerCase()
      .replace(/^https?:\/\//, "")
      .replace(/\/.*$/, "");
    return host === bare || host.endsWith(`.${bare}`);
  };
  return results.filter((result) => {
    const host = hostOf(result.url);
    if (options.blockedDomains?.some((domain) => within(host, domain))) return false;
    return !options.allowedDomains?.length || options.allowedDomains.some((domain) => within(host, domain));
  });
}
