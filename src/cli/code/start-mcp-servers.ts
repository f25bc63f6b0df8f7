import { homedir } from "node:os";
import { join, resolve } from "node:path";
import type { Sandbox } from "../../code/sandbox/create-sandbox.js";
import { type LoadedSettings, loadSettings, settingsLocations } from "../../code/settings/load-settings.js";
import { UsageError } from "../../errors.js";
import { isRemoteServer, type ResolvedMcpServer } from "../../mcp/config.js";
import type { McpToolAnnotations } from "../../mcp/mcp-server-types.js";
import type { McpServerStatus, McpServers } from "../../mcp/mcp-servers.js";
import type { McpConfigFile } from "../../mcp/read-mcp-config-files.js";
import type { CliIo } from "../io.js";
import { editSettingsFile } from "./edit-settings-file.js";
import { approvedServerLine, rememberOwnProjectSettings } from "./project-trust.js";

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
  /**
   * The session's settings, read once (the project's files only when the person trusts the folder: see
   * project-trust.ts). Default: read now from `home` and the project, the project's files only when `projectTrusted`
   * is not false.
   */
  settings?: LoadedSettings | undefined;
  /** Without `settings`: whether the person trusts the folder's own settings files. Default true. */
  projectTrusted?: boolean | undefined;
  /** `--sandbox` (true) or `--no-sandbox` (false), over the settings' `sandbox.enabled`, as for Bash commands. */
  sandbox?: boolean | undefined;
  /** `--add-dir` folders: a sandboxed server may write there, as Bash commands may. */
  additionalDirectories?: readonly string[] | undefined;
  /**
   * The folders offered to servers as MCP roots (server-filesystem works in them instead of its command line's).
   * Default: `cwd` and `additionalDirectories`, as Claude Code offers its working directory.
   */
  roots?: readonly string[] | undefined;
  /** `--allowedTools` and `--disallowedTools`: their `Read(…)` deny and `WebFetch(domain:…)` allow rules reach a sandboxed server as they reach Bash. */
  rules?: { allow?: readonly string[] | undefined; deny?: readonly string[] | undefined } | undefined;
  /**
   * Servers given beside the files (an editor's, from ACP's session/new): started as approved — whoever gave them
   * chose them — and replacing a file's server of the same name.
   */
  extraServers?: readonly ResolvedMcpServer[] | undefined;
};

