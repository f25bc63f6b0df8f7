import { resolve } from "node:path";
import { defaultDataDirectory } from "../../code/sessions/json-lines-session-store.js";
import { UsageError } from "../../errors.js";
import { McpCredentialStore } from "../../mcp/auth/credential-store.js";
import { isRemoteServer, type ResolvedMcpServer } from "../../mcp/config.js";
import { mcpAuthDirectory, mcpConfigFileList, mcpLoginHint } from "../code/start-mcp-servers.js";
import type { CliIo } from "../io.js";
import { canOpenBrowser, openInBrowser } from "../open-in-browser.js";

const mcpHelp = `Usage: minagent mcp list
       minagent mcp login <server> [--no-open]
       minagent mcp logout <server>

The MCP servers "minagent code" starts in this folder: from ~/.minagent/mcp.json, the project's .mcp.json
and --mcp-config files.

  list      each server, where it is configured, and (for a server reached over HTTP) whether a login is stored
  login     log in to a server that asks for OAuth: the authorization URL is printed (and opened in the
            browser, $BROWSER or the desktop's, unless --no-open), the browser comes back to a listener on
            127.0.0.1, and the tokens are kept in ~/.minagent/mcp-auth/, readable by you only. Sessions,
            "minagent code -p" included, use them (refreshed when they expire) until you log out.
  logout    forget a server's stored login

Options:
  --mcp-config <file>     read this .mcp.json file too (repeat for more)
  --strict-mcp-config     read only the --mcp-config files
  --no-open               print the login's URL without opening a browser

Exit codes: 0 done; 1 the login failed (the reason is printed); 2 a usage error (an unknown server, a bad flag).
`;

type McpCommandOptions = {
  action: "list" | "login" | "logout";
  server: string | undefined;
  configFiles: string[];
  strict: boolean;
  open: boolean;
};

/** `minagent mcp list|login|logout`: the person's side of MCP servers' OAuth logins. */
export async function mcpCommand(args: readonly string[], io: CliIo): Promise<number> {
  if (args.length === 0 || args.includes("--help") || args.includes("-h")) {
    io.stdout(mcpHelp);
    return args.length === 0 ? 2 : 0;
  }
  try {
    const options = parseMcpArgs(args);
    const home = defaultDataDirectory(io.env);
    const { readMcpConfigFiles } = await import("../../mcp/read-mcp-config-files.js");
    const servers = await readMcpConfigFiles(
      mcpConfigFileList({ cwd: process.cwd(), home, configFiles: options.configFiles, strict: options.strict }),
      io.env,
    );
    const store = new McpCredentialStore(mcpAuthDirectory(home));
    if (options.action === "list") return await listServers(servers, store, io);
    const server = findRemoteServer(servers, options.server);
    if (options.action === "logout") {
      await store.remove(server.name, server.url);
      io.stdout(`Logged out of ${server.name}: its stored login is gone.\n`);
      return 0;
    }
    return await logIn(server.resolved, home, options.open && canOpenBrowser(io.env), io);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.stderr(`minagent mcp: ${error.message}\n`);
    return 2;
  }
}

function parseMcpArgs(args: readonly string[]): McpCommandOptions {
  const [action, ...rest] = args;
  if (action !== "list" && action !== "login" && action !== "logout")
    throw new UsageError(`unknown action "${action}": use list, login <server> or logout <server> (minagent mcp --help)`);
  const options: McpCommandOptions = { action, server: undefined, configFiles: [], strict: false, open: true };
  for (let index = 0; index < rest.length; index += 1) {
    const arg = rest[index] as string;
    if (arg === "--mcp-config") {
      const file = rest[++index];
      if (!file) throw new UsageError("--mcp-config needs a file");
      options.configFiles.push(resolve(file));
    } else if (arg === "--strict-mcp-config") options.strict = true;
    else if (arg === "--no-open") options.open = false;
    else if (arg.startsWith("-")) throw new UsageError(`unknown option ${arg} (minagent mcp --help)`);
    else if (options.server === undefined && action !== "list") options.server = arg;
    else throw new UsageError(`unexpected argument "${arg}"`);
  }
  if (action !== "list" && options.server === undefined)
    throw new UsageError(`${action} needs the server's name: minagent mcp ${action} <server>`);
  return options;
}

function findRemoteServer(
  servers: readonly ResolvedMcpServer[],
  name: string | undefined,
): { name: string; url: string; resolved: ResolvedMcpServer } {
  const server = servers.find((candidate) => candidate.name === name);
  if (!server)
    throw new UsageError(
      `there is no MCP server named "${name}" here (configured: ${servers.map((candidate) => candidate.name).join(", ") || "none"})`,
    );
  if (!server.config) throw new UsageError(`${server.name} cannot be used: ${server.problem}`);
  if (!isRemoteServer(server.config))
    throw new UsageError(
      `${server.name} is started as a program (stdio): it has no login; the credentials it needs go in its "env" (${server.source})`,
    );
  return { name: server.name, url: server.config.url, resolved: server };
}

async function listServers(servers: readonly ResolvedMcpServer[], store: McpCredentialStore, io: CliIo): Promise<number> {
  if (servers.length === 0) {
    io.stdout("No MCP servers. Configure them in .mcp.json, ~/.minagent/mcp.json or with --mcp-config <file> (docs/mcp.md).\n");
    return 0;
  }
  for (const { name, config, problem, source } of servers) {
    if (!config) {
      io.stdout(`${name}  cannot start: ${problem}  (${source})\n`);
      continue;
    }
    if (!isRemoteServer(config)) {
      io.stdout(`${name}  stdio  ${config.command}  (${source})\n`);
      continue;
    }
    const stored = await store.load(name, config.url);
    io.stdout(`${name}  ${config.type}  ${config.url}  ${stored.tokens ? "logged in" : "no stored login"}  (${source})\n`);
  }
  return 0;
}

async function logIn(server: ResolvedMcpServer, home: string, open: boolean, io: CliIo): Promise<number> {
  const { connectMcpServers } = await import("../../mcp/connect-mcp-servers.js");
  const mcp = await connectMcpServers([server], {
    wait: false,
    variables: io.env,
    auth: { directory: mcpAuthDirectory(home), loginHint: mcpLoginHint },
  });
  // Ctrl-C gives the login up: closing the server ends the wait for the browser.
  const stop = () => void mcp.close();
  process.once("SIGINT", stop);
  try {
    const status = await mcp.login(server.name, ({ url }) => {
      io.stderr(
        `Log in to ${server.name} in your browser${open ? " (opening it)" : ""}:\n\n  ${url}\n\nWaiting for the browser to come back (Ctrl-C gives up)…\n`,
      );
      if (open) openInBrowser(url, { env: io.env, onFailure: (message) => io.stderr(`${message}\n`) });
    });
    if (status.state !== "ready") {
      io.stderr(`Could not log in to ${server.name}: ${status.problem ?? status.state}\n`);
      return 1;
    }
    io.stdout(
      status.loggedIn
        ? `Logged in to ${server.name} (${status.tools.length} tools). The login is kept in ${mcpAuthDirectory(home)}, readable by you only.\n`
        : `${server.name} did not ask for a login: it is ready (${status.tools.length} tools).\n`,
    );
    return 0;
  } finally {
    process.off("SIGINT", stop);
    await mcp.close();
  }
}
