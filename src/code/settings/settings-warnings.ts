import type { LoadedSettings } from "./load-settings.js";

// What minagent makes of each key of a settings file, so that a Claude Code user's file is either honoured or says
// plainly, one line a key, what is not: nothing is ignored in silence.

/** The keys minagent honours (the `sandbox` object's own keys are checked where it is read). */
const honoured = new Set([
  "$schema",
  "permissions",
  "hooks",
  "sandbox",
  "enableAllProjectMcpServers",
  "enabledMcpjsonServers",
  "disabledMcpjsonServers",
  "trustedProjects",
  "ownProjectSettings",
  "env",
  "disableAllHooks",
  "model",
  "alwaysThinkingEnabled",
  "cleanupPeriodDays",
  "checkpoints",
]);

/** Keys Claude Code's settings documentation lists that minagent does not act on (yet). */
const claudeCodeOnly = new Set([
  "apiKeyHelper",
  "awsAuthRefresh",
  "awsCredentialExport",
  "companyAnnouncements",
  "enabledPlugins",
  "extraKnownMarketplaces",
  "fileSuggestion",
  "forceLoginMethod",
  "forceLoginOrgUUID",
  "otelHeadersHelper",
  "outputStyle",
  "spinnerTipsEnabled",
  "statusLine",
  "subagentStatusLine",
]);

/**
 * Keys whose meaning minagent already has for some values: it never adds a co-author line or attribution to commits
 * and pull requests, and its Glob and Grep leave out what `.gitignore` ignores. Another value is not supported.
 */
const honouredWhen: Readonly<Record<string, { holds: (value: unknown) => boolean; because: string }>> = {
  includeCoAuthoredBy: { holds: (value) => value === false, because: "minagent never adds a co-author line" },
  attribution: {
    holds: (value) => typeof value === "object" && value !== null && Object.values(value).every((text) => text === "" || text === false),
    because: "minagent adds no attribution to commits or pull requests",
  },
  respectGitignore: { holds: (value) => value === true, because: "minagent's Glob and Grep always leave out what .gitignore ignores" },
};

const honouredPermissions = new Set(["allow", "ask", "deny", "defaultMode", "additionalDirectories"]);
const claudeCodeOnlyPermissions = new Set(["disableBypassPermissionsMode"]);

/**
 * One line for each key of the settings files that minagent does not act on: a key Claude Code documents
 * (`"env" is not supported by minagent (ignored)`), or one nobody does (a typo such as `permisions`). Each names the
 * file and the key; the rest of the file applies.
 */
export function settingsWarnings(loaded: LoadedSettings): string[] {
  const warnings: string[] = [];
  for (const { path, settings } of loaded.files) {
    const acted = Object.keys(settings).filter((key) => honouredWhen[key]?.holds(settings[key]));
    const others = Object.fromEntries(Object.entries(settings).filter(([key]) => !acted.includes(key) && !honouredWhen[key]));
    warnings.push(...unactedKeys(path, "", others, honoured, claudeCodeOnly));
    for (const key of Object.keys(settings).filter((key) => honouredWhen[key] && !acted.includes(key)))
      warnings.push(
        `${path}: "${key}": ${JSON.stringify(settings[key])} is not supported by minagent (${honouredWhen[key]?.because}); ignored`,
      );
    const permissions = settings.permissions;
    if (typeof permissions === "object" && permissions !== null && !Array.isArray(permissions))
      warnings.push(
        ...unactedKeys(path, "permissions.", permissions as Record<string, unknown>, honouredPermissions, claudeCodeOnlyPermissions),
      );
  }
  return warnings;
}

/** One warning for each key of `object` that is not honoured: a key Claude Code documents is named as unsupported, any other as unknown. */
function unactedKeys(
  path: string,
  prefix: string,
  object: Readonly<Record<string, unknown>>,
  honouredKeys: ReadonlySet<string>,
  documentedKeys: ReadonlySet<string>,
): string[] {
  const kind = prefix === "" ? "settings" : "permissions";
  return Object.keys(object)
    .filter((key) => !honouredKeys.has(key))
    .map((key) =>
      documentedKeys.has(key)
        ? `${path}: "${prefix}${key}" is not supported by minagent (ignored)`
        : `${path}: "${prefix}${key}" is not a ${kind} key minagent or Claude Code knows (a typo?); ignored`,
    );
}