/** The servers started (none when no config names any), the project's servers waiting for approval, and lines to tell the person. */
export type CodeMcpSetup = {
  /** Closing it also closes the OS sandbox made for servers with `"sandbox": true`, if one was. */
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
 *
 * When a server asks for the OS sandbox (`"sandbox": true`), one is made from the same settings files the session's
 * Bash sandbox is (the same walls: the workspace, `--add-dir`, `filesystem.allowWrite`, `network.allowedDomains`);
 * `mcp.close()` closes it. A server that asks for it while it cannot run here, or is turned off, is not started.
 */
export async function startCodeMcpServers(options: CodeMcpOptions): Promise<CodeMcpSetup> {
  const project = join(options.cwd, ".mcp.json");
  const files = mcpConfigFileList(options);
  const { readMcpConfigFiles } = await import("../../mcp/read-mcp-config-files.js");
  const extra = options.extraServers ?? [];
  const servers = [
    ...(await readMcpConfigFiles(files, options.env)).filter((server) => !extra.some((given) => given.name === server.name)),
    ...extra,
  ];
  const settings =
    options.settings ??
    (await loadSettings(settingsLocations({ root: options.cwd, userDirectory: options.home, project: options.projectTrusted !== false })));
  const approval = projectApproval(settings);
  const named = new Set(options.configFiles);
  const unapproved = servers.filter((server) => server.source === project && !named.has(project) && !approval(server.name));
  const starting = servers.filter((server) => !unapproved.includes(server));
  if (servers.length === 0) return { mcp: undefined, unapproved, notes: [] };
  // Unapproved servers count too: a person may approve them later, and they join the same sandbox.
  const sandbox = servers.some(asksForSandbox) ? await createMcpSandbox(options, settings) : undefined;
  const { connectMcpServers } = await import("../../mcp/connect-mcp-servers.js");
  try {
    const connected = await connectMcpServers(starting, {
      wait: false,
      cwd: options.cwd,
      variables: options.env,
      sandbox,
      // Declared at every handshake, answered by the session's agent once it exists (it sets its own handlers):
      // servers connect before the agent is made.
      elicit: async () => ({ action: "decline" }),
      sample: async ({ server }) => {
        throw new Error(`MCP server "${server}" asked to use the model before the session was ready; try again.`);
      },
      roots: options.roots ?? [options.cwd, ...(options.additionalDirectories ?? []).map((directory) => resolve(options.cwd, directory))],
      ...(options.env.MCP_TIMEOUT && { startupTimeoutMs: Number(options.env.MCP_TIMEOUT) }),
      // Logins wait for the person: a server that needs one is needs-login until /mcp login or `minagent mcp login`.
      auth: { directory: mcpAuthDirectory(options.home), loginHint: mcpLoginHint },
    });
    const mcp: McpServers = sandbox
      ? {
          ...connected,
          close: async () => {
            await connected.close();
            await sandbox.close();
          },
        }
      : connected;
    return { mcp, unapproved, notes: [] };
  } catch (error) {
    await sandbox?.close();
    if (!(error instanceof UsageError) || options.configFiles.length > 0) throw error;
    return { mcp: undefined, unapproved: [], notes: [`MCP servers not started: ${error.message}`] };
  }
}

/** The `.mcp.json` files `minagent code` reads, least specific first: the user's, the project's, then `--mcp-config` files. */
export function mcpConfigFileList(options: Pick<CodeMcpOptions, "cwd" | "home" | "configFiles" | "strict">): McpConfigFile[] {
  return [
    ...(options.strict ? [] : [{ path: join(options.home, "mcp.json") }, { path: join(options.cwd, ".mcp.json") }]),
    ...options.configFiles.map((path) => ({ path, required: true })),
  ];
}

/** Where MCP servers' OAuth logins are kept: `mcp-auth/` in minagent's folder (`~/.minagent`, MINAGENT_HOME). */
export function mcpAuthDirectory(home: string): string {
  return join(home, "mcp-auth");
}

/** How a person logs in to a server, in the problem of one that needs a login. */
export function mcpLoginHint(server: string): string {
  return `run "minagent mcp login ${server}" (or /mcp login ${server} in a session)`;
}

function asksForSandbox({ config }: ResolvedMcpServer): boolean {
  return config !== undefined && !isRemoteServer(config) && config.sandbox === true;
}

/**
 * The OS sandbox for MCP servers, built as `CodingAgent.create` builds the one for Bash: the same settings files (the
 * project's only when it is trusted), folders and permission rules. New hosts are refused, not asked about: a server
 * runs in the background, so the hosts it needs go in `sandbox.network.allowedDomains`. A UsageError (a misshapen
 * setting, `failIfUnavailable` where it cannot run) stops the session, as it would at the agent.
 */
async function createMcpSandbox(options: CodeMcpOptions, loaded: LoadedSettings): Promise<Sandbox> {
  const [{ createSandbox }, { readSandboxSettings }, { loadPermissionSettings }, { sandboxOptionsFromRules }] = await Promise.all([
    import("../../code/sandbox/create-sandbox.js"),
    import("../../code/sandbox/sandbox-settings.js"),
    import("../../code/permissions/settings.js"),
    import("../../code/sandbox/from-permission-rules.js"),
  ]);
  const home = homedir();
  const bases = { root: options.cwd, home };
  const settings = await readSandboxSettings(loaded, bases, options.sandbox === undefined ? undefined : { enabled: options.sandbox });
  const permissions = await loadPermissionSettings(loaded, bases, options.rules);
  return createSandbox({
    settings,
    // As the agent's Workspace takes them: relative folders from the root.
    directories: [
      options.cwd,
      ...(options.additionalDirectories ?? []).map((directory) => resolve(options.cwd, directory)),
      ...permissions.additionalDirectories,
    ],
    home,
    userDirectory: options.home,
    ...sandboxOptionsFromRules({ settings: permissions }),
  });
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
 * project's `.minagent/settings.local.json`, so that later sessions start them without asking, and records in the
 * user's settings (`home`) that the person wrote that, so that it never asks for the folder's trust.
 */
export async function approveProjectServers(
  mcp: McpServers,
  unapproved: readonly ResolvedMcpServer[],
  cwd: string,
  remember: boolean,
  home: string,
): Promise<void> {
  const file = join(cwd, ".minagent", "settings.local.json");
  if (remember) {
    await editSettingsFile(file, "add the MCP servers", (settings) => {
      const enabled = settings.enabledMcpjsonServers ?? [];
      if (!Array.isArray(enabled))
        throw new UsageError(`Cannot add the MCP servers: "enabledMcpjsonServers" in .minagent/settings.local.json is not a list.`);
      for (const { name } of unapproved) if (!enabled.includes(name)) enabled.push(name);
      settings.enabledMcpjsonServers = enabled;
    });
    // The person's own answer: it must not come back as a question of trust.
    await rememberOwnProjectSettings(
      home,
      cwd,
      unapproved.map(({ name }) => approvedServerLine(cwd, file, name)),
    );
  }
  void mcp.add(unapproved);
}

/** Whether a project server may start, from the settings the person keeps outside the repository (theirs, and the project's personal file). */
function projectApproval(loaded: LoadedSettings): (name: string) => boolean {
  const enabled = new Set<string>();
  const disabled = new Set<string>();
  let all = false;
  for (const { level, settings } of loaded.files) {
    if (level === "project") continue;
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
    const head = `${server.name}  ${server.state}  ${server.transport}${server.sandboxed ? "  sandboxed" : ""}${server.loggedIn ? "  logged in" : ""}${server.restarts ? `  restarted ${server.restarts}×` : ""}  (${server.source})`;
    const lines = [head];
    if (server.problem) lines.push(`  ${server.problem}`);
    if (server.tools.length > 0)
      lines.push(`  ${server.tools.length} tools: ${server.tools.map((name) => name.slice(`mcp__${server.name}__`.length)).join(", ")}`);
    for (const skipped of server.skippedTools) lines.push(`  left out: ${skipped}`);
    // Resources are read with @server:uri and the resource tools, prompts run as /mcp__<server>__<prompt> (docs/mcp.md).
    if (server.offers?.length) lines.push(`  also offers: ${server.offers.join(", ")}`);
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
