import type { PrepareTurn, Tool, ToolRegistry } from "../engine.js";
import type { McpAuthorizationRequest } from "./auth/mcp-oauth-provider.js";
import type { McpElicitationHandler, McpSamplingHandler } from "./client-features.js";
import type { ResolvedMcpServer, VariableSource } from "./config.js";
import type { DeferTools } from "./defer-tools.js";
import type { McpPrompt, McpPromptMessage } from "./mcp-prompts.js";
import type { McpResource, McpResourceContents, McpResourceTemplate } from "./mcp-resources.js";
import type { McpSandbox } from "./mcp-sandbox.js";
import type { McpProgress, McpServerState, McpToolAnnotations } from "./mcp-server-types.js";
import type { McpLogLevel, McpLogMessage, McpToolProgress } from "./server-features.js";
import type { McpToolResult } from "./tool-result.js";

/** Settings of {@link connectMcpServers}. Every field may be left out or `undefined`. */
export type ConnectMcpServersOptions = {
  /**
   * Wait until every server is ready or has failed before resolving (default true). With false it resolves at once
   * and each server's tools arrive when it is ready, through {@link McpServers.prepareTurn}: a slow server never
   * holds up the first turn.
   */
  wait?: boolean | undefined;
  /** Milliseconds a server has to start and list its tools before it is marked failed. Default 30,000. */
  startupTimeoutMs?: number | undefined;
  /** Milliseconds one tool call may take (the tool's `timeoutMs`). Default: the registry's. */
  toolTimeoutMs?: number | undefined;
  /** Restarts allowed to a server that stops, before it is marked unavailable. Default 3. */
  maxRestarts?: number | undefined;
  /** The folder stdio servers run in unless their config says otherwise. Default: this process's. */
  cwd?: string | undefined;
  /** Where `${VAR}` in a config takes its value. Default: `process.env`. */
  variables?: VariableSource | undefined;
  /** How minagent introduces itself to servers. Default `{ name: "minagent", version: "0.1.0" }`. */
  clientInfo?: { name: string; version: string } | undefined;
  /** Told whenever a server's state or tool list changes (to redraw a status line, say). */
  onChange?: (() => void) | undefined;
  /**
   * The OS sandbox (`createSandbox` from `minagent/code`, or anything of the {@link McpSandbox} shape) that stdio
   * servers with `"sandbox": true` run in, confined as Bash commands are. Such a server is not started (it is
   * `failed`) unless this sandbox is enabled. The caller keeps it: close it after {@link McpServers.close}.
   */
  sandbox?: McpSandbox | undefined;
  /**
   * Answers servers' `elicitation/create` (a form to fill in, a URL to open): with it, servers are told at their
   * handshake that this client supports elicitation (form mode, schema defaults applied by the SDK, and URL mode).
   * Without it, none is declared and servers do not ask. Replace it later with {@link McpServers.setElicitationHandler}.
   */
  elicit?: McpElicitationHandler | undefined;
  /**
   * Runs servers' `sampling/createMessage` on a model (`createMcpSampler(model)`): with it, sampling is declared at
   * each handshake. Replace it later with {@link McpServers.setSamplingHandler}.
   */
  sample?: McpSamplingHandler | undefined;
  /**
   * The folders servers may work in, offered as MCP roots (`file://` URIs, with `roots/list_changed` when
   * {@link McpServers.setRoots} changes them). Without it, roots are not declared (a server such as server-filesystem
   * then keeps the folders its command line gives it; given roots, it works in those instead).
   */
  roots?: readonly string[] | undefined;
  /**
   * The least severe log messages servers that declare logging are asked to send (`logging/setLevel`, at every
   * start); false asks nothing, and a server sends what it chooses. Default "info". Hear them with {@link McpServers.onLog}.
   */
  logLevel?: McpLogLevel | false | undefined;
  /** How servers reached over HTTP that ask for OAuth are logged in to (docs/mcp.md, "Logging in"). */
  auth?: McpAuthOptions | undefined;
};

/** OAuth logins of {@link connectMcpServers}. Every field may be left out or `undefined`. */
export type McpAuthOptions = {
  /** The folder of stored logins, one file per server, readable by the user only. Default `~/.minagent/mcp-auth`. */
  directory?: string | undefined;
  /**
   * Shows a login's URL to the person: print it, open a browser. With it, a server that asks for a login (at its
   * start, or for more scope on a call) is logged in to when it asks; without it, such a server is `needs-login`
   * until {@link McpServers.login}, and a stored login (refreshed when it expires) is used as it is.
   */
  onAuthorizationUrl?: ((request: McpAuthorizationRequest) => void | Promise<void>) | undefined;
  /** Milliseconds the browser has to come back from a login. Default 300,000. */
  loginTimeoutMs?: number | undefined;
  /** The words that tell a person how to log in to a server, in its problem. Default: `call login("<server>")`. */
  loginHint?: ((server: string) => string) | undefined;
};

