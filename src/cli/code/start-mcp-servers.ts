import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { UsageError } from "../../errors.js";
import { isRemoteServer, type ResolvedMcpServer } from "../../mcp/config.js";
import type { McpServerStatus, McpServers } from "../../mcp/connect-mcp-servers.js";
import type { McpToolAnnotations } from "../../mcp/mcp-server-connection.js";
import type { CliIo } from "../io.js";
import { editSettingsFile } from "./edit-settings-file.js";

/** What `minagent code` needs to start its MCP servers. */
export type CodeMcpOptions = {
  /** The project root: its `.mcp.json` is read, and stdio servers run there. */
  cwd: string;
  /** minagent's folder in the user's home (`~/.minagent`): `mcp.json` and `settings.json` are read from it. */
  home: string;
  env: CliIo["env"];
  /** `--mcp-config` files (required to exist). */
  configFiles: readonly string[];
  /** `--strict-mcp-config`: only the `--mcp-config` files. */
  strict: boolean;
  /** Whether the person trusts the folder's own settings (see project-trust.ts): else its settings.local.json approves nothing. Default true. */
  projectTrusted?: boolean | undefined;
};

/** The servers started (none when no config names any), the project's servers waiting for approval, and lines to tell the person. */
export type CodeMcpSetup = {
  mcp: McpServers | undefined;
  /** Servers of the project's `.mcp.json` not approved yet: not started. Ask (interactive) or tell ({@link describeUnapproved}). */
  unapproved: readonly ResolvedMcpServer[];
  notes: string[];
};

/**
 * Starts the MCP servers `minagent code` is configured with: the user's `~/.minagent/mcp.json`, the project's
 * `.mcp.json`, then each `--mcp-config` file (a server named again replaces the earlier one). They start in the
 * background; their tools join the session as each becomes ready.
 *
 * A project's `.mcp.json` comes with the code, so its servers (programs it would run) start only once the person has
 * approved them, in settings the repository does not carry: `enabledMcpjsonServers` (names) or
 * `enableAllProjectMcpServers` in `~/.minagent/settings.json` or `.minagent/settings.local.json`. Naming the file
 * with `--mcp-config` approves it too. The others are returned as `unapproved`, for the caller to ask about or to
 * tell of.
 */
export async function startCodeMcpServers(options: CodeMcpOptions): Promise<CodeMcpSetup> {
  const project = join(options.cwd, ".mcp.json");
  const files = [
    ...(options.strict ? [] : [{ path: join(options.home, "mcp.json") }, { path: project }]),
    ...options.configFiles.map((path) => ({ path, required: true })),
  ];
  const { readMcpConfigFiles } = await import("../../mcp/read-mcp-config-files.js");
  const servers = await readMcpConfigFiles(files, options.env);
  const approval = await readProjectApproval([
    join(options.home, "settings.json"),
    ...(options.projectTrusted === false ? [] : [join(options.cwd, ".minagent", "settings.local.json")]),
  ]);
  const named = new Set(options.configFiles);
  const unapproved = servers.filter((server) => server.source === project && !named.has(project) && !approval(server.name));
  const starting = servers.filter((server) => !unapproved.includes(server));
  if (servers.length === 0) return { mcp: undefined, unapproved, notes: [] };
  const { connectMcpServers } = await import("../../mcp/connect-mcp-servers.js");
  try {
    const mcp = await connectMcpServers(starting, {
      wait: false,
      cwd: options.cwd,
      variables: options.env,
      ...(options.env.MCP_TIMEOUT && { startupTimeoutMs: Number(options.env.MCP_TIMEOUT) }),
    });
    return { mcp, unapproved, notes: [] };
  } catch (error) {
    if (!(error instanceof UsageError) || options.configFiles.length > 0) throw error;
    return { mcp: undefined, unapproved: [], notes: [`MCP servers not started: ${error.message}`] };
  }
}

