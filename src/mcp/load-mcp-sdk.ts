import { type OptionalPackage, optionalPackageError } from "../optional-peer.js";

/** The parts of `@modelcontextprotocol/sdk` the client uses. */
export type McpSdk = {
  Client: typeof import("@modelcontextprotocol/sdk/client/index.js").Client;
  StdioClientTransport: typeof import("@modelcontextprotocol/sdk/client/stdio.js").StdioClientTransport;
  StreamableHTTPClientTransport: typeof import("@modelcontextprotocol/sdk/client/streamableHttp.js").StreamableHTTPClientTransport;
  SSEClientTransport: typeof import("@modelcontextprotocol/sdk/client/sse.js").SSEClientTransport;
  /** What a transport throws when the server wants a login it could not finish by itself. */
  UnauthorizedError: typeof import("@modelcontextprotocol/sdk/client/auth.js").UnauthorizedError;
};

/** What to run to install the optional peer dependency. */
export const installMcpSdk = "npm i @modelcontextprotocol/sdk";

const mcpSdk: OptionalPackage = { name: "@modelcontextprotocol/sdk", neededBy: "MCP servers need", install: installMcpSdk };

/**
 * Loads the MCP SDK when the first server starts, not when `minagent/mcp` is imported: the SDK brings a schema
 * library and an HTTP stack that an agent without MCP servers should not pay for at start-up (Node caches the
 * modules: later calls cost nothing). It is an optional peer dependency; when it is missing this rejects with a UsageError naming the command that installs it.
 */
export function loadMcpSdk(): Promise<McpSdk> {
  return Promise.all([
    import("@modelcontextprotocol/sdk/client/index.js"),
    import("@modelcontextprotocol/sdk/client/stdio.js"),
    import("@modelcontextprotocol/sdk/client/streamableHttp.js"),
    import("@modelcontextprotocol/sdk/client/sse.js"),
    import("@modelcontextprotocol/sdk/client/auth.js"),
  ]).then(
    ([client, stdio, http, sse, auth]) => ({
      Client: client.Client,
      StdioClientTransport: stdio.StdioClientTransport,
      StreamableHTTPClientTransport: http.StreamableHTTPClientTransport,
      SSEClientTransport: sse.SSEClientTransport,
      UnauthorizedError: auth.UnauthorizedError,
    }),
    (error: unknown) => {
      throw optionalPackageError(error, mcpSdk);
    },
  );
}
