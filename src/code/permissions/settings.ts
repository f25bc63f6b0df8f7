import { isAbsolute, join, resolve } from "node:path";
import { UsageError } from "../../errors.js";
import { type SettingsInput, settingsLocations, settingsOf } from "../settings/load-settings.js";
import { isPermissionMode, type PermissionMode, permissionModes } from "./modes.js";
import { type PermissionRule, parsePermissionRule, type RuleList, UnknownToolRuleError } from "./parse-rule.js";
import type { PathBases } from "./path-pattern.js";

/** The `permissions` object of a settings file, as Claude Code's. */
export type PermissionSettings = {
  allow?: readonly string[] | undefined;
  ask?: readonly string[] | undefined;
  deny?: readonly string[] | undefined;
  defaultMode?: PermissionMode | undefined;
  /** More folders the modes may work in; relative ones are taken from the workspace root, `~/` from home. */
  additionalDirectories?: readonly string[] | undefined;
};

/** Rules and settings merged from every source, least specific first. */
export type LoadedPermissionSettings = {
  /** Every rule, each with the file (or `options.rules`) it came from. */
  rules: { allow: PermissionRule[]; ask: PermissionRule[]; deny: PermissionRule[] };
  /** The most specific `defaultMode`, if any file sets one. */
  defaultMode: PermissionMode | undefined;
  /** Added directories from every file, absolute. */
  additionalDirectories: string[];
  /** The settings files that exist and were read, in order. */
  files: string[];
  /** One line per part of a settings file that was skipped (a rule for a tool minagent does not have), naming the file. */
  warnings: string[];
};

/**
 * The settings files `createCodePermissions` reads by default, least specific first: Claude Code's and minagent's at
 * each level (see `settingsLocations`): `~/.claude/settings.json`, `~/.minagent/settings.json`, the project's
 * `.claude/settings.json` and `.minagent/settings.json`, then its `.claude/settings.local.json` and
 * `.minagent/settings.local.json`. Later files win where one value is chosen (`defaultMode`); lists are merged.
 */
export function permissionSettingsFiles({ root, home }: PathBases): string[] {
  return settingsLocations({ root, userDirectory: join(home, ".minagent"), claudeDirectory: join(home, ".claude") }).map(
    (location) => location.path,
  );
}

const lists: readonly RuleList[] = ["allow", "ask", "deny"];

/**
 * Merges the settings files' `permissions` (read already, or read now when given as paths; a missing file is skipped)
 * with rules given in code (`code`, applied last). Throws a UsageError naming the file for unreadable JSON, a
 * misshapen `permissions` object, an unknown mode or a malformed rule.
 */
export async function loadPermissionSettings(
  files: SettingsInput,
  bases: PathBases,
  code?: PermissionSettings | undefined,
): Promise<LoadedPermissionSettings> {
  const loaded = await settingsOf(files);
  const sources: { where: string; permissions: unknown }[] = loaded.files.map((file) => ({
    where: file.path,
    permissions: file.settings.permissions,
  }));
  if (code !== undefined) sources.push({ where: "options.rules", permissions: code });
  const merged: LoadedPermissionSettings = {
    rules: { allow: [], ask: [], deny: [] },
    defaultMode: undefined,
    additionalDirectories: [],
    files: loaded.files.map((file) => file.path),
    warnings: [],
  };
  for (const { where, permissions } of sources) mergePermissions(merged, permissions, where, bases);
  return merged;
}

function mergePermissions(loaded: LoadedPermissionSettings, permissions: unknown, where: string, bases: PathBases): void {
  if (permissions === undefined) return;
  if (!isPlainObject(permissions)) throw new UsageError(`"permissions" in ${where} must be an object, got ${describe(permissions)}.`);
  for (const list of lists) {
    const rules = permissions[list];
    if (rules === undefined) continue;
    if (!Array.isArray(rules)) throw new UsageError(`"permissions.${list}" in ${where} must be an array of rules, got ${describe(rules)}.`);
    for (const rule of rules) {
      try {
        loaded.rules[list].push(parsePermissionRule(rule, list, where, bases));
      } catch (error) {
        // A rule for a tool there is not matches nothing: a file's copy is skipped and said; code's is a mistake.
        if (!(error instanceof UnknownToolRuleError) || where === "options.rules") throw error;
        loaded.warnings.push(error.message);
      }
    }
  }
  const mode = permissions.defaultMode;
  if (mode !== undefined) {
    if (!isPermissionMode(mode))
      throw new UsageError(
        `"permissions.defaultMode" in ${where} is ${JSON.stringify(mode)}; it must be one of ${permissionModes.join(", ")}.`,
      );
    loaded.defaultMode = mode;
  }
  const directories = permissions.additionalDirectories;
  if (directories !== undefined) {
    if (!Array.isArray(directories) || directories.some((directory) => typeof directory !== "string" || directory === ""))
      throw new UsageError(`"permissions.additionalDirectories" in ${where} must be an array of directory paths.`);
    for (const directory of directories as string[]) loaded.additionalDirectories.push(resolveDirectory(directory, bases));
  }
}

function resolveDirectory(directory: string, { root, home }: PathBases): string {
  if (directory === "~") return home;
  if (directory.startsWith("~/")) return resolve(home, directory.slice(2));
  return isAbsolute(directory) ? resolve(directory) : resolve(root, directory);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function describe(value: unknown): string {
  return value === null ? "null" : Array.isArray(value) ? "an array" : typeof value;
}
