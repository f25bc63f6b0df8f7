import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { CodingAgent, type CodingAgentOptions, createWebSearchTool } from "../../src/code/index.js";
import { FakeModel, type Model, type WebSearchOptions, type WebSearchResult, withRetry } from "../../src/index.js";
import { AnthropicModel } from "../../src/models/anthropic/index.js";
import { collectAnthropicWebSearch } from "../../src/models/anthropic/search-anthropic-web.js";
import { OpenAIResponsesModel } from "../../src/models/openai/index.js";
import { reply, toolCall } from "../../src/testing/index.js";
import { startWireServer, type WireServer } from "../../src/testing/wire-server.js";
import { fixtureJson, fixtureReply } from "../helpers/provider-fixtures.js";
import { responsesResponse } from "../helpers/wire-bodies.js";
import { callTool } from "./helpers/call-tool.js";

type Block = Record<string, unknown>;
type AnthropicBody = { system?: string; thinking?: unknown; messages: { role: string; content: Block[] }[]; tools?: Block[] };

let server: WireServer;
beforeEach(async () => {
  server = await startWireServer();
});
afterEach(() => server.close());

const body = (index: number) => server.requests[index]?.body as AnthropicBody;
// Real Anthropic traffic (see test/fixtures/providers/PROVENANCE.md): a web-search turn paused with `pause_turn`, and an end_turn.
const pausedJson = "anthropic/messages-pause-turn-web-search.json";
const endTurnJson = "anthropic/messages-end-turn-text.json";

function anthropic(): AnthropicModel {
  // Thinking on for the session: the search call goes without it.
  return new AnthropicModel({
    model: "claude-test",
    apiKey: "sk-ant-test-key",
    baseURL: server.url,
    retry: { baseDelayMs: 1 },
    thinking: { budgetTokens: 2048 },
  });
}

