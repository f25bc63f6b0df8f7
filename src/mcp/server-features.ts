import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ToolError } from "../errors.js";
import { askServer } from "./mcp-resources.js";
import type { McpServerConnection } from "./mcp-server-connection.js";

/** MCP's log levels, least severe first (RFC 5424's, as the protocol names them). */
export const mcpLogLevels = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"] as const;

/** How severe a server's log message is. */
export type McpLogLevel = (typeof mcpLogLevels)[number];

/** A log message a server sent (`notifications/message`), its secrets redacted. */
export type McpLogMessage = {
  server: string;
  level: McpLogLevel;
  /** The part of the server that logged it, when the server says. */
  logger?: string | undefined;
  /** The message: the server's `data` as it was when a string, else as JSON. */
  text: string;
};

/** A server's progress on a tool call in flight (`notifications/progress`). */
export type McpToolProgress = {
  server: string;
  /** The tool's name on its server. */
  tool: string;
  /** The id of the model's tool call this progress is for (`ToolContext.toolCallId`). */
  toolCallId: string;
  /** How far it is; grows with each notice. */
  progress: number;
  /** How far it will go, when the server knows. */
  total?: number | undefined;
  /** What it is doing, its secrets redacted. */
  message?: string | undefined;
};

/** What a server declared it offers beyond tools, from its `initialize` answer. */
export type McpServerCapabilities = {
  resources: boolean;
  /** It sends `notifications/resources/updated` for a resource a client subscribed to. */
  resourceSubscriptions: boolean;
  prompts: boolean;
  logging: boolean;
};

type UpdateListener = (uri: string) => void;

/**
 * What each server offers beyond tools, and what it sends without being asked: its log messages, progress on calls,
 * and updates of resources subscribed to. {@link onConnected} is given to every connection, so that a restarted
 * server gets the same handlers, log level and subscriptions as the first.
 */
export class ServerFeatures {
  readonly #capabilities = new Map<string, McpServerCapabilities>();
  readonly #logListeners = new Set<(message: McpLogMessage) => void>();
  readonly #progressListeners = new Set<(progress: McpToolProgress) => void>();
  /** Subscribed resources by server, then by uri: who wants to hear of their updates. */
  readonly #subscriptions = new Map<string, Map<string, Set<UpdateListener>>>();
  readonly #logLevel: McpLogLevel | false;

  /** @param logLevel what `logging/setLevel` asks of servers that declare logging; false sends none. */
  constructor(logLevel: McpLogLevel | false) {
    this.#logLevel = logLevel;
  }

  /** What the server declared when it last connected; all false until then. */
  capabilities(server: string): McpServerCapabilities {
    return this.#capabilities.get(server) ?? { resources: false, resourceSubscriptions: false, prompts: false, logging: false };
  }

  /** Throws a ToolError saying the server does not offer `feature`, unless it declared it. */
  require(connection: McpServerConnection, feature: "resources" | "prompts" | "resourceSubscriptions"): void {
    if (this.capabilities(connection.name)[feature]) return;
    const what =
      feature === "resourceSubscriptions"
        ? 'resource subscriptions (its "resources" capability has no "subscribe")'
        : `${feature} (it declares no "${feature}" capability)`;
    const state = connection.state === "ready" ? "" : ` It is ${connection.state}${connection.problem ? `: ${connection.problem}` : ""}.`;
    throw new ToolError(`MCP server "${connection.name}" does not offer ${what}.${state}`);
  }

  onLog(listener: (message: McpLogMessage) => void): () => void {
    this.#logListeners.add(listener);
    return () => this.#logListeners.delete(listener);
  }

  onProgress(listener: (progress: McpToolProgress) => void): () => void {
    this.#progressListeners.add(listener);
    return () => this.#progressListeners.delete(listener);
  }

  /** Tells every progress listener; a listener that throws is left out, so that a drawing bug never fails the call. */
  reportProgress(progress: McpToolProgress): void {
    for (const listener of this.#progressListeners) callSafely(() => listener(progress));
  }

  /** Subscribes `onUpdated` to a resource's updates; resolves to what unsubscribes it (the last one also tells the server). */
  async subscribe(connection: McpServerConnection, uri: string, onUpdated: UpdateListener): Promise<() => Promise<void>> {
    this.require(connection, "resourceSubscriptions");
    const byUri = this.#subscriptions.get(connection.name) ?? new Map<string, Set<UpdateListener>>();
    this.#subscriptions.set(connection.name, byUri);
    const listeners = byUri.get(uri) ?? new Set<UpdateListener>();
    // A second listener of the same uri shares the server's subscription: the server is asked once.
    if (listeners.size === 0) await askServer(connection, `subscribe to ${uri}`, (client) => client.subscribeResource({ uri }));
    byUri.set(uri, listeners);
    const listener: UpdateListener = (updated) => onUpdated(updated);
    listeners.add(listener);
    return async () => {
      if (!listeners.delete(listener) || listeners.size > 0) return;
      byUri.delete(uri);
      if (connection.state === "ready") await connection.withClient((client) => client.unsubscribeResource({ uri })).catch(() => undefined);
    };
  }

  /** Sets up a client that has just connected: its capabilities, handlers, log level and the subscriptions it had. */
  readonly onConnected = async (connection: McpServerConnection, client: Client): Promise<void> => {
    const declared = client.getServerCapabilities() ?? {};
    const capabilities: McpServerCapabilities = {
      resources: declared.resources !== undefined,
      resourceSubscriptions: declared.resources?.subscribe === true,
      prompts: declared.prompts !== undefined,
      logging: declared.logging !== undefined,
    };
    this.#capabilities.set(connection.name, capabilities);
    // Loaded already: the client that connected came from it.
    const { LoggingMessageNotificationSchema, ResourceUpdatedNotificationSchema } = await import("@modelcontextprotocol/sdk/types.js");
    client.setNotificationHandler(LoggingMessageNotificationSchema, ({ params }) => {
      const text = connection.redact(typeof params.data === "string" ? params.data : JSON.stringify(params.data));
      const message: McpLogMessage = {
        server: connection.name,
        level: params.level,
        text,
        ...(params.logger && { logger: params.logger }),
      };
      for (const listener of this.#logListeners) callSafely(() => listener(message));
    });
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, ({ params }) => {
      for (const listener of this.#subscriptions.get(connection.name)?.get(params.uri) ?? []) callSafely(() => listener(params.uri));
    });
    // Sent, not awaited: neither may hold up or fail the start (a server that refuses its level still has tools).
    // The level goes out before the tool listing, so the server has it before any call.
    if (capabilities.logging && this.#logLevel !== false) void client.setLoggingLevel(this.#logLevel).catch(() => undefined);
    if (capabilities.resourceSubscriptions)
      for (const uri of this.#subscriptions.get(connection.name)?.keys() ?? [])
        void client.subscribeResource({ uri }).catch(() => undefined);
  };
}

function callSafely(call: () => void): void {
  try {
    call();
  } catch {
    // A listener's failure is its own; the server's message still reaches the others.
  }
}