/** What `/mcp` shows of a server. */
export type McpServerStatus = {
  name: string;
  /** The file the server was configured in, or "code". */
  source: string;
  transport: "stdio" | "http" | "sse" | "unknown";
  state: McpServerState;
  /** The names the model calls its tools by (`mcp__<server>__<tool>`). */
  tools: readonly string[];
  restarts: number;
  /** The process id of a running stdio server. */
  pid?: number | undefined;
  /** True when the server's process runs inside the OS sandbox (its config says `"sandbox": true` and the sandbox is enabled). */
  sandboxed?: boolean | undefined;
  /** Why it failed, crashed, needs a login or is unavailable. */
  problem?: string | undefined;
  /** For a server reached over HTTP: an OAuth login is stored for it (its tokens, possibly to be refreshed). */
  loggedIn?: boolean | undefined;
  /** Tools of the server that were left out, and why (an unsafe schema, a name that clashes). */
  skippedTools: readonly string[];
  /** What a ready server declared it offers beyond tools (`resources`, `prompts`, `logging`); absent when nothing. */
  offers?: readonly ("resources" | "prompts" | "logging")[] | undefined;
};

/** An MCP tool on minagent's loop: a {@link Tool} that also says where it comes from and what its server claims of it. */
export type McpTool = Tool & {
  /** The server's name in the config. */
  server: string;
  /** The tool's name on its server. */
  mcpName: string;
  /** The server's hints (read-only, destructive, idempotent, open world), shown when a call is asked about. */
  annotations: McpToolAnnotations;
};

/** How {@link McpServers.prepareTurn} puts the tools in a registry. Every field may be left out or `undefined`. */
export type McpTurnOptions = {
  /**
   * Applied to each tool before it is added (a coding agent's PostToolUse hooks, say): the servers' tools (`McpTool`s)
   * and the two resource tools.
   */
  wrap?: ((tool: Tool) => Tool) | undefined;
  /**
   * Hold MCP tools back until the model loads them with a `ToolSearch` tool (see {@link ToolDeferral}): `true`,
   * or `{ aboveTokens }` to do it only when their schemas would add more than that to every model call. Default false.
   */
  deferTools?: DeferTools | undefined;
};

