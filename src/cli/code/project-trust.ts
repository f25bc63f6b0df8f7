import { join, relative } from "node:path";
import type { LoadedSettings } from "../../code/settings/load-settings.js";
import { isInside } from "../../code/workspace.js";
import { editSettingsFile, isSettingsObject } from "./edit-settings-file.js";

// A repository can carry `.minagent/settings.json` (and even a `settings.local.json`): hooks that run commands,
// allow rules, a permissive default mode. Opening such a folder must not run its commands or widen what the agent
// may do before the person has said they trust it. Trust is kept outside every project, in ~/.minagent.

/**
 * What the project's own settings files would do that needs trust, one line each: the commands its hooks run, the
 * calls its allow rules let through, a default mode that asks less, folders it adds, the variables it sets for every
 * command, the project MCP servers its personal file approves. `.claude/` files count as `.minagent/` ones do.
 * Lines the person wrote themselves through minagent's prompts ({@link rememberOwnProjectSettings}) are left out:
 * an "always allow" never brings the trust question back. Empty when there is nothing.
 */
export function describeProjectSettings(loaded: LoadedSettings, root: string): string[] {
  const own = new Set(ownProjectSettings(loaded, root));
  const lines: string[] = [];
  for (const { path, level, settings } of loaded.files) {
    if (level === "user") continue;
    const name = relative(root, path);
    for (const command of hookCommands(settings.hooks)) lines.push(`${name}: hook ${command}`);
    const permissions = isSettingsObject(settings.permissions) ? settings.permissions : {};
    const mode = permissions.defaultMode;
    if (typeof mode === "string" && mode !== "default" && mode !== "plan") lines.push(`${name}: permission mode ${mode}`);
    for (const rule of stringsOf(permissions.allow)) lines.push(`${name}: allow ${rule}`);
    for (const folder of stringsOf(permissions.additionalDirectories)) lines.push(`${name}: adds the folder ${folder}`);
    if (isSettingsObject(settings.env))
      for (const variable of Object.keys(settings.env)) lines.push(`${name}: sets ${variable} for every command`);
    if (settings.disableAllHooks === true) lines.push(`${name}: turns off every hook, your own guards included`);
    // A model at a URL of the repository's choosing would be sent the whole conversation.
    if (typeof settings.model === "string" && settings.model.includes("@"))
      lines.push(`${name}: sends the conversation to ${settings.model.slice(settings.model.indexOf("@") + 1)} (model ${settings.model})`);
    // Only a personal (local) file's approvals start servers; a shared file's are not read for that.
    if (level === "local") {
      if (settings.enableAllProjectMcpServers === true) lines.push(`${name}: approves every MCP server of .mcp.json`);
      for (const server of stringsOf(settings.enabledMcpjsonServers)) lines.push(`${name}: approves the MCP server ${server}`);
    }
    lines.push(...sandboxWidenings(name, settings.sandbox));
  }
  return lines.filter((line) => !own.has(line));
}

/** The user's settings key where the lines of settings the person wrote through minagent are kept, by folder. */
const ownSettingsKey = "ownProjectSettings";

/** The trust lines the person's own answers wrote for `root` (in the user's files' `ownProjectSettings`). */
function ownProjectSettings(loaded: LoadedSettings, root: string): string[] {
  return loaded.files.flatMap((file) => {
    const record = file.level === "user" ? file.settings[ownSettingsKey] : undefined;
    return isSettingsObject(record) ? stringsOf(record[root]) : [];
  });
}

/**
 * Records, in `ownProjectSettings` of `~/.minagent/settings.json` (outside every repository), that the person wrote
 * these settings of the folder themselves — an "always allow" saved to `.minagent/settings.local.json`, a project MCP
 * server approved — as the lines {@link describeProjectSettings} would show, so that they never ask for trust.
 */
export async function rememberOwnProjectSettings(home: string, root: string, lines: readonly string[]): Promise<void> {
  if (lines.length === 0) return;
  await editSettingsFile(join(home, "settings.json"), "record the settings you chose", (settings) => {
    const record = isSettingsObject(settings[ownSettingsKey]) ? settings[ownSettingsKey] : {};
    const kept = stringsOf(record[root]);
    for (const line of lines) if (!kept.includes(line)) kept.push(line);
    settings[ownSettingsKey] = { ...record, [root]: kept };
  });
}

/** The trust line of an allow rule written to a project's settings file (what {@link describeProjectSettings} shows for it). */
export function allowRuleLine(root: string, file: string, rule: string): string {
  return `${relative(root, file)}: allow ${rule}`;
}

