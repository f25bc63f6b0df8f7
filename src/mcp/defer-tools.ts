import type { Message, Tool, ToolRegistry, TurnPlan } from "../engine.js";
import { toOneLine } from "../text.js";

/** The name of the tool that loads deferred tools: the name Claude Code gives its own, which models may know. */
export const toolSearchName = "ToolSearch";

/**
 * When MCP tools are held back (deferred): `true` always, `false` never, or `{ aboveTokens }`: when their schemas
 * would add more than that many tokens (estimated at 4 characters a token) to every model call.
 */
export type DeferTools = boolean | { aboveTokens: number };

const loadedLine = /^loaded: (\S+)/gm;
const defaultResults = 5;

/**
 * Holds MCP tools back until the model asks for them. Many servers bring many tools, and every model call would
 * carry all their schemas; deferred, each call carries only their names (in the ToolSearch tool's description) and
 * the schemas of those the model loaded. `ToolSearch({ query })` loads tools by `select:<name>,<name>` or by
 * keywords; a loaded tool is offered from the model's next turn on. What was loaded is read from the conversation
 * (the ToolSearch results in it), so a resumed or continued conversation keeps its tools.
 */
export class ToolDeferral {
  readonly #when: Exclude<DeferTools, false>;
  /** The deferred tools the current ToolSearch describes, to rebuild it when they change. */
  #described = "";
  #searchTool: Tool | undefined;

  constructor(when: Exclude<DeferTools, false>) {
    this.#when = when;
  }

  /**
   * This turn's plan for a registry holding `mcpTools` among others: the tools to offer (all but the deferred ones
   * not loaded yet, plus ToolSearch), or nothing when the MCP tools are small enough to send whole.
   */
  plan(registry: ToolRegistry, mcpTools: readonly Tool[], messages: readonly Message[]): TurnPlan | undefined {
    if (!this.#shouldDefer(mcpTools)) {
      this.#removeSearchTool(registry);
      return undefined;
    }
    this.#installSearchTool(registry, mcpTools);
    const loaded = loadedToolNames(messages);
    const deferred = new Set(mcpTools.map(({ name }) => name).filter((name) => !loaded.has(name)));
    return { tools: registry.names().filter((name) => !deferred.has(name)) };
  }

  #shouldDefer(mcpTools: readonly Tool[]): boolean {
    if (mcpTools.length === 0) return false;
    if (this.#when === true) return true;
    const characters = mcpTools.reduce(
      (sum, tool) => sum + tool.name.length + tool.description.length + JSON.stringify(tool.parameters).length,
      0,
    );
    return characters / 4 > this.#when.aboveTokens;
  }

  #installSearchTool(registry: ToolRegistry, mcpTools: readonly Tool[]): void {
    const names = mcpTools.map(({ name }) => name).join("\n");
    if (this.#searchTool && names === this.#described && registry.get(toolSearchName) === this.#searchTool) return;
    this.#removeSearchTool(registry);
    if (registry.get(toolSearchName)) return; // someone else's ToolSearch: leave it
    this.#described = names;
    this.#searchTool = createToolSearch(mcpTools);
    registry.add(this.#searchTool);
  }

  #removeSearchTool(registry: ToolRegistry): void {
    if (this.#searchTool && registry.get(toolSearchName) === this.#searchTool) registry.remove(toolSearchName);
    this.#searchTool = undefined;
    this.#described = "";
  }
}

/** The ToolSearch tool over these deferred tools: their names are in its description, their schemas load on request. */
function createToolSearch(deferred: readonly Tool[]): Tool {
  const byName = new Map(deferred.map((tool) => [tool.name, tool]));
  return {
    name: toolSearchName,
    description:
      "Loads tools that are available but not sent with every request, so that you can call them. Until loaded, only " +
      'their names are known and a call to one is refused. Load by name with "select:<name>,<name>", or search ' +
      "their names and descriptions with keywords. A loaded tool can be called from your next turn on.\n\n" +
      `Tools to load:\n${deferred.map(({ name }) => name).join("\n")}`,
    compileOnFirstCall: true,
    parameters: {
      type: "object",
      properties: {
        query: { type: "string", description: 'Either "select:<name>,<name>" or keywords to search for.' },
        max_results: { type: "integer", minimum: 1, maximum: 20, description: `At most this many tools (default ${defaultResults}).` },
      },
      required: ["query"],
      additionalProperties: false,
    },
    readOnly: true,
    execute: ({ query, max_results: maxResults }) =>
      searchTools(byName, String(query), typeof maxResults === "number" ? maxResults : defaultResults),
  };
}

function searchTools(byName: ReadonlyMap<string, Tool>, query: string, maxResults: number): string {
  const trimmed = query.trim();
  let found: Tool[];
  let missing: string[] = [];
  if (trimmed.startsWith("select:")) {
    const names = trimmed
      .slice("select:".length)
      .split(",")
      .map((name) => name.trim())
      .filter(Boolean);
    found = names.flatMap((name) => byName.get(name) ?? []);
    missing = names.filter((name) => !byName.has(name));
  } else {
    const words = trimmed
      .toLowerCase()
      .split(/[\s_-]+/)
      .filter(Boolean);
    found = [...byName.values()]
      .map((tool) => ({ tool, score: scoreTool(tool, words) }))
      .filter(({ score }) => score > 0)
      .sort((a, b) => b.score - a.score)
      .slice(0, maxResults)
      .map(({ tool }) => tool);
  }
  const lines = found.map((tool) => `loaded: ${tool.name} — ${firstLine(tool.description)}`);
  if (missing.length > 0) lines.push(`No tool is named ${missing.join(", ")}.`);
  if (found.length === 0)
    return `${lines.join("\n")}${lines.length ? "\n" : ""}No tool matched "${trimmed}": the names to load are in this tool's description.`;
  return `${lines.join("\n")}\nCall ${found.length === 1 ? "it" : "them"} from your next turn.`;
}

function scoreTool(tool: Tool, words: readonly string[]): number {
  const name = tool.name.toLowerCase();
  const description = tool.description.toLowerCase();
  return words.reduce((score, word) => score + (name.includes(word) ? 3 : 0) + (description.includes(word) ? 1 : 0), 0);
}

/** The tools ToolSearch loaded in a conversation: read from its results, so that a continued conversation keeps them. */
export function loadedToolNames(messages: readonly Message[]): Set<string> {
  const searches = new Set<string>();
  const loaded = new Set<string>();
  for (const message of messages) {
    for (const call of message.toolCalls ?? []) if (call.name === toolSearchName) searches.add(call.id);
    if (message.role === "tool" && message.toolCallId && searches.has(message.toolCallId))
      for (const match of message.content.matchAll(loadedLine)) loaded.add(match[1] as string);
  }
  return loaded;
}

function firstLine(text: string): string {
  return toOneLine(text.split("\n", 1)[0] ?? "", 200);
}
