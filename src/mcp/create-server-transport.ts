import { resolve } from "node:path";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { McpOAuthProvider } from "./auth/mcp-oauth-provider.js";
import { isRemoteServer, type McpRemoteServerConfig, type McpServerConfig } from "./config.js";
import type { McpSdk } from "./load-mcp-sdk.js";
import type { McpSandbox } from "./mcp-sandbox.js";
import { serverEnvironment } from "./server-environment.js";

/** What {@link createServerTransport} needs of the server's connection. */
export type ServerTransportOptions = {
  /** The folder a stdio server runs in when its config names none. */
  cwd: string | undefined;
  /** The OS sandbox a stdio server is confined in; undefined: it runs unconfined. */
  sandbox: McpSandbox | undefined;
  /** The OAuth client of an HTTP server (made at its first connection and kept across restarts). */
  oauthProvider: (config: McpRemoteServerConfig) => Promise<McpOAuthProvider>;
  /** The undoing of the last confinement, if one is under way: a new confinement waits for it. */
  releasing: () => Promise<void> | undefined;
  /** Told of a confinement's undoing when it begins. */
  onReleasing: (released: Promise<void>) => void;
  /** Aborted when the connection is closed. */
  closing: AbortSignal;
  /** Told of what a stdio server writes to stderr, chunk by chunk. */
  onStderr: (text: string) => void;
};

/** The transport to the server; for a confined one, also what undoes the confinement once its process has ended. */
export async function createServerTransport(
  sdk: McpSdk,
  config: McpServerConfig,
  options: ServerTransportOptions,
): Promise<{ transport: Transport; release?: () => Promise<void> }> {
  if (isRemoteServer(config)) {
    const headers = { ...config.headers };
    // A server given an Authorization header is the person's choice of credential: OAuth would only fight it.
    const staticCredential = Object.keys(headers).some((name) => name.toLowerCase() === "authorization");
    const authProvider = staticCredential ? undefined : await options.oauthProvider(config);
    // The provider's fetch makes requests that meet an expired token at once refresh it once (see createOAuthFetch).
    const auth = authProvider && { authProvider, fetch: authProvider.fetch };
    if (config.type === "http")
      return { transport: new sdk.StreamableHTTPClientTransport(new URL(config.url), { requestInit: { headers }, ...auth }) };
    // The SDK sends requestInit's headers on the SSE stream too (with the bearer token), as on its POSTs.
    return { transport: new sdk.SSEClientTransport(new URL(config.url), { requestInit: { headers }, ...auth }) };
  }
  const cwd = config.cwd ?? options.cwd;
  let program = {
    command: config.command,
    args: [...(config.args ?? [])],
    // Proxy, CA and npm variables from this environment too (the SDK passes only HOME, PATH and a few others).
    env: serverEnvironment(config.env) as Record<string, string | undefined>,
    cwd,
  };
  let release: (() => Promise<void>) | undefined;
  if (options.sandbox) {
    // bubblewrap changes into the folder itself: a relative one means what it would to spawn, this process's folder.
    const absolute = resolve(cwd ?? ".");
    // A restart confines the server again while the stopped process's placeholders may still be going: the new
    // confinement waits, or the old release removes a placeholder it reuses (bwrap: "Can't find source path").
    await options.releasing();
    const confined = await options.sandbox.confineProgram({ ...program, cwd: absolute });
    let released: Promise<void> | undefined;
    release = () => {
      released ??= confined.release().catch(() => undefined);
      options.onReleasing(released);
      return released;
    };
    if (options.closing.aborted) {
      await release();
      throw new Error("closed while starting");
    }
    program = { command: confined.command, args: confined.args, env: confined.env, cwd: absolute };
  }
  const transport = new sdk.StdioClientTransport({
    command: program.command,
    args: program.args,
    env: definedValues(program.env),
    ...(program.cwd !== undefined && { cwd: program.cwd }),
    // Piped, not inherited: a server's log lines must not scribble over the terminal; the last of them explain a crash.
    stderr: "pipe",
  });
  transport.stderr?.on("data", (chunk: Buffer) => {
    options.onStderr(chunk.toString("utf8"));
  });
  if (!release) return { transport };
  const releaseConfinement = release;
  // The client keeps a transport's own onclose and calls it first: the process has ended when it runs.
  transport.onclose = () => void releaseConfinement();
  return { transport, release };
}

function definedValues(record: Record<string, string | undefined>): Record<string, string> {
  return Object.fromEntries(Object.entries(record).filter((entry): entry is [string, string] => entry[1] !== undefined));
}
