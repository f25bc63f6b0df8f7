import { homedir } from "node:os";
import { join } from "node:path";
import type { Tool, ToolRegistry } from "../engine.js";
import { UsageError } from "../errors.js";
import { McpCredentialStore } from "./auth/credential-store.js";
import { type McpClientFeatures, rootsOf } from "./client-features.js";
import { type McpConfig, type ResolvedMcpServer, resolveMcpConfig } from "./config.js";
import { ToolDeferral } from "./defer-tools.js";
import { loadMcpSdk } from "./load-mcp-sdk.js";
import { McpServerConnection } from "./mcp-server-connection.js";
import type { ConnectMcpServersOptions, McpServers, McpTool } from "./mcp-servers.js";
import { createResourceTools } from "./resource-tools.js";
import { ServerFeatures } from "./server-features.js";
import { createServerRequests, findConnection } from "./server-requests.js";
import { callable, ServerToolSet, statusOf } from "./server-tool-set.js";

/**
 * Starts the MCP servers of a config (Claude Code's `.mcp.json` shape) at once, in parallel, and gives their tools
 * to minagent's loop as `mcp__<server>__<tool>`. A server that is slow or fails never blocks the others: its state
 * says what went wrong, and with `wait: false` the first turn does not wait for anything. Rejects with a UsageError
 * when the MCP SDK (an optional peer dependency) is not installed, or a config or option is malformed.
 * @example
 * const mcp = await connectMcpServers({ mcpServers: { memory: { command: "npx", args: ["-y", "@modelcontextprotocol/server-memory"] } } });
 * const registry = new ToolRegistry();
 * const agent = new Agent(model, registry, { prepareTurn: mcp.prepareTurn(registry) });
 * try { await agent.run("Remember that Ada prefers tea."); } finally { await mcp.close(); }
 */
