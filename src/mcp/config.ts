import { UsageError } from "../errors.js";

/** A server started as a child process that speaks MCP over its stdin and stdout. */
export type McpStdioServerConfig = {
  type?: "stdio" | undefined;
  /** The program to run (`npx`, `node`, `/usr/local/bin/github-mcp`). */
  command: string;
  args?: readonly string[] | undefined;
  /**
   * Variables for the child, on top of a safe few inherited from this process (HOME, PATH, USER, SHELL, TERM and
   * the like, as the MCP SDK chooses): a token the server needs must be listed here, e.g. `"${GITHUB_TOKEN}"`.
   */
  env?: Readonly<Record<string, string>> | undefined;
  /** The folder the server runs in. Default: the project root (or this process's folder). */
  cwd?: string | undefined;
  /**
   * minagent's own field (Claude Code ignores it): run the server inside the OS sandbox that confines Bash commands
   * (docs/mcp.md, "Sandboxed servers"). Without a sandbox enabled the server is not started, never started unconfined.
   */
  sandbox?: boolean | undefined;
};

/**
 * How minagent logs in to a server that answers 401 (OAuth 2.1, docs/mcp.md "Logging in"). Every field may be left
 * out: by default the client registers itself with the authorization server (dynamic client registration) and the
 * person logs in in a browser. Secrets (`clientSecret`, `privateKey`, `identityProvider.idToken`) belong in
 * `${VAR}`s, never in a file a repository carries; their values never reach logs, errors or traces.
 */
export type McpOAuthConfig = {
  /** A client registered beforehand with the authorization server (no dynamic registration). */
  clientId?: string | undefined;
  /** That client's secret, for a confidential client (sent as the authorization server prefers: basic or post). */
  clientSecret?: string | undefined;
  /** The issuer the pre-registered client belongs to: its credentials are never sent to another authorization server. */
  issuer?: string | undefined;
  /**
   * The port of the login redirect (a pre-registered client's redirect URI, `http://localhost:<port>/callback` as
   * Claude Code registers it; the listener is on 127.0.0.1). Default: a free one (`http://127.0.0.1:<port>/callback`).
   */
  callbackPort?: number | undefined;
  /** The scope to ask for when the server does not say (its 401 and its metadata come first). */
  scope?: string | undefined;
  /** Claude Code's key: the scope to ask for whatever the server says (space-separated; it wins over the metadata). */
  scopes?: string | undefined;
  /** Claude Code's key: the authorization server's metadata document (https), read instead of discovering it. */
  authServerMetadataUrl?: string | undefined;
  /** An https URL of this client's metadata document, used as its client id where the server supports that (SEP-991). */
  clientMetadataUrl?: string | undefined;
  /**
   * `"authorization_code"` (default: the person logs in in a browser); `"client_credentials"` for unattended use
   * (with `clientId` and `clientSecret`, or `privateKey` for private_key_jwt); `"jwt-bearer"` for enterprise-managed
   * access (SEP-990: an ID token from `identityProvider` is exchanged for a grant the authorization server takes).
   */
  grant?: "authorization_code" | "client_credentials" | "jwt-bearer" | undefined;
  /** A PEM PKCS#8 private key: the client authenticates with a signed JWT (private_key_jwt) instead of a secret. */
  privateKey?: string | undefined;
  /** The private key's algorithm. Default ES256. */
  signingAlgorithm?: string | undefined;
  /** For `"jwt-bearer"`: the identity provider's token endpoint, the client id there, and the person's ID token. */
  identityProvider?: { tokenEndpoint: string; clientId: string; idToken: string } | undefined;
};

/** A server reached over HTTP: Streamable HTTP (`"http"`), or the older HTTP+SSE transport (`"sse"`). */
export type McpRemoteServerConfig = {
  type: "http" | "sse";
  url: string;
  /** Sent with every request: `Authorization` and the like. Their values never reach logs, errors or traces. */
  headers?: Readonly<Record<string, string>> | undefined;
  /** How to log in when the server asks for OAuth (it answers 401). */
  oauth?: McpOAuthConfig | undefined;
};

/** One server of a `.mcp.json` file. */
export type McpServerConfig = McpStdioServerConfig | McpRemoteServerConfig;

/** Claude Code's `.mcp.json` shape: servers by name. */
export type McpConfig = { mcpServers: Readonly<Record<string, McpServerConfig>> };

/** A server as read from a file: its settings with every `${VAR}` expanded, or why it cannot be started. */
export type ResolvedMcpServer = {
  name: string;
  /** The file (or "code") the server came from, for messages. */
  source: string;
} & ({ config: McpServerConfig; problem?: undefined } | { config?: undefined; problem: string });

/** Where `${VAR}` and `${VAR:-default}` take their values. */
export type VariableSource = Readonly<Record<string, string | undefined>>;

