import type { LoadedSettings } from "./load-settings.js";

// The settings keys that shape the session as a whole rather than one part of the agent: the environment its
// commands get (`env`), the model (`model`), whether hooks run at all (`disableAllHooks`). Claude Code's meaning each.

/** A variable name a shell accepts: what `env` keys must be. */
const variableName = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * The variables the settings' `env` objects set, merged in order (a later, more specific file wins for a name), as
 * Claude Code applies them: to every Bash command, every command hook, and the model's connection (the CLI's
 * `ANTHROPIC_BASE_URL`…). A value must be a string (numbers and booleans are taken as their text, as Claude Code's
 * users write `"MAX_THINKING_TOKENS": 8000`); anything else, and a name that is not a variable name, is one warning
 * naming the file and the key, and the rest applies.
 */
export function settingsEnvironment(settings: LoadedSettings): { env: Record<string, string>; warnings: string[] } {
  const env: Record<string, string> = {};
  const warnings: string[] = [];
  for (const { path, settings: values } of settings.files) {
    const given = values.env;
    if (given === undefined) continue;
    if (typeof given !== "object" || given === null || Array.isArray(given)) {
      warnings.push(`${path}: "env" must be an object of variable names and values, e.g. { "NODE_ENV": "test" }; ignored`);
      continue;
    }
    for (const [name, value] of Object.entries(given)) {
      if (!variableName.test(name)) warnings.push(`${path}: "env.${name}" is not a variable name (letters, digits and _); ignored`);
      else if (typeof value === "string") env[name] = value;
      else if (typeof value === "number" || typeof value === "boolean") env[name] = String(value);
      else warnings.push(`${path}: "env.${name}" must be a string, not ${value === null ? "null" : typeof value}; ignored`);
    }
  }
  return { env, warnings };
}

/** The last (most specific) file's value of a top-level key, with the file it came from. */
export function settingsValue(settings: LoadedSettings, key: string): { value: unknown; path: string } | undefined {
  for (let index = settings.files.length - 1; index >= 0; index--) {
    const file = settings.files[index];
    if (file !== undefined && Object.hasOwn(file.settings, key)) return { value: file.settings[key], path: file.path };
  }
  return undefined;
}

/** Whether a settings file turns every hook off (`"disableAllHooks": true`, the most specific file that says wins). */
export function hooksDisabled(settings: LoadedSettings): boolean {
  return settingsValue(settings, "disableAllHooks")?.value === true;
}
