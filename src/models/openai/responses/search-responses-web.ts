import type OpenAI from "openai";
import type { ModelResponse } from "../../../core/types.js";
import { filterWebSearchResults, type WebSearchOptions, type WebSearchOutcome, type WebSearchResult } from "../../web-search.js";
import type { ResponsesMessageMetadata, ResponsesOutputItem } from "./responses-wire-types.js";

/**
 * OpenAI's `web_search` tool for one search call, limited to the allowed domains (`filters.allowed_domains`, without
 * their scheme). The API has no blocked domains: {@link collectResponsesWebSearch} drops their results instead.
 * @see https://platform.openai.com/docs/guides/tools-web-search
 */
export function responsesWebSearchTool(options: WebSearchOptions): OpenAI.Responses.WebSearchTool {
  return {
    type: "web_search",
    ...(options.allowedDomains?.length && {
      filters: { allowed_domains: options.allowedDomains.map((domain) => domain.replace(/^https?:\/\//, "")) },
    }),
  };
}

/** The `include` value that makes a `web_search_call` item list every source it read (`action.sources`). */
export const webSearchSourcesInclude = "web_search_call.action.sources";

/**
 * What a search call's response found: the queries of its `web_search_call` items, its results (the `url_citation`
 * annotations of its text with their titles, then the sources the search read, each URL once, without the blocked
 * domains') and the model's text.
 */
export function collectResponsesWebSearch(response: ModelResponse, provider: string, options: WebSearchOptions): WebSearchOutcome {
  const output = (response.message.providerMetadata?.[provider] as Partial<ResponsesMessageMetadata> | undefined)?.output ?? [];
  const outcome: WebSearchOutcome = { queries: [], results: [], text: response.message.content.trim(), errors: [] };
  const cited: WebSearchResult[] = [];
  const sources: WebSearchResult[] = [];
  for (const item of output as ResponsesOutputItem[]) {
    if (item.type === "web_search_call") {
      const action = item.action as { query?: unknown; sources?: { url?: unknown; title?: unknown }[] } | undefined;
      if (typeof action?.query === "string") outcome.queries.push(action.query);
      for (const source of action?.sources ?? []) if (typeof source.url === "string") sources.push(resultOf(source.url, source.title));
      if (item.status === "failed") outcome.errors.push("the web_search call failed");
    } else if (item.type === "message") {
      for (const part of item.content ?? []) {
        const annotations = (part.annotations ?? []) as { type?: string; url?: unknown; title?: unknown }[];
        for (const annotation of annotations)
          if (annotation.type === "url_citation" && typeof annotation.url === "string")
            cited.push(resultOf(annotation.url, annotation.title));
      }
    }
  }
  const seen = new Set<string>();
  for (const result of filterWebSearchResults([...cited, ...sources], options)) {
    if (seen.has(result.url)) continue;
    seen.add(result.url);
    outcome.results.push(result);
  }
  return outcome;
}

function resultOf(url: string, title: unknown): WebSearchResult {
  return { title: typeof title === "string" && title !== "" ? title : url, url };
}