/** The trust line of a project MCP server approved in a project's personal settings file. */
export function approvedServerLine(root: string, file: string, server: string): string {
  return `${relative(root, file)}: approves the MCP server ${server}`;
}

/**
 * The settings a session in a folder the person did not trust reads: the user's files, and of the project's own only
 * what narrows — its deny and ask rules (a team's `Read(./.env)` deny still holds); nothing of theirs runs or widens.
 */
export function withoutProjectSettings(loaded: LoadedSettings): LoadedSettings {
  const files = loaded.files.flatMap((file) => {
    if (file.level === "user") return [file];
    const permissions = isSettingsObject(file.settings.permissions) ? file.settings.permissions : {};
    const narrowing = Object.fromEntries(
      ["deny", "ask"].filter((list) => permissions[list] !== undefined).map((list) => [list, permissions[list]]),
    );
    return Object.keys(narrowing).length === 0 ? [] : [{ ...file, settings: { permissions: narrowing } }];
  });
  return {
    files,
    locations: loaded.locations.filter((location) => location.level === "user" || files.some((file) => file.path === location.path)),
  };
}

/** What a project's `sandbox` object would open: the sandbox off, more folders to write, hosts, sockets, leaving it. */
function sandboxWidenings(name: string, sandbox: unknown): string[] {
  if (!isSettingsObject(sandbox)) return [];
  const lines: string[] = [];
  if (sandbox.enabled === false) lines.push(`${name}: turns the sandbox off`);
  if (sandbox.allowUnsandboxedCommands === true) lines.push(`${name}: lets -p runs leave the sandbox`);
  const filesystem = isSettingsObject(sandbox.filesystem) ? sandbox.filesystem : {};
  for (const folder of stringsOf(filesystem.allowWrite)) lines.push(`${name}: lets commands write in ${folder}`);
  const network = isSettingsObject(sandbox.network) ? sandbox.network : {};
  for (const domain of stringsOf(network.allowedDomains)) lines.push(`${name}: lets commands reach ${domain}`);
  if (network.allowLocalBinding === true) lines.push(`${name}: lets commands reach servers on this machine's loopback`);
  if (network.allowAllUnixSockets === true) lines.push(`${name}: opens Unix sockets to commands`);
  return lines;
}

/** Whether the person trusts this folder (or one above it), as recorded in the user's settings (`trustedProjects`). */
export function isProjectTrusted(loaded: LoadedSettings, root: string): boolean {
  const trusted = loaded.files.flatMap((file) => (file.level === "user" ? stringsOf(file.settings.trustedProjects) : []));
  return isInside(root, trusted);
}

/** Records that the person trusts this folder, in `trustedProjects` of `~/.minagent/settings.json`. */
export async function trustProject(home: string, root: string): Promise<void> {
  await editSettingsFile(join(home, "settings.json"), "record the trusted folder", (settings) => {
    const trusted = stringsOf(settings.trustedProjects);
    if (!trusted.includes(root)) trusted.push(root);
    settings.trustedProjects = trusted;
  });
}

/** The commands of a settings file's `hooks` (`PreToolUse Bash: ./check.sh`), and its function hooks by event. */
function hookCommands(hooks: unknown): string[] {
  if (!isSettingsObject(hooks)) return [];
  const found: string[] = [];
  for (const [event, matchers] of Object.entries(hooks)) {
    for (const matcher of Array.isArray(matchers) ? matchers : []) {
      const entries = isSettingsObject(matcher) && Array.isArray(matcher.hooks) ? matcher.hooks : [];
      const on = isSettingsObject(matcher) && typeof matcher.matcher === "string" && matcher.matcher ? ` ${matcher.matcher}` : "";
      for (const entry of entries) found.push(`${event}${on}: ${describeHookEntry(entry)}`);
    }
  }
  return found;
}

/** What a hook entry runs, as the person should see it: the command with its exec-form `args`, the URL, or the entry. */
export function describeHookEntry(entry: unknown): string {
  if (!isSettingsObject(entry)) return JSON.stringify(entry);
  if (typeof entry.command === "string")
    return [entry.command, ...stringsOf(entry.args).map((arg) => (/^[\w./=:@%+-]+$/.test(arg) ? arg : JSON.stringify(arg)))].join(" ");
  if (typeof entry.url === "string") return `POST ${entry.url}`;
  return JSON.stringify(entry);
}

function stringsOf(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === "string") : [];
}
