import type { ModelResponse } from "../../core/types.js";
import type { WebSearchOptions, WebSearchOutcome, WebSearchResult } from "../web-search.js";
import type { AnthropicContentBlock, AnthropicMessageMetadata, AnthropicServerTool } from "./anthropic-wire-types.js";

/**
 * Anthropic's web search server tool for one search call, with the domain lists (the API takes one of them, not
 * both: a call that gives both is refused there, with its message).
 * @see https://docs.claude.com/en/docs/agents-and-tools/tool-use/web-search-tool
 */
export function anthropicWebSearchTool(options: WebSearchOptions): AnthropicServerTool {
  return {
    type: "web_search_20250305",
    name: "web_search",
    max_uses: options.maxSearches ?? 5,
    ...(options.allowedDomains?.length && { allowed_domains: [...options.allowedDomains] }),
    ...(options.blockedDomains?.length && { blocked_domains: [...options.blockedDomains] }),
  };
}

/**
 * What the responses of a search call (a paused turn and its continuations) found: the queries of its
 * `server_tool_use` blocks, the results of its `web_search_tool_result` blocks (each URL once) or their errors, and
 * the model's text.
 */
export function collectAnthropicWebSearch(responses: readonly ModelResponse[]): WebSearchOutcome {
  const outcome: WebSearchOutcome = { queries: [], results: [], text: "", errors: [] };
  const seen = new Set<string>();
  for (const response of responses) {
    outcome.text += response.message.content;
    for (const block of receivedBlocks(response)) {
      if (block.type === "server_tool_use" && block.name === "web_search") {
        const query = (block.input as { query?: unknown } | undefined)?.query;
        if (typeof query === "string") outcome.queries.push(query);
      } else if (block.type === "web_search_tool_result") {
        const content = block.content as unknown;
        if (!Array.isArray(content)) {
          outcome.errors.push(String((content as { error_code?: unknown } | null)?.error_code ?? "unknown_error"));
          continue;
        }
        for (const result of content as Record<string, unknown>[]) {
          if (typeof result.url !== "string" || seen.has(result.url)) continue;
          seen.add(result.url);
          outcome.results.push(searchResult(result));
        }
      }
    }
  }
  outcome.text = outcome.text.trim();
  return outcome;
}

function receivedBlocks(response: ModelResponse): AnthropicContentBlock[] {
  const content = (response.message.providerMetadata?.anthropic as Partial<AnthropicMessageMetadata> | undefined)?.content;
  return Array.isArray(content) ? content : [];
}

function searchResult(result: Record<string, unknown>): WebSearchResult {
  const url = result.url as string;
  return {
    title: typeof result.title === "string" && result.title !== "" ? result.title : url,
    url,
    ...(typeof result.page_age === "string" && result.page_age !== "" && { pageAge: result.page_age }),
  };
}
