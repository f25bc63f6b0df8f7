import { isAbsolute, resolve } from "node:path";
import { UsageError } from "../../errors.js";
import { type SettingsInput, settingsOf } from "../settings/load-settings.js";

/**
 * The `sandbox` object of a settings file, in Claude Code's shape. Paths starting with `/` are absolute, `~/` starts
 * at the home directory, and any other path is taken from the workspace root.
 */
export type SandboxSettings = {
  /** Run every Bash command inside the OS sandbox (default: on wherever it can run). */
  enabled?: boolean | undefined;
  /** Refuse to start, before any command runs, when the sandbox is enabled but cannot run here (default false). */
  failIfUnavailable?: boolean | undefined;
  /**
   * What becomes of a call that asks to run outside the sandbox (`dangerouslyDisableSandbox: true`). Unset: a person is
   * always asked, and `-p` refuses it. `true`: still always asked interactively; `-p` judges it as an unsandboxed call
   * (rules and mode). `false`: refused everywhere.
   */
  allowUnsandboxedCommands?: boolean | undefined;
  filesystem?:
    | {
        /** More folders commands may write in, beside the workspace and its added directories. */
        allowWrite?: readonly string[] | undefined;
        /** Files and folders commands may not read (beside what `Read(…)` deny rules cover). */
        denyRead?: readonly string[] | undefined;
      }
    | undefined;
  network?:
    | {
        /** Hosts commands may reach through the sandbox's proxy: `example.com`, `*.example.com`, `localhost`, `127.0.0.1:8080`. */
        allowedDomains?: readonly string[] | undefined;
        /**
         * macOS: let commands bind and reach loopback ports (their own servers, and the host's). On Linux a command's
         * loopback is always its own network namespace's, so its servers answer it whatever this says, and the host's
         * loopback is reached only through exact `allowedDomains` entries (`localhost:5432`).
         */
        allowLocalBinding?: boolean | undefined;
        /** Leave Unix sockets open (the Docker daemon, ssh-agent, D-Bus…): off by default, since a socket reaches past every other wall. */
        allowAllUnixSockets?: boolean | undefined;
      }
    | undefined;
};

/** Every source's `sandbox` merged (lists joined, the last value of each switch kept), paths absolute. */
export type ResolvedSandboxSettings = {
  enabled: boolean | undefined;
  failIfUnavailable: boolean;
  allowUnsandboxedCommands: boolean | undefined;
  allowWrite: string[];
  denyRead: string[];
  allowedDomains: string[];
  allowLocalBinding: boolean;
  allowAllUnixSockets: boolean;
  /** The files that said anything about the sandbox, in order. */
  files: string[];
};

/** Where relative and `~/` paths in a `sandbox` object start. */
export type SandboxPathBases = { root: string; home: string };

/**
 * Merges the `sandbox` object of each settings file (read already, or read now; a missing file is skipped) with `code` (applied
 * last: `CodingAgent.create`'s `sandbox` option, the CLI's flags). Throws a UsageError naming the file and the field
 * when one is misshapen.
 */
export async function readSandboxSettings(
  files: SettingsInput,
  bases: SandboxPathBases,
  code?: SandboxSettings | undefined,
): Promise<ResolvedSandboxSettings> {
  const merged: ResolvedSandboxSettings = {
    enabled: undefined,
    failIfUnavailable: false,
    allowUnsandboxedCommands: undefined,
    allowWrite: [],
    denyRead: [],
    allowedDomains: [],
    allowLocalBinding: false,
    allowAllUnixSockets: false,
    files: [],
  };
  for (const { path, settings } of (await settingsOf(files)).files) {
    if (settings.sandbox === undefined) continue;
    mergeSandboxSettings(merged, settings.sandbox, path, bases);
    merged.files.push(path);
  }
  if (code !== undefined) mergeSandboxSettings(merged, code, "the sandbox option", bases);
  return merged;
}

/** Merges one source's `sandbox` object into `merged`; `where` names the source in errors. */
export function mergeSandboxSettings(merged: ResolvedSandboxSettings, sandbox: unknown, where: string, bases: SandboxPathBases): void {
  if (!isObject(sandbox))
    throw new UsageError(`"sandbox" in ${where} must be an object such as { "enabled": true }, got ${describe(sandbox)}.`);
  const flag = (value: unknown, name: string): boolean | undefined => {
    if (value === undefined || typeof value === "boolean") return value;
    throw new UsageError(`"sandbox.${name}" in ${where} must be true or false, got ${describe(value)}.`);
  };
  const paths = (value: unknown, name: string): string[] => {
    if (value === undefined) return [];
    if (!Array.isArray(value) || value.some((item) => typeof item !== "string" || item === ""))
      throw new UsageError(`"sandbox.${name}" in ${where} must be an array of paths, got ${describe(value)}.`);
    return value.map((path: string) => resolveSandboxPath(path, bases));
  };
  const filesystem = section(sandbox.filesystem, "filesystem", where);
  const network = section(sandbox.network, "network", where);
  merged.enabled = flag(sandbox.enabled, "enabled") ?? merged.enabled;
  merged.failIfUnavailable = flag(sandbox.failIfUnavailable, "failIfUnavailable") ?? merged.failIfUnavailable;
  merged.allowUnsandboxedCommands = flag(sandbox.allowUnsandboxedCommands, "allowUnsandboxedCommands") ?? merged.allowUnsandboxedCommands;
  merged.allowWrite.push(...paths(filesystem.allowWrite, "filesystem.allowWrite"));
  merged.denyRead.push(...paths(filesystem.denyRead, "filesystem.denyRead"));
  const domains = network.allowedDomains;
  if (domains !== undefined) {
    if (!Array.isArray(domains) || domains.some((domain) => typeof domain !== "string" || !isDomainPattern(domain)))
      throw new UsageError(
        `"sandbox.network.allowedDomains" in ${where} must be an array of host names such as "registry.npmjs.org", "*.github.com" or "localhost:8080", got ${JSON.stringify(domains)}.`,
      );
    merged.allowedDomains.push(...(domains as string[]).map((domain) => domain.toLowerCase()));
  }
  merged.allowLocalBinding = flag(network.allowLocalBinding, "network.allowLocalBinding") ?? merged.allowLocalBinding;
  merged.allowAllUnixSockets = flag(network.allowAllUnixSockets, "network.allowAllUnixSockets") ?? merged.allowAllUnixSockets;
}

/** `/abs` as it is, `~/x` from home, anything else from the workspace root. */
export function resolveSandboxPath(path: string, { root, home }: SandboxPathBases): string {
  if (path === "~") return home;
  if (path.startsWith("~/")) return resolve(home, path.slice(2));
  return isAbsolute(path) ? resolve(path) : resolve(root, path);
}

/** `host`, `*.host`, an IPv4 address or `[v6]`, each with an optional `:port`. */
function isDomainPattern(domain: string): boolean {
  return /^(\*\.)?[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*(:\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](:\d{1,5})?$/.test(domain);
}

function section(value: unknown, name: string, where: string): Record<string, unknown> {
  if (value === undefined) return {};
  if (!isObject(value)) throw new UsageError(`"sandbox.${name}" in ${where} must be an object, got ${describe(value)}.`);
  return value;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function describe(value: unknown): string {
  return value === null ? "null" : Array.isArray(value) ? "an array" : typeof value === "string" ? JSON.stringify(value) : typeof value;
}
