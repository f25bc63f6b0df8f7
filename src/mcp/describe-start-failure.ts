import type { McpLoginRequiredError, McpOAuthProvider } from "./auth/mcp-oauth-provider.js";
import { isRemoteServer, type McpServerConfig } from "./config.js";

/** What {@link describeStartFailure} says of the server. */
export type StartFailureContext = {
  config: McpServerConfig | undefined;
  /** The file the server was configured in, or "code". */
  source: string;
  startupTimeoutMs: number;
  /** The last lines the server wrote to stderr, redacted ("" when none). */
  lastOutput: string;
  /** The OAuth client of an HTTP server, which can tell what went wrong with a login. */
  oauth: McpOAuthProvider | undefined;
  /** How to log in to the server (asked only when a login failed). */
  loginHint: () => string;
};

/** Why a server did not start, in the words its problem shows (a missing command, a timeout, an unreachable url, a login). */
export function describeStartFailure(error: unknown, server: StartFailureContext): string {
  const code = (error as { code?: unknown }).code;
  const config = server.config;
  if (code === "ENOENT" && config && !isRemoteServer(config))
    return `its command "${config.command}" was not found: install it, or fix "command" in ${server.source}`;
  if (code === -32001)
    return `it did not answer within ${server.startupTimeoutMs} ms of starting${tailSuffix(server.lastOutput)}. ${slowStartAdvice(server)}`;
  // fetch says only "fetch failed"; why is in its cause (a refused connection, a name that does not resolve).
  const cause = (error as { cause?: { code?: unknown; message?: unknown } }).cause;
  if (config && isRemoteServer(config) && messageOf(error) === "fetch failed" && cause)
    return `it could not be reached at ${config.url} (${String(cause.code ?? cause.message)}): check the url in ${server.source} and that the server is up`;
  // The SDK's own words for a failed login may be a schema's raw issues: the provider says what went wrong.
  const login = server.oauth?.describeFailure(error);
  if (login)
    return `its OAuth login failed: ${login.what}. ${login.serversFault ? "Its operator must fix that; until then minagent cannot log in to it" : `To try again: ${server.loginHint()}`}`;
  return `${messageOf(error)}${tailSuffix(server.lastOutput)}`;
}

/** What to check when a server does not answer in time: mostly one that is slow, or one that cannot reach the network. */
function slowStartAdvice(server: StartFailureContext): string {
  const slow =
    "If it is only slow to start (npx fetching its package, say), allow it more: MCP_TIMEOUT=<ms> for minagent code, startupTimeoutMs in code";
  if (!server.config || isRemoteServer(server.config)) return slow;
  return `${slow}. If it needs the network: it gets the proxy and CA variables (HTTPS_PROXY, NO_PROXY, NODE_EXTRA_CA_CERTS, npm_config_*…) from this environment; set any other variable it needs in its "env" in ${server.source}`;
}

function tailSuffix(tail: string): string {
  return tail ? `; its last output: ${tail}` : "";
}

/** The problem of a server that needs an OAuth login nobody could do; `hint` says how to log in. */
export function describeLoginNeeded(error: McpLoginRequiredError, hint: string): string {
  return error.reason ? `it needs a new OAuth login (${error.reason}): ${hint}` : `it needs an OAuth login: ${hint}`;
}

export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
