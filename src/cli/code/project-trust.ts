import { join, relative } from "node:path";
import type { LoadedSettings } from "../../code/settings/load-settings.js";
import { isInside } from "../../code/workspace.js";
import { editSettingsFile, isSettingsObject } from "./edit-settings-file.js";

// A repository can carry `.minagent/settings.json` (and even a `settings.local.json`): hooks that run commands,
// allow rules, a permissive default mode. Opening such a folder must not run its commands or widen what the agent
// may do before the person has said they trust it. Trust is kept outside every project, in ~/.minagent.

/**
 * What the project's own settings files would do that needs trust, one line each: the commands its hooks run, the
 * calls its allow rules let through, a default mode that asks less, folders it adds. Empty when there is nothing.
 */
export function describeProjectSettings(loaded: LoadedSettings, root: string): string[] {
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
    lines.push(...sandboxWidenings(name, settings.sandbox));
  }
  return lines;
}

/** The settings without the project's own files: what a session in a folder the person did not trust reads. */
export function withoutProjectSettings(loaded: LoadedSettings): LoadedSettings {
  return {
    files: loaded.files.filter((file) => file.level === "user"),
    locations: loaded.locations.filter((location) => location.level === "user"),
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
      for (const entry of entries)
        found.push(
          `${event}${on}: ${isSettingsObject(entry) && typeof entry.command === "string" ? entry.command : JSON.stringify(entry)}`,
        );
    }
  }
  return found;
}

function stringsOf(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === "string") : [];
}
