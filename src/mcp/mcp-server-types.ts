import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { JsonSchema } from "../engine.js";
import type { McpCredentialStore } from "./auth/credential-store.js";
import type { McpAuthorizationRequest } from "./auth/mcp-oauth-provider.js";
import type { McpClientFeatures } from "./client-features.js";
import type { McpSandbox } from "./mcp-sandbox.js";
import type { McpServerConnection } from "./mcp-server-connection.js";

/**
 * Where a server is in its life:
 * - `starting`: being started or connected to; `restarting`: the same, after it stopped;
 * - `ready`: its tools can be called;
 * - `crashed`: it stopped (its process exited, its connection closed); the next call to one of its tools restarts it;
 * - `failed`: it never started (its command is missing, it did not answer the handshake in time, its config is wrong);
 * - `needs-login`: it asks for an OAuth login nobody could do (no one to show the URL to); `login()` does it;
 * - `unavailable`: it stopped more often than `maxRestarts` allows, and is left stopped;
 * - `closed`: closed by {@link McpServers.close}.
 */
export type McpServerState = "starting" | "restarting" | "ready" | "crashed" | "failed" | "needs-login" | "unavailable" | "closed";

/** The hints a server gives about a tool (MCP's tool annotations); only hints, which a client should not trust blindly. */
export type McpToolAnnotations = {
  title?: string | undefined;
  /** The tool changes nothing: minagent lets such calls overlap, and allows them in plan mode. */
  readOnlyHint?: boolean | undefined;
  /** The tool may destroy or overwrite data (meaningful when it is not read-only). */
  destructiveHint?: boolean | undefined;
  /** Calling it again with the same arguments has no further effect. */
  idempotentHint?: boolean | undefined;
  /** It reaches outside systems (the web, other services). */
  openWorldHint?: boolean | undefined;
};

/** A tool as an MCP server lists it. */
export type McpToolDefinition = {
  name: string;
  title?: string | undefined;
  description?: string | undefined;
  inputSchema: JsonSchema;
  outputSchema?: JsonSchema | undefined;
  annotations?: McpToolAnnotations | undefined;
};

/** Settings shared by every server's connection. */
export type McpConnectionSettings = {
  clientInfo: { name: string; version: string };
  /** Milliseconds a server has to start and answer the handshake and the tool listing. */
  startupTimeoutMs: number;
  /** Restarts allowed after the server stops, before it is marked unavailable. */
  maxRestarts: number;
  /** The folder a stdio server runs in when its config names none. */
  cwd: string | undefined;
  /** Told whenever the state or the tool list changes. */
  onChange: () => void;
  /** The OS sandbox stdio servers with `"sandbox": true` run in; without an enabled one they are not started. */
  sandbox: McpSandbox | undefined;
  /** Where OAuth logins are kept, and who shows a login's URL. */
  auth: McpAuthSettings;
  /** What answers the server's own requests (elicitation, sampling, roots), declared at each handshake. */
  features: McpClientFeatures;
  /**
   * Told of each new client once it has connected, before the server is ready (at every start and restart): where
   * notification handlers are set and `logging/setLevel` is sent. It must not throw.
   */
  onConnected?: ((connection: McpServerConnection, client: Client) => Promise<void>) | undefined;
};

/** What the server reports of a call in flight (its `notifications/progress`). */
export type McpProgress = { progress: number; total?: number | undefined; message?: string | undefined };

/** How HTTP servers that ask for OAuth are logged in to. */
export type McpAuthSettings = {
  store: McpCredentialStore;
  /** Shows a login's URL to the person (prints it, opens a browser); undefined: a login waits for `login()`. */
  authorize: ((request: McpAuthorizationRequest) => void | Promise<void>) | undefined;
  /** How long the browser has to come back. */
  loginTimeoutMs: number;
  /** What to tell the person to do to log in to a server, in its `needs-login` problem. */
  loginHint: (server: string) => string;
};