const serverNamePattern = /^[A-Za-z0-9_-]{1,64}$/;
// `${NAME}` or `${NAME:-default}`; the default may be empty and may not contain `}`.
const variablePattern = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/**
 * Reads a `.mcp.json` document (already parsed from JSON) into servers ready to start. A malformed document is a
 * UsageError naming the file and the field; a server whose `${VAR}` is unset, or whose own settings are wrong, is
 * returned with a `problem` instead, so that one bad entry does not stop the others.
 * @param source the file's path (or "code"), quoted in every message.
 * @param variables the environment `${VAR}` reads from.
 */
export function resolveMcpConfig(document: unknown, source: string, variables: VariableSource): ResolvedMcpServer[] {
  if (!isRecord(document) || !isRecord(document.mcpServers))
    throw new UsageError(`${source}: expected an object with "mcpServers": { "<name>": { "command": … } | { "type": "http", "url": … } }.`);
  return Object.entries(document.mcpServers).map(([name, entry]) => {
    if (!serverNamePattern.test(name))
      return { name, source, problem: `the server name ${JSON.stringify(name)} must be 1–64 letters, digits, "_" or "-"` };
    try {
      return { name, source, config: expandVariables(readServerConfig(entry), variables) };
    } catch (error) {
      if (error instanceof UsageError) return { name, source, problem: error.message };
      throw error;
    }
  });
}

function readServerConfig(entry: unknown): McpServerConfig {
  if (!isRecord(entry)) throw new UsageError("expected an object with a command, or a type and a url");
  const type = entry.type ?? (typeof entry.command === "string" ? "stdio" : undefined);
  if (type === "stdio") {
    if (typeof entry.command !== "string" || entry.command === "") throw new UsageError('a stdio server needs a "command" string');
    return {
      type: "stdio",
      command: entry.command,
      ...(entry.args !== undefined && { args: stringList(entry.args, "args") }),
      ...(entry.env !== undefined && { env: stringRecord(entry.env, "env") }),
      ...(entry.cwd !== undefined && { cwd: nonEmptyString(entry.cwd, "cwd") }),
      ...(entry.sandbox !== undefined && { sandbox: boolean(entry.sandbox, "sandbox") }),
    };
  }
  if (type === "http" || type === "sse") {
    // Only a process minagent starts can be confined: a remote server quietly left out of the sandbox would mislead.
    if (entry.sandbox !== undefined && entry.sandbox !== false)
      throw new UsageError(`"sandbox" applies to stdio servers (a command minagent starts), not to a server reached at a url (${type})`);
    const url = nonEmptyString(entry.url, "url");
    return {
      type,
      url,
      ...(entry.headers !== undefined && { headers: stringRecord(entry.headers, "headers") }),
      ...(entry.oauth !== undefined && { oauth: readOAuthConfig(entry.oauth) }),
    };
  }
  throw new UsageError(`unknown type ${JSON.stringify(type)}: use "stdio" (with a command), "http" or "sse" (with a url)`);
}

const oauthStrings = [
  "clientId",
  "clientSecret",
  "issuer",
  "scope",
  "scopes",
  "authServerMetadataUrl",
  "clientMetadataUrl",
  "privateKey",
  "signingAlgorithm",
] as const;
const grants = ["authorization_code", "client_credentials", "jwt-bearer"];

function readOAuthConfig(value: unknown): McpOAuthConfig {
  if (!isRecord(value)) throw new UsageError('"oauth" must be an object such as { "clientId": "…", "callbackPort": 8080 }');
  const known = new Set<string>([...oauthStrings, "callbackPort", "grant", "identityProvider"]);
  const unknown = Object.keys(value).filter((key) => !known.has(key));
  if (unknown.length > 0)
    throw new UsageError(`"oauth" has keys minagent does not know: ${unknown.join(", ")} (known: ${[...known].join(", ")})`);
  const config: Record<string, unknown> = {};
  for (const key of oauthStrings) if (value[key] !== undefined) config[key] = nonEmptyString(value[key], `oauth.${key}`);
  const port = value.callbackPort;
  if (port !== undefined) {
    if (typeof port !== "number" || !Number.isInteger(port) || port < 1 || port > 65_535)
      throw new UsageError(`"oauth.callbackPort" must be a port number (1–65535), got ${JSON.stringify(port)}`);
    config.callbackPort = port;
  }
  if (value.grant !== undefined) {
    if (typeof value.grant !== "string" || !grants.includes(value.grant))
      throw new UsageError(`"oauth.grant" must be one of ${grants.join(", ")}, got ${JSON.stringify(value.grant)}`);
    config.grant = value.grant;
  }
  if (value.identityProvider !== undefined) {
    const provider = value.identityProvider;
    if (!isRecord(provider)) throw new UsageError('"oauth.identityProvider" must be an object with tokenEndpoint, clientId and idToken');
    config.identityProvider = {
      tokenEndpoint: nonEmptyString(provider.tokenEndpoint, "oauth.identityProvider.tokenEndpoint"),
      clientId: nonEmptyString(provider.clientId, "oauth.identityProvider.clientId"),
      idToken: nonEmptyString(provider.idToken, "oauth.identityProvider.idToken"),
    };
  }
  const oauth = config as McpOAuthConfig;
  if (oauth.authServerMetadataUrl !== undefined && !oauth.authServerMetadataUrl.startsWith("https://"))
    throw new UsageError(`"oauth.authServerMetadataUrl" must be an https:// URL, got ${JSON.stringify(oauth.authServerMetadataUrl)}`);
  if (oauth.grant === "client_credentials" && (!oauth.clientId || !(oauth.clientSecret || oauth.privateKey)))
    throw new UsageError('"oauth.grant": "client_credentials" needs "clientId" and "clientSecret" (or "privateKey")');
  if (oauth.grant === "jwt-bearer" && (!oauth.clientId || !oauth.identityProvider))
    throw new UsageError('"oauth.grant": "jwt-bearer" needs "clientId" and "identityProvider"');
  return oauth;
}

