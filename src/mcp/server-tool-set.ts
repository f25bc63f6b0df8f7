import { checkToolParameters } from "../engine.js";
import type { McpServerConnection } from "./mcp-server-connection.js";
import type { McpServerState, McpToolDefinition } from "./mcp-server-types.js";
import type { McpServerStatus, McpTool } from "./mcp-servers.js";
import type { ServerFeatures } from "./server-features.js";
import { mcpToolName } from "./tool-names.js";

/** The tools built from one listing of a server, with each definition's JSON to tell a changed tool from a kept one. */
type BuiltTools = { revision: number; tools: McpTool[]; skipped: string[]; definitions: Map<string, string> };

/** A server's tools as minagent tools, rebuilt only when the server lists something different. */
export class ServerToolSet {
  readonly connection: McpServerConnection;
  readonly #timeoutMs: number | undefined;
  readonly #features: ServerFeatures;
  #built: BuiltTools = { revision: -1, tools: [], skipped: [], definitions: new Map() };

  constructor(connection: McpServerConnection, timeoutMs: number | undefined, features: ServerFeatures) {
    this.connection = connection;
    this.#timeoutMs = timeoutMs;
    this.#features = features;
  }

  current(): { tools: McpTool[]; skipped: string[] } {
    if (this.#built.revision === this.connection.revision) return this.#built;
    const previous = new Map(this.#built.tools.map((tool) => [tool.mcpName, tool]));
    const tools: McpTool[] = [];
    const skipped: string[] = [];
    const definitions = new Map<string, string>();
    const taken = new Set<string>();
    for (const definition of this.connection.tools) {
      const name = mcpToolName(this.connection.name, definition.name);
      if (taken.has(name)) {
        skipped.push(`${definition.name}: its name becomes ${name}, which another of the server's tools already has`);
        continue;
      }
      const json = JSON.stringify(definition);
      definitions.set(definition.name, json);
      const kept = previous.get(definition.name);
      if (kept && this.#built.definitions.get(definition.name) === json) {
        tools.push(kept);
        taken.add(name);
        continue;
      }
      try {
        // Compiled once: the registries this tool is added to reuse what this compiles.
        checkToolParameters(name, definition.inputSchema);
      } catch (error) {
        skipped.push(`${definition.name}: ${error instanceof Error ? error.message : String(error)}`);
        continue;
      }
      tools.push(this.#toTool(name, definition));
      taken.add(name);
    }
    this.#built = { revision: this.connection.revision, tools, skipped, definitions };
    return this.#built;
  }

  #toTool(name: string, definition: McpToolDefinition): McpTool {
    const connection = this.connection;
    const annotations = { ...definition.annotations };
    return {
      name,
      description: definition.description ?? definition.title ?? annotations.title ?? definition.name,
      parameters: definition.inputSchema,
      readOnly: annotations.readOnlyHint === true,
      ...(this.#timeoutMs !== undefined && { timeoutMs: this.#timeoutMs }),
      server: connection.name,
      mcpName: definition.name,
      annotations,
      execute: (args, context) =>
        connection.callTool(definition.name, args as Record<string, unknown>, context.signal, ({ progress, total, message }) =>
          this.#features.reportProgress({
            server: connection.name,
            tool: definition.name,
            toolCallId: context.toolCallId,
            progress,
            ...(total !== undefined && { total }),
            ...(message !== undefined && { message: connection.redact(message) }),
          }),
        ),
    };
  }
}

export function statusOf(set: ServerToolSet, features: ServerFeatures): McpServerStatus {
  const { connection } = set;
  const config = connection.config;
  const built = set.current();
  const declared = features.capabilities(connection.name);
  const offers = connection.state === "ready" ? (["resources", "prompts", "logging"] as const).filter((feature) => declared[feature]) : [];
  return {
    name: connection.name,
    source: connection.source,
    transport: config ? (config.type ?? "stdio") : "unknown",
    state: connection.state,
    tools: callable(connection.state) ? built.tools.map((tool) => tool.name) : [],
    restarts: connection.restarts,
    ...(connection.sandboxed && { sandboxed: true }),
    ...(connection.pid !== undefined && { pid: connection.pid }),
    ...(connection.problem !== undefined && { problem: connection.problem }),
    ...(connection.loggedIn && { loggedIn: true }),
    skippedTools: built.skipped,
    ...(offers.length > 0 && { offers }),
  };
}

/** States whose tools are offered: a crashed server is restarted by the next call, so its tools stay. */
export function callable(state: McpServerState): boolean {
  return state === "ready" || state === "crashed" || state === "restarting";
}