describe("WebSearch through Anthropic's web search tool (recorded traffic)", () => {
  it("offers only web_search with the allowed domains, continues the paused turn, and lists the recorded results' URLs", async () => {
    const recorded = fixtureJson<{ content: Block[] }>(pausedJson);
    server.reply(fixtureReply(pausedJson), fixtureReply(endTurnJson));
    const result = await callTool(createWebSearchTool(anthropic()), {
      query: "San Francisco today",
      allowed_domains: ["accuweather.com", "goldengate.org"],
    });

    expect(result.isError).toBeFalsy();
    expect(server.requests).toHaveLength(2);
    expect(body(0).tools).toStrictEqual([
      { type: "web_search_20250305", name: "web_search", max_uses: 5, allowed_domains: ["accuweather.com", "goldengate.org"] },
    ]);
    expect(body(0).thinking).toBeUndefined();
    expect(body(0).system).toMatch(/web search/);
    expect(body(0).messages).toStrictEqual([
      { role: "user", content: [{ type: "text", text: "Perform a web search for the query: San Francisco today" }] },
    ]);
    // pause_turn: the paused assistant turn goes back block for block, and the tools stay the same.
    expect(body(1).messages.map((message) => message.role)).toEqual(["user", "assistant"]);
    expect(body(1).messages[1]?.content).toStrictEqual(recorded.content);
    expect(body(1).tools).toStrictEqual(body(0).tools);

    const text = result.content as string;
    expect(text).toContain('Web search results for query: "San Francisco today"');
    expect(text).toContain(
      "1. San Francisco, CA Weather Forecast | AccuWeather — https://www.accuweather.com/en/us/san-francisco/94103/weather-forecast/347629 (5 days ago)",
    );
    expect(text).toContain("https://www.goldengate.org/service-alerts/");
    expect(text).toContain("https://sanfranciscobayferry.com/routes-schedules/");
    // The queries the model ran, the last one paused before its result.
    expect(text).toMatch(
      /Searches run: "San Francisco weather today", "San Francisco sunrise time today", .*"latest news air quality San Francisco"/,
    );
    // Each URL once: abc7news.com/traffic/ came back from two searches.
    expect(text.match(/https:\/\/abc7news\.com\/traffic\//g)).toHaveLength(1);
    // The model's words, the paused turn's and the continuation's.
    expect(text).toContain("Summary:\nI'll run these searches for you one at a time.");
    expect(text).toContain("Hello! I'm doing well");
  });

  it("reads the results of a recorded streamed search turn as well (the blocks a stream collects)", async () => {
    server.reply(fixtureReply("anthropic/stream-pause-turn-web-search.sse", { chunkSize: 4093 }));
    const response = await anthropic().complete([{ role: "user", content: "Run these searches" }], [], { onEvent: () => {} });
    expect(response.stopReason).toBe("pause_turn");
    const outcome = collectAnthropicWebSearch([response]);
    expect(outcome.queries.length).toBeGreaterThan(1);
    expect(outcome.results.length).toBeGreaterThan(2);
    expect(outcome.results.every((result) => /^https:\/\//.test(result.url) && result.title !== "")).toBe(true);
    expect(new Set(outcome.results.map((result) => result.url)).size).toBe(outcome.results.length);
  });

  it("searches through a model wrapped in withRetry too", async () => {
    server.reply(fixtureReply(endTurnJson));
    const { content } = await callTool(createWebSearchTool(withRetry(anthropic())), { query: "node release" });
    expect(body(0).tools?.[0]?.type).toBe("web_search_20250305");
    expect(content).toContain("Summary:\nHello! I'm doing well");
  });

  it("sends blocked_domains, refuses both lists in one call, and refuses a query too short", async () => {
    server.reply(fixtureReply(endTurnJson));
    await callTool(createWebSearchTool(anthropic()), { query: "node release", blocked_domains: ["pinterest.com"] });
    expect(body(0).tools).toStrictEqual([
      { type: "web_search_20250305", name: "web_search", max_uses: 5, blocked_domains: ["pinterest.com"] },
    ]);
    const both = await callTool(createWebSearchTool(anthropic()), {
      query: "node",
      allowed_domains: ["a.com"],
      blocked_domains: ["b.com"],
    });
    expect(both.isError).toBe(true);
    expect(both.content).toContain("not both");
    expect((await callTool(createWebSearchTool(anthropic()), { query: "x" })).content).toContain("at least 2 characters");
    expect(server.requests).toHaveLength(1);
  });

  it("reports a search tool error the API gives instead of results", async () => {
    server.reply({
      json: {
        id: "msg_1",
        type: "message",
        role: "assistant",
        model: "claude-test",
        content: [
          { type: "server_tool_use", id: "srvtoolu_1", name: "web_search", input: { query: "node release" } },
          {
            type: "web_search_tool_result",
            tool_use_id: "srvtoolu_1",
            content: { type: "web_search_tool_result_error", error_code: "max_uses_exceeded" },
          },
          { type: "text", text: "The search limit was reached." },
        ],
        stop_reason: "end_turn",
        usage: { input_tokens: 10, output_tokens: 5 },
      },
    });
    const { content } = await callTool(createWebSearchTool(anthropic(), { maxSearches: 2 }), { query: "node release" });
    expect(body(0).tools?.[0]?.max_uses).toBe(2);
    expect(content).toContain("The search reported: max_uses_exceeded");
    expect(content).toContain("No results.");
  });

  it("is the session model's search in a CodingAgent: the agent's call, the search call and its continuation, the answer", async () => {
    const workspace = mkdtempSync(join(tmpdir(), "minagent-web-search-"));
    try {
      const message = (content: Block[], stop: string) => ({
        json: {
          id: "msg_x",
          type: "message",
          role: "assistant",
          model: "claude-test",
          content,
          stop_reason: stop,
          usage: { input_tokens: 10, output_tokens: 5 },
        },
      });
      server.reply(
        message([{ type: "tool_use", id: "toolu_1", name: "WebSearch", input: { query: "San Francisco today" } }], "tool_use"),
        fixtureReply(pausedJson),
        fixtureReply(endTurnJson),
        message([{ type: "text", text: "It is sunny ([AccuWeather](https://www.accuweather.com/))." }], "end_turn"),
      );
      const agent = await CodingAgent.create(anthropic(), { workspace, settingsFiles: [], rules: { allow: ["WebSearch"] } });
      const result = await agent.run("What is on in San Francisco today?");
      expect(result.final).toContain("It is sunny");
      expect(server.requests).toHaveLength(4);
      expect(body(0).tools?.map((tool) => tool.name)).toContain("WebSearch");
      expect(body(1).tools).toStrictEqual([{ type: "web_search_20250305", name: "web_search", max_uses: 5 }]);
      const observation = JSON.stringify(body(3).messages.at(-1)?.content);
      expect(observation).toContain("https://www.iqair.com/us/usa/california/san-francisco");
    } finally {
      rmSync(workspace, { recursive: true, force: true });
    }
  });
});

describe("WebSearch through OpenAI's web_search tool", () => {
  // No recorded OpenAI web search response exists in the shared fixtures: this one is built from the shape OpenAI
  // documents (https://platform.openai.com/docs/guides/tools-web-search): a web_search_call item with its action's
  // query and sources, then a message whose output_text carries url_citation annotations.
  const documentedShape = () =>
    responsesResponse([
      {
        type: "web_search_call",
        id: "ws_1",
        status: "completed",
        action: {
          type: "search",
          query: "node 24 release date",
          sources: [
            { type: "url", url: "https://nodejs.org/en/blog/release/v24.0.0" },
            { type: "url", url: "https://www.pinterest.com/pin/node" },
          ],
        },
      },
      {
        type: "message",
        id: "msg_1",
        status: "completed",
        role: "assistant",
        content: [
          {
            type: "output_text",
            text: "Node.js 24 was released on May 6, 2025 ([nodejs.org](https://nodejs.org/en/blog/release/v24.0.0)).",
            annotations: [
              {
                type: "url_citation",
                start_index: 40,
                end_index: 90,
                url: "https://nodejs.org/en/blog/release/v24.0.0",
                title: "Node.js 24.0.0 (Current)",
              },
            ],
          },
        ],
      },
    ]);

  it("offers only web_search with the allowed domains as its filter, asks for the sources, and lists the citations", async () => {
    server.reply({ json: documentedShape() });
    const model = new OpenAIResponsesModel({ model: "gpt-5", apiKey: "sk-test", baseURL: server.url, provider: "openai" });
    const { content } = await callTool(createWebSearchTool(model), {
      query: "node 24 release date",
      allowed_domains: ["https://nodejs.org"],
    });
    const request = server.requests[0]?.body as { tools: unknown; include: string[]; input: unknown; instructions: string };
    expect(request.tools).toStrictEqual([{ type: "web_search", filters: { allowed_domains: ["nodejs.org"] } }]);
    expect(request.include).toContain("web_search_call.action.sources");
    expect(request.instructions).toMatch(/web search/);
    expect(content).toContain("1. Node.js 24.0.0 (Current) — https://nodejs.org/en/blog/release/v24.0.0");
    expect(content).toContain("Summary:\nNode.js 24 was released on May 6, 2025");
    // The source outside the allowed domains is dropped, the cited one listed once.
    expect(content).not.toContain("pinterest");
    expect((content as string).match(/1\. |2\. /g)).toHaveLength(1);
  });

  it("drops the blocked domains' results itself: the API takes no blocked domains", async () => {
    server.reply({ json: documentedShape() });
    const model = new OpenAIResponsesModel({ model: "gpt-5", apiKey: "sk-test", baseURL: server.url, provider: "openai" });
    const { content } = await callTool(createWebSearchTool(model), { query: "node 24", blocked_domains: ["nodejs.org"] });
    expect((server.requests[0]?.body as { tools: unknown } | undefined)?.tools).toStrictEqual([{ type: "web_search" }]);
    expect(content).toContain("1. https://www.pinterest.com/pin/node — https://www.pinterest.com/pin/node");
    expect(content).not.toContain("— https://nodejs.org");
  });
});

describe("WebSearch with another provider, or a backend of the user's", () => {
  it("says plainly that web search is not available, naming the provider", async () => {
    const gemini: Model = { provider: "google", modelId: "gemini-test", complete: () => Promise.reject(new Error("not called")) };
    const result = await callTool(createWebSearchTool(gemini), { query: "node release" });
    expect(result.isError).toBe(true);
    expect(result.content).toContain("web search is not available with this model (google)");
    expect(result.content).toContain("CodingAgentOptions.webSearch.search");
    expect((await callTool(createWebSearchTool(new FakeModel([])), { query: "node release" })).content).toContain(
      "web search is not available with this model (fake)",
    );
  });

  it("uses the backend given instead of the provider, with the query and the domains, dropping results outside them", async () => {
    const calls: { query: string; options: WebSearchOptions }[] = [];
    const search = async (query: string, options: WebSearchOptions): Promise<WebSearchResult[]> => {
      calls.push({ query, options });
      return [
        { title: "Docs", url: "https://docs.python.org/3/whatsnew/3.14.html", snippet: "What's new in Python 3.14" },
        { title: "Elsewhere", url: "https://example.com/python" },
      ];
    };
    server.reply(fixtureReply(endTurnJson));
    const { content } = await callTool(createWebSearchTool(anthropic(), { search }), {
      query: "python 3.14",
      allowed_domains: ["python.org"],
    });
    expect(server.requests).toHaveLength(0);
    expect(calls).toHaveLength(1);
    expect(calls[0]?.query).toBe("python 3.14");
    expect(calls[0]?.options.allowedDomains).toEqual(["python.org"]);
    expect(content).toContain("1. Docs — https://docs.python.org/3/whatsnew/3.14.html\n   What's new in Python 3.14");
    expect(content).not.toContain("example.com");
  });
});

describe("WebSearch in a CodingAgent: permissions", () => {
  let workspace: string;
  beforeAll(() => {
    workspace = mkdtempSync(join(tmpdir(), "minagent-web-search-"));
  });
  afterAll(() => rmSync(workspace, { recursive: true, force: true }));

  const run = async (options: Omit<CodingAgentOptions, "workspace">) => {
    const model = new FakeModel([reply("", toolCall("WebSearch", { query: "node release" }, "s")), "Done."]);
    const asked: string[] = [];
    const searched: string[] = [];
    const agent = await CodingAgent.create(model, {
      workspace,
      settingsFiles: [],
      webSearch: {
        search: async (query) => {
          searched.push(query);
          return [{ title: "Node.js", url: "https://nodejs.org/" }];
        },
      },
      askPerson: (request) => {
        asked.push(request.toolCall.name);
        return { behavior: "deny", message: "Not now." };
      },
      ...options,
    });
    const result = await agent.run("When is the next Node release?");
    const observation = result.messages.find((message) => message.role === "tool")?.content ?? "";
    return { asked, searched, observation, tools: model.requests[0]?.tools.map((tool) => tool.name) };
  };

  it("asks in default mode", async () => {
    const { asked, searched, observation, tools } = await run({});
    expect(tools).toContain("WebSearch");
    expect(asked).toEqual(["WebSearch"]);
    expect(searched).toEqual([]);
    expect(observation).toContain("Not now.");
  });

  it("runs unasked with an allow rule WebSearch, and is refused by a deny rule", async () => {
    const allowed = await run({ rules: { allow: ["WebSearch"] } });
    expect(allowed.asked).toEqual([]);
    expect(allowed.searched).toEqual(["node release"]);
    expect(allowed.observation).toContain("1. Node.js — https://nodejs.org/");
    const denied = await run({ rules: { allow: ["WebSearch"], deny: ["WebSearch"] } });
    expect(denied.searched).toEqual([]);
    expect(denied.observation).toContain("forbidden by the deny rule `WebSearch`");
  });

  it("is left out with webSearch: false", async () => {
    expect((await run({ webSearch: false })).tools).not.toContain("WebSearch");
  });
});
