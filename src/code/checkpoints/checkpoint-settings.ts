import type { LoadedSettings } from "../settings/load-settings.js";
import { settingsValue } from "../settings/session-settings.js";

/** The settings files' `checkpoints` object: what minagent code checkpoints, and how much it keeps. */
export type CheckpointSettings = {
  /** `false`: no checkpoints (default true). */
  enabled?: boolean | undefined;
  /** gitignore-style patterns left out, on top of `node_modules/` and caches. */
  exclude?: string[] | undefined;
  /** `false`: the project's .gitignore does not leave files out. */
  gitignore?: boolean | undefined;
  /** Files larger than this many bytes are not kept (default 5 MiB). */
  maxFileBytes?: number | undefined;
  /** A workspace with more files gets no scans around commands (default 100,000). */
  maxFiles?: number | undefined;
  /** Checkpoints a session keeps (default 100). */
  maxCheckpoints?: number | undefined;
  /** Bytes the whole store may hold before the oldest sessions' checkpoints are pruned (default 2 GiB). */
  maxStoreBytes?: number | undefined;
};

/**
 * The `checkpoints` settings (the most specific file that has the key wins, as a whole); wrong values are
 * warnings, one a key, and the default stands.
 */
export function readCheckpointSettings(settings: LoadedSettings): { settings: CheckpointSettings; warnings: string[] } {
  const found = settingsValue(settings, "checkpoints");
  const warnings: string[] = [];
  if (found === undefined) return { settings: {}, warnings };
  const value = found.value as Record<string, unknown>;
  if (typeof value !== "object" || value === null || Array.isArray(value))
    return { settings: {}, warnings: [`${found.path}: "checkpoints" must be an object like {"enabled": true}; the defaults stand.`] };
  const result: CheckpointSettings = {};
  for (const [key, given] of Object.entries(value)) {
    const wrong = (what: string) =>
      warnings.push(`${found.path}: "checkpoints.${key}" must be ${what}, not ${JSON.stringify(given)}; the default stands.`);
    if (key === "enabled" || key === "gitignore") {
      if (typeof given === "boolean") result[key] = given;
      else wrong("true or false");
    } else if (key === "exclude") {
      if (Array.isArray(given) && given.every((pattern) => typeof pattern === "string")) result.exclude = given as string[];
      else wrong("a list of gitignore patterns");
    } else if (key === "maxFileBytes" || key === "maxFiles" || key === "maxCheckpoints" || key === "maxStoreBytes") {
      if (typeof given === "number" && Number.isInteger(given) && given > 0) result[key] = given;
      else wrong("a whole number above 0");
    } else
      warnings.push(
        `${found.path}: "checkpoints.${key}" is not a checkpoint setting (enabled, exclude, gitignore, maxFileBytes, maxFiles, maxCheckpoints, maxStoreBytes); it is ignored.`,
      );
  }
  return { settings: result, warnings };
}
