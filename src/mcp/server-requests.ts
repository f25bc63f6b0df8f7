import { ToolError } from "../errors.js";
import { describePromptMessages, getPromptOf, listPromptsOf } from "./mcp-prompts.js";
import { describeResourceContents, listResourcesOf, listResourceTemplatesOf, readResourceOf } from "./mcp-resources.js";
import type { McpServerConnection } from "./mcp-server-connection.js";
import type { McpServers } from "./mcp-servers.js";
import type { ServerFeatures } from "./server-features.js";

/** What {@link McpServers} asks of servers beyond their tools. */
export type ServerRequests = Pick<
  McpServers,
  | "listResources"
  | "listResourceTemplates"
  | "readResource"
  | "readResourceText"
  | "subscribeResource"
  | "listPrompts"
  | "getPrompt"
  | "getPromptText"
>;

/** The server of that name; a ToolError naming the servers there are, when none has it. */
export function findConnection(connections: readonly McpServerConnection[], server: string): McpServerConnection {
  const connection = connections.find((candidate) => candidate.name === server);
  if (connection) return connection;
  throw new ToolError(`There is no MCP server named "${server}" (servers: ${connections.map(({ name }) => name).join(", ") || "none"}).`);
}

/**
 * The resource and prompt requests of {@link McpServers}, over `connections` (a list that grows as servers are
 * added). A named server must declare the feature; without a name, every ready server that declares it is asked.
 */
export function createServerRequests(connections: readonly McpServerConnection[], features: ServerFeatures): ServerRequests {
  const offering = (server: string, feature: "resources" | "prompts" | "resourceSubscriptions"): McpServerConnection => {
    const connection = findConnection(connections, server);
    features.require(connection, feature);
    return connection;
  };
  const fromServers = async <T>(
    server: string | undefined,
    feature: "resources" | "prompts",
    list: (connection: McpServerConnection) => Promise<T[]>,
  ) => {
    if (server !== undefined) return list(offering(server, feature));
    const ready = connections.filter((connection) => connection.state === "ready" && features.capabilities(connection.name)[feature]);
    // One server that fails to answer does not hide the others' lists; when every one fails, the first says why.
    const settled = await Promise.allSettled(ready.map(list));
    const answered = settled.flatMap((result) => (result.status === "fulfilled" ? [result.value] : []));
    const failure = settled.find((result) => result.status === "rejected");
    if (answered.length === 0 && failure) throw failure.reason;
    return answered.flat();
  };
  return {
    listResources: (server) => fromServers(server, "resources", listResourcesOf),
    listResourceTemplates: (server) => fromServers(server, "resources", listResourceTemplatesOf),
    readResource: (server, uri, options = {}) => readResourceOf(offering(server, "resources"), uri, options.signal),
    readResourceText: async (server, uri, options = {}) => {
      const connection = offering(server, "resources");
      return connection.redact(describeResourceContents(await readResourceOf(connection, uri, options.signal)));
    },
    subscribeResource: async (server, uri, onUpdated) => features.subscribe(findConnection(connections, server), uri, onUpdated),
    listPrompts: (server) => fromServers(server, "prompts", listPromptsOf),
    getPrompt: async (server, prompt, args = {}, options = {}) => getPromptOf(offering(server, "prompts"), prompt, args, options.signal),
    getPromptText: async (server, prompt, args = {}, options = {}) => {
      const connection = offering(server, "prompts");
      return connection.redact(describePromptMessages(await getPromptOf(connection, prompt, args, options.signal)));
    },
  };
}