/** Expands `${VAR}` and `${VAR:-default}` in every string of a server's settings. */
function expandVariables(config: McpServerConfig, variables: VariableSource): McpServerConfig {
  const expand = (text: string, field: string): string =>
    text.replace(variablePattern, (_match, name: string, fallback: string | undefined) => {
      const value = variables[name];
      if (value !== undefined && value !== "") return value;
      if (fallback !== undefined) return fallback;
      throw new UsageError(`\${${name}} in ${field} is not set: set ${name} in the environment, or write \${${name}:-<default>}`);
    });
  const expandRecord = (record: Readonly<Record<string, string>>, field: string) =>
    Object.fromEntries(Object.entries(record).map(([key, value]) => [key, expand(value, `${field}.${key}`)]));
  if (isRemoteServer(config))
    return {
      ...config,
      url: expand(config.url, "url"),
      ...(config.headers && { headers: expandRecord(config.headers, "headers") }),
      ...(config.oauth && { oauth: expandOAuth(config.oauth, expand) }),
    };
  return {
    ...config,
    command: expand(config.command, "command"),
    ...(config.args && { args: config.args.map((arg, index) => expand(arg, `args[${index}]`)) }),
    ...(config.env && { env: expandRecord(config.env, "env") }),
    ...(config.cwd !== undefined && { cwd: expand(config.cwd, "cwd") }),
  };
}

function expandOAuth(oauth: McpOAuthConfig, expand: (text: string, field: string) => string): McpOAuthConfig {
  const expanded: Record<string, unknown> = { ...oauth };
  for (const key of oauthStrings) {
    const value = oauth[key];
    if (value !== undefined) expanded[key] = expand(value, `oauth.${key}`);
  }
  const provider = oauth.identityProvider;
  if (provider)
    expanded.identityProvider = {
      tokenEndpoint: expand(provider.tokenEndpoint, "oauth.identityProvider.tokenEndpoint"),
      clientId: expand(provider.clientId, "oauth.identityProvider.clientId"),
      idToken: expand(provider.idToken, "oauth.identityProvider.idToken"),
    };
  return expanded as McpOAuthConfig;
}

/** True for a server reached over HTTP, false for one started as a child process. */
export function isRemoteServer(config: McpServerConfig): config is McpRemoteServerConfig {
  return config.type === "http" || config.type === "sse";
}

/**
 * The values of a server's settings that may be secrets (its headers and environment values): they are cut out
 * of every message that could reach the model, the terminal or a trace (the secret scrubber ignores values too
 * short to hide).
 */
export function secretValuesOf(config: McpServerConfig): string[] {
  if (!isRemoteServer(config)) return Object.values(config.env ?? {});
  const { oauth } = config;
  const oauthSecrets = [oauth?.clientSecret, oauth?.privateKey, oauth?.identityProvider?.idToken].filter(
    (value): value is string => value !== undefined,
  );
  return [...Object.values(config.headers ?? {}), ...oauthSecrets];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function nonEmptyString(value: unknown, field: string): string {
  if (typeof value !== "string" || value === "") throw new UsageError(`"${field}" must be a non-empty string`);
  return value;
}

function boolean(value: unknown, field: string): boolean {
  if (typeof value !== "boolean") throw new UsageError(`"${field}" must be true or false, got ${JSON.stringify(value) ?? typeof value}`);
  return value;
}

function stringList(value: unknown, field: string): string[] {
  if (!Array.isArray(value) || !value.every((item) => typeof item === "string"))
    throw new UsageError(`"${field}" must be a list of strings`);
  return value;
}

function stringRecord(value: unknown, field: string): Record<string, string> {
  if (!isRecord(value) || !Object.values(value).every((item) => typeof item === "string"))
    throw new UsageError(`"${field}" must be an object of strings`);
  return value as Record<string, string>;
}
