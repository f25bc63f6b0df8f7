import { join } from "node:path";
import { readSettingsFile } from "./read-settings-file.js";

/** Where a settings file stands: the user's own, the project's shared one (in version control), the project's personal one. */
export type SettingsLevel = "user" | "project" | "local";

/** A settings file's place: its path and level. */
export type SettingsLocation = { path: string; level: SettingsLevel };

/** A settings file that exists, read and parsed once: every part of the agent takes its settings from these. */
export type SettingsFile = SettingsLocation & { settings: Readonly<Record<string, unknown>> };

/**
 * The settings of a session, read once before anything starts: the files that exist, least specific first (later
 * files win where one value is chosen; lists are merged), and every place that was looked at.
 */
export type LoadedSettings = {
  files: readonly SettingsFile[];
  /** Every location considered, missing files included (what `/permissions` and `--verbose` list). */
  locations: readonly SettingsLocation[];
};

/**
 * The settings files of a session, least specific first: the user's, then the project's shared ones, then the
 * project's personal ones. At each level Claude Code's file comes first and minagent's after it, so that ours wins
 * where one value is chosen (lists are merged):
 * `<claudeDirectory>/settings.json`, `<userDirectory>/settings.json` (`~/.minagent`, or `MINAGENT_HOME` for the CLI);
 * `<root>/.claude/settings.json`, `<root>/.minagent/settings.json`;
 * `<root>/.claude/settings.local.json`, `<root>/.minagent/settings.local.json`.
 * Without `claudeDirectory` (`~/.claude`, or `CLAUDE_CONFIG_DIR`) the user's Claude Code file is not read; with
 * `project: false` (a folder the person did not trust) only the user's files count.
 */
export function settingsLocations(options: {
  root: string;
  userDirectory: string;
  claudeDirectory?: string | undefined;
  project?: boolean | undefined;
}): SettingsLocation[] {
  const { root, userDirectory, claudeDirectory } = options;
  const user: SettingsLocation[] = [
    ...(claudeDirectory === undefined ? [] : [{ path: join(claudeDirectory, "settings.json"), level: "user" as const }]),
    { path: join(userDirectory, "settings.json"), level: "user" },
  ];
  if (options.project === false) return user;
  return [
    ...user,
    { path: join(root, ".claude", "settings.json"), level: "project" },
    { path: join(root, ".minagent", "settings.json"), level: "project" },
    { path: join(root, ".claude", "settings.local.json"), level: "local" },
    { path: join(root, ".minagent", "settings.local.json"), level: "local" },
  ];
}

/**
 * Reads the settings files (a missing one is skipped). A path given alone counts as the project's. Throws a
 * UsageError naming the file when one cannot be read, is not JSON, or is not a JSON object.
 */
export async function loadSettings(locations: readonly (SettingsLocation | string)[]): Promise<LoadedSettings> {
  const placed = locations.map(
    (location): SettingsLocation => (typeof location === "string" ? { path: location, level: "project" } : location),
  );
  // Read at once, reported in order: with two broken files, the least specific is named first, every time.
  const read = await Promise.allSettled(placed.map((location) => readSettingsFile(location.path)));
  const files: SettingsFile[] = [];
  placed.forEach((location, index) => {
    const outcome = read[index] as PromiseSettledResult<Record<string, unknown> | undefined>;
    if (outcome.status === "rejected") throw outcome.reason;
    if (outcome.value !== undefined) files.push({ ...location, settings: outcome.value });
  });
  return { files, locations: placed };
}

/** Settings already read, or the files to read: what the parts that take settings accept. */
export type SettingsInput = LoadedSettings | readonly (SettingsLocation | string)[];

/** The loaded settings of `input`, reading the files only when it names files. */
export async function settingsOf(input: SettingsInput): Promise<LoadedSettings> {
  return "files" in input ? input : loadSettings(input);
}