/** The note for project servers that were not started, saying how to approve them. */
export function describeUnapproved(unapproved: readonly ResolvedMcpServer[]): string {
  return (
    `The project's .mcp.json has MCP servers that were not started: ${unapproved.map(({ name }) => name).join(", ")}. ` +
    `They run programs of the project's choosing; to start them, list them in "enabledMcpjsonServers" in ` +
    `.minagent/settings.local.json (or pass --mcp-config .mcp.json).`
  );
}

/** One line per project server, saying what it would run or reach: what a person approves. */
export function describeProjectServers(unapproved: readonly ResolvedMcpServer[]): string[] {
  return unapproved.map(({ name, config, problem }) => {
    if (!config) return `${name}: ${problem}`;
    if (isRemoteServer(config)) return `${name}: ${config.type} ${config.url}`;
    return `${name}: ${[config.command, ...(config.args ?? [])].join(" ")}`;
  });
}

/**
 * Starts project servers a person approved; with `remember`, also lists them in `enabledMcpjsonServers` of the
 * project's `.minagent/settings.local.json`, so that later sessions start them without asking.
 */
export async function approveProjectServers(
  mcp: McpServers,
  unapproved: readonly ResolvedMcpServer[],
  cwd: string,
  remember: boolean,
): Promise<void> {
  if (remember)
    await editSettingsFile(join(cwd, ".minagent", "settings.local.json"), "add the MCP servers", (settings) => {
      const enabled = settings.enabledMcpjsonServers ?? [];
      if (!Array.isArray(enabled))
        throw new UsageError(`Cannot add the MCP servers: "enabledMcpjsonServers" in .minagent/settings.local.json is not a list.`);
      for (const { name } of unapproved) if (!enabled.includes(name)) enabled.push(name);
      settings.enabledMcpjsonServers = enabled;
    });
  void mcp.add(unapproved);
}

/** Whether a project server may start, from the settings the person keeps outside the repository. */
async function readProjectApproval(files: readonly string[]): Promise<(name: string) => boolean> {
  const enabled = new Set<string>();
  const disabled = new Set<string>();
  let all = false;
  for (const file of files) {
    const settings = await readFile(file, "utf8").then(
      (text) => JSON.parse(text) as Record<string, unknown>,
      () => undefined,
    );
    if (!settings) continue;
    if (settings.enableAllProjectMcpServers === true) all = true;
    for (const name of stringList(settings.enabledMcpjsonServers)) enabled.add(name);
    for (const name of stringList(settings.disabledMcpjsonServers)) disabled.add(name);
  }
  return (name) => !disabled.has(name) && (all || enabled.has(name));
}

function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === "string") : [];
}

/** `/mcp`: each server's state, tools and problems, as lines. */
export function describeMcpServers(statuses: readonly McpServerStatus[]): string[] {
  if (statuses.length === 0) return [];
  return statuses.flatMap((server) => {
    const head = `${server.name}  ${server.state}  ${server.transport}${server.restarts ? `  restarted ${server.restarts}×` : ""}  (${server.source})`;
    const lines = [head];
    if (server.problem) lines.push(`  ${server.problem}`);
    if (server.tools.length > 0)
      lines.push(`  ${server.tools.length} tools: ${server.tools.map((name) => name.slice(`mcp__${server.name}__`.length)).join(", ")}`);
    for (const skipped of server.skippedTools) lines.push(`  left out: ${skipped}`);
    return lines;
  });
}

/**
 * What an MCP tool's server claims about it, for a permission prompt: `MCP server "github" says: may destroy data,
 * reaches outside systems`. Hints only: a server may claim anything, which is why MCP calls are asked about.
 */
export function describeMcpHints(tool: unknown): string | undefined {
  const { server, annotations } = (tool ?? {}) as { server?: unknown; annotations?: McpToolAnnotations };
  if (typeof server !== "string" || !annotations) return undefined;
  const hints = [
    annotations.readOnlyHint === true && "read-only",
    annotations.readOnlyHint !== true && annotations.destructiveHint !== false && "may change or destroy data",
    annotations.idempotentHint === true && "safe to repeat",
    annotations.openWorldHint !== false && "reaches outside systems",
  ].filter(Boolean);
  return `MCP server "${server}" says: ${hints.join(", ")}`;
}
