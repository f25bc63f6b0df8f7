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

/** A server reached over HTTP: Streamable HTTP (`"http"`), or the older HTTP+SSE transport (`"sse"`). */
export type McpRemoteServerConfig = {
  type: "http" | "sse";
  url: string;
  /** Sent with every request: `Authorization` and the like. Their values never reach logs, errors or traces. */
  headers?: Readonly<Record<string, string>> | undefined;
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
    return { type, url, ...(entry.headers !== undefined && { headers: stringRecord(entry.headers, "headers") }) };
  }
  throw new UsageError(`unknown type ${JSON.stringify(type)}: use "stdio" (with a command), "http" or "sse" (with a url)`);
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
    return { ...config, url: expand(config.url, "url"), ...(config.headers && { headers: expandRecord(config.headers, "headers") }) };
  return {
    ...config,
    command: expand(config.command, "command"),
    ...(config.args && { args: config.args.map((arg, index) => expand(arg, `args[${index}]`)) }),
    ...(config.env && { env: expandRecord(config.env, "env") }),
    ...(config.cwd !== undefined && { cwd: expand(config.cwd, "cwd") }),
  };
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
  const record = isRemoteServer(config) ? config.headers : config.env;
  return Object.values(record ?? {});
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