/** MCP servers started from a config, and their tools. Close it when done: stdio servers are child processes. */
export type McpServers = {
  /** Every server's state, tools and problems. */
  status(): McpServerStatus[];
  /** The tools of every server that can be called now (ready, or stopped and to be restarted by the next call). */
  tools(): McpTool[];
  /**
   * A `prepareTurn` seam that keeps `registry` up to date before every model call: tools of a server that has
   * become ready are added, tools a server no longer lists are removed, changed ones replaced. Pass it as the
   * agent's `prepareTurn` (compose it with others through `chainPrepareTurns` from `minagent/code`).
   */
  prepareTurn(registry: ToolRegistry, options?: McpTurnOptions): PrepareTurn;
  /** Brings `registry` up to date now (what {@link prepareTurn} does before each turn). */
  syncTools(registry: ToolRegistry, wrap?: (tool: Tool) => Tool): void;
  /**
   * Calls a server's tool directly, with no registry and no permission check, and returns the whole MCP result,
   * structured content included (the model reads the text of it; a program may want the rest). Rejects with a
   * ToolError when the server is unknown, unavailable or stops during the call.
   */
  callTool(
    server: string,
    tool: string,
    args?: Record<string, unknown>,
    options?: { signal?: AbortSignal | undefined; onProgress?: ((progress: McpProgress) => void) | undefined },
  ): Promise<McpToolResult>;
  /**
   * The resources of one server, or of every ready server that offers resources (all pages). Rejects with a
   * ToolError for an unknown server, one that declares no resources, or one that answers with an error.
   */
  listResources(server?: string): Promise<McpResource[]>;
  /** The URI templates of one server, or of every ready server that offers resources; rejects as {@link listResources}. */
  listResourceTemplates(server?: string): Promise<McpResourceTemplate[]>;
  /** Reads a resource (text, or base64 `blob`); rejects as {@link listResources}. The contents are the server's, not redacted. */
  readResource(server: string, uri: string, options?: { signal?: AbortSignal | undefined }): Promise<McpResourceContents[]>;
  /**
   * A resource as the model reads it (ReadMcpResourceTool's result, an `@server:uri` mention's attachment): text as it
   * is, binary contents described by type and size, the config's secrets redacted. Rejects as {@link readResource}.
   */
  readResourceText(server: string, uri: string, options?: { signal?: AbortSignal | undefined }): Promise<string>;
  /**
   * Asks the server to tell of changes to a resource (`resources/subscribe`); `onUpdated` is called with its uri at
   * each `notifications/resources/updated`, and a restarted server is subscribed again. Resolves to the function that
   * unsubscribes. Rejects with a ToolError when the server does not declare subscriptions.
   */
  subscribeResource(server: string, uri: string, onUpdated: (uri: string) => void): Promise<() => Promise<void>>;
  /** The prompts of one server, or of every ready server that offers prompts; rejects as {@link listResources}. */
  listPrompts(server?: string): Promise<McpPrompt[]>;
  /** The messages a server makes of one of its prompts with these arguments (strings, by name). */
  getPrompt(
    server: string,
    prompt: string,
    args?: Record<string, string>,
    options?: { signal?: AbortSignal | undefined },
  ): Promise<McpPromptMessage[]>;
  /**
   * A prompt's messages as the text of one user turn (`describePromptMessages`), the config's secrets
   * redacted: what `/mcp__<server>__<prompt>` sends. Rejects as {@link getPrompt}.
   */
  getPromptText(
    server: string,
    prompt: string,
    args?: Record<string, string>,
    options?: { signal?: AbortSignal | undefined },
  ): Promise<string>;
  /** Hears the progress servers report on the model's tool calls while they run; returns what stops it. */
  onProgress(listener: (progress: McpToolProgress) => void): () => void;
  /** Hears servers' log messages (at {@link ConnectMcpServersOptions.logLevel} and above), redacted; returns what stops it. */
  onLog(listener: (message: McpLogMessage) => void): () => void;
  /**
   * Starts more servers (a project's, once a person approved them); their tools join at the next turn. Resolves when
   * they are ready or have failed. Throws a UsageError for a name already taken, or after {@link close}.
   */
  add(servers: readonly ResolvedMcpServer[]): Promise<void>;
  /**
   * Logs in to an HTTP server that asks for OAuth (its stored login dropped first), showing the URL through
   * `onAuthorizationUrl` (this call's, else the options'), then connects to it again. Resolves once it is ready or has
   * failed; its state and problem say which (`signal` gives the login up). Rejects with a UsageError for an unknown
   * server or without a way to show the URL.
   */
  login(
    server: string,
    onAuthorizationUrl?: (request: McpAuthorizationRequest) => void | Promise<void>,
    options?: { signal?: AbortSignal | undefined },
  ): Promise<McpServerStatus>;
  /** Forgets a server's stored OAuth login; its next request that needs one asks again. */
  logout(server: string): Promise<void>;
  /**
   * Restarts one server whatever its state (ready, crashed, unavailable, failed), with its restart count back to 0:
   * what `/mcp restart <server>` does once a person has fixed what stopped it, without a new session. Its process
   * is stopped (a call under way is answered that the server stopped) and started again; a start under way is
   * waited for first. Resolves when it is ready or has failed (`status()` says which, and why); its tools are
   * brought up to date at the next turn. A server whose entry cannot start (a problem in its config) stays failed.
   * Rejects with a UsageError for a name no server has, or after {@link close}.
   */
  restart(server: string): Promise<void>;
  /**
   * Replaces what answers servers' elicitation requests (`undefined`: they are declined). A server that connected
   * while there was none was not told this client can elicit: it learns it when it reconnects (a restart).
   */
  setElicitationHandler(handler: McpElicitationHandler | undefined): void;
  /** Replaces what runs servers' sampling requests (`undefined`: they are refused); declared as elicitation is. */
  setSamplingHandler(handler: McpSamplingHandler | undefined): void;
  /**
   * The folders servers may work in (the workspace, added directories), as MCP roots. When they differ from the last
   * ones, connected servers are sent `notifications/roots/list_changed` and ask for them again. Without the `roots`
   * option at connection, roots are not offered and this does nothing.
   */
  setRoots(paths: readonly string[]): Promise<void>;
  /** Resolves when every server is ready or has failed. */
  ready(): Promise<void>;
  /** Stops every server; their tools answer that they were closed. */
  close(): Promise<void>;
};
