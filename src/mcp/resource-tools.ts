import type { JsonSchema, Tool } from "../engine.js";
import type { McpResource, McpResourceTemplate } from "./mcp-resources.js";

/** Claude Code's names for the two tools, which models may know. */
export const listResourcesToolName = "ListMcpResourcesTool";
export const readResourceToolName = "ReadMcpResourceTool";

/** What the resource tools need of the servers. */
export type ResourceSource = {
  listResources(server?: string): Promise<McpResource[]>;
  listResourceTemplates(server?: string): Promise<McpResourceTemplate[]>;
  /** The resource as the model reads it: text, binary parts described, secrets redacted. */
  describeResource(server: string, uri: string, signal: AbortSignal): Promise<string>;
};

/**
 * The two tools that give the model the servers' resources: `ListMcpResourcesTool` lists them (and the templates
 * a server reads on demand), `ReadMcpResourceTool` reads one. Both only read: plan mode allows them, and their calls
 * of one turn may overlap. Like any tool they go through the registry (its result bound, its timeout) and the
 * permission check.
 */
export function createResourceTools(source: ResourceSource): Tool[] {
  const list: Tool<JsonSchema> = {
    name: listResourcesToolName,
    description:
      "Lists the resources the connected MCP servers offer (documents, files, records), each with its server and uri, and the URI templates a server can read on demand (fill in the {variables}). Read one with ReadMcpResourceTool.",
    compileOnFirstCall: true,
    parameters: {
      type: "object",
      properties: { server: { type: "string", description: "Only this server's resources. Default: every server's." } },
      additionalProperties: false,
    },
    readOnly: true,
    execute: async (args) => {
      const server = typeof args.server === "string" && args.server !== "" ? args.server : undefined;
      const [resources, templates] = await Promise.all([source.listResources(server), source.listResourceTemplates(server)]);
      if (resources.length === 0 && templates.length === 0)
        return server ? `MCP server "${server}" lists no resources.` : "No MCP server lists any resources.";
      return JSON.stringify([...resources, ...templates], null, 1);
    },
  };
  const read: Tool<JsonSchema> = {
    name: readResourceToolName,
    description:
      "Reads a resource of an MCP server by its uri (from ListMcpResourcesTool, or a URI template with its variables filled in). Binary contents are described by type and size.",
    compileOnFirstCall: true,
    parameters: {
      type: "object",
      properties: {
        server: { type: "string", description: "The MCP server's name" },
        uri: { type: "string", description: "The resource's uri" },
      },
      required: ["server", "uri"],
      additionalProperties: false,
    },
    readOnly: true,
    execute: (args, context) => source.describeResource(String(args.server), String(args.uri), context.signal),
  };
  return [list, read] as Tool[];
}