export async function connectMcpServers(
  config: McpConfig | readonly ResolvedMcpServer[],
  options: ConnectMcpServersOptions = {},
): Promise<McpServers> {
  const servers = Array.isArray(config)
    ? (config as readonly ResolvedMcpServer[])
    : resolveMcpConfig(config, "code", options.variables ?? process.env);
  let revision = 0;
  const clientFeatures: McpClientFeatures = {
    elicit: options.elicit,
    sample: options.sample,
    roots: options.roots && rootsOf(options.roots),
  };
  const features = new ServerFeatures(options.logLevel ?? "info");
  const settings = {
    onConnected: features.onConnected,
    clientInfo: options.clientInfo ?? { name: "minagent", version: "0.1.0" },
    startupTimeoutMs: positive("startupTimeoutMs", options.startupTimeoutMs ?? 30_000),
    maxRestarts: Math.max(0, Math.floor(options.maxRestarts ?? 3)),
    cwd: options.cwd,
    sandbox: options.sandbox,
    auth: {
      store: new McpCredentialStore(options.auth?.directory ?? join(homedir(), ".minagent", "mcp-auth")),
      authorize: options.auth?.onAuthorizationUrl,
      loginTimeoutMs: positive("auth.loginTimeoutMs", options.auth?.loginTimeoutMs ?? 300_000),
      loginHint: options.auth?.loginHint ?? ((server: string) => `call login("${server}")`),
    },
    features: clientFeatures,
    onChange: () => {
      revision += 1;
      options.onChange?.();
    },
  };
  const connections: McpServerConnection[] = [];
  const toolSets: ServerToolSet[] = [];
  const starts: Promise<void>[] = [];
  let closed = false;
  const add = (more: readonly ResolvedMcpServer[]): Promise<void> => {
    if (closed) throw new UsageError("These MCP servers were closed: connect again to start more.");
    const names = new Set(connections.map(({ name }) => name));
    for (const { name } of more) {
      if (names.has(name)) throw new UsageError(`Two MCP servers are named "${name}": give each a name of its own.`);
      names.add(name);
    }
    const added = more.map((server) => new McpServerConnection(server, settings));
    connections.push(...added);
    toolSets.push(...added.map((connection) => new ServerToolSet(connection, options.toolTimeoutMs, features)));
    settings.onChange();
    const started = Promise.all(added.map((connection) => connection.start())).then(() => undefined);
    starts.push(started);
    return started;
  };
  // A missing SDK is the program's problem, not a server's: say so once, at once.
  if (servers.length > 0) await loadMcpSdk();
  const started = add(servers);
  // What each registry was given, by name: the McpTool it came from, to tell a tool that changed from one that did not.
  const registries = new WeakMap<ToolRegistry, { revision: number; names: Map<string, Tool> }>();

  const tools = (): McpTool[] => toolSets.flatMap((set) => (callable(set.connection.state) ? set.current().tools : []));
  const requests = createServerRequests(connections, features);
  const resourceTools = createResourceTools({
    listResources: requests.listResources,
    listResourceTemplates: requests.listResourceTemplates,
    describeResource: (server, uri, signal) => requests.readResourceText(server, uri, { signal }),
  });
  // The resource tools are offered while a ready server offers resources.
  const offeredTools = (): Tool[] => {
    const offersResources = connections.some(
      (connection) => connection.state === "ready" && features.capabilities(connection.name).resources,
    );
    return [...tools(), ...(offersResources ? resourceTools : [])];
  };
  const syncTools = (registry: ToolRegistry, wrap?: (tool: Tool) => Tool): void => {
    const known = registries.get(registry) ?? { revision: -1, names: new Map<string, Tool>() };
    registries.set(registry, known);
    if (known.revision === revision) return;
    known.revision = revision;
    const wanted = new Map(offeredTools().map((tool) => [tool.name, tool]));
    for (const [name, tool] of known.names) {
      if (wanted.get(name) === tool) continue;
      registry.remove(name);
      known.names.delete(name);
    }
    for (const [name, tool] of wanted) {
      if (known.names.has(name) || registry.get(name)) continue;
      registry.add(wrap ? wrap(tool) : tool);
      known.names.set(name, tool);
    }
  };
  // The MCP tools a registry holds now (wrapped, as they are sent).
  const mcpToolsIn = (registry: ToolRegistry): Tool[] =>
    [...(registries.get(registry)?.names.keys() ?? [])].flatMap((name) => registry.get(name) ?? []);
  const mcp: McpServers = {
    status: () => toolSets.map((set) => statusOf(set, features)),
    tools,
    syncTools,
    prepareTurn: (registry, turnOptions = {}) => {
      const deferral = turnOptions.deferTools ? new ToolDeferral(turnOptions.deferTools) : undefined;
      return async ({ messages }) => {
        // A list a server announced as changed (while the last turn's calls ran) is fetched before this turn.
        await Promise.all(connections.map((connection) => connection.toolsListed()));
        syncTools(registry, turnOptions.wrap);
        return deferral?.plan(registry, mcpToolsIn(registry), messages);
      };
    },
    callTool: async (server, tool, args = {}, callOptions = {}) =>
      findConnection(connections, server).callToolForResult(tool, args, callOptions.signal, callOptions.onProgress),
    ...requests,
    onProgress: (listener) => features.onProgress(listener),
    onLog: (listener) => features.onLog(listener),
    add,
    login: async (server, onAuthorizationUrl, loginOptions = {}) => {
      const index = connections.findIndex((candidate) => candidate.name === server);
      const connection = connections[index];
      const set = toolSets[index];
      if (!connection || !set)
        throw new UsageError(
          `There is no MCP server named "${server}" (servers: ${connections.map(({ name }) => name).join(", ") || "none"}).`,
        );
      const authorize = onAuthorizationUrl ?? options.auth?.onAuthorizationUrl;
      if (!authorize) throw new UsageError(`Logging in to "${server}" needs somewhere to show the login's URL: pass onAuthorizationUrl.`);
      await connection.login(authorize, loginOptions.signal);
      return statusOf(set, features);
    },
    logout: async (server) => {
      const connection = connections.find((candidate) => candidate.name === server);
      if (!connection) throw new UsageError(`There is no MCP server named "${server}".`);
      await connection.logout();
    },
    restart: async (server) => {
      if (closed) throw new UsageError("These MCP servers were closed: connect again to restart one.");
      const connection = connections.find((candidate) => candidate.name === server);
      if (!connection)
        throw new UsageError(
          `There is no MCP server named "${server}" to restart (servers: ${connections.map(({ name }) => name).join(", ") || "none"}).`,
        );
      await connection.restart();
    },
    setElicitationHandler: (handler) => {
      clientFeatures.elicit = handler;
    },
    setSamplingHandler: (handler) => {
      clientFeatures.sample = handler;
    },
    setRoots: async (paths) => {
      // Offered only by choice at connection: a server's scope must not change by itself at a restart.
      if (!clientFeatures.roots) return;
      const roots = rootsOf(paths);
      if (JSON.stringify(roots) === JSON.stringify(clientFeatures.roots)) return;
      clientFeatures.roots = roots;
      await Promise.all(connections.map((connection) => connection.rootsChanged()));
    },
    ready: async () => {
      // Servers added while waiting are waited for too.
      let waited = 0;
      while (waited < starts.length) {
        const batch = starts.slice(waited);
        waited = starts.length;
        await Promise.all(batch);
      }
    },
    close: async () => {
      closed = true;
      await Promise.all(connections.map((connection) => connection.close()));
    },
  };
  if (options.wait ?? true) await started;
  return mcp;
}

function positive(option: string, value: number): number {
  if (!(value > 0)) throw new UsageError(`connectMcpServers option ${option} must be a positive number of milliseconds, got ${value}.`);
  return value;
}
