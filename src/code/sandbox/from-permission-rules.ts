import { ruleCoversTool } from "../permissions/file-tools.js";
import type { LoadedPermissionSettings } from "../permissions/settings.js";
import type { ReadDenial } from "./find-denied-paths.js";

/**
 * What the permission rules say to the sandbox: the files `Read(…)` deny rules cover (hidden from commands too, by
 * any route), the hosts `WebFetch(domain:…)` allow rules open, and the model APIs whose keys the agent holds (closed
 * unless an entry names them exactly).
 */
export function sandboxOptionsFromRules(permissions: { settings: Pick<LoadedPermissionSettings, "rules"> }): {
  readDenials: ReadDenial[];
  allowedDomains: string[];
  closedHosts: string[];
} {
  const { rules } = permissions.settings;
  const readDenials: ReadDenial[] = [];
  for (const rule of rules.deny) {
    if (rule.target.kind !== "path" || !ruleCoversTool(rule.tool, "Read")) continue;
    const pattern = rule.target.pattern;
    readDenials.push({
      isDenied: (path) => pattern.matches(path),
      isDeniedDirectory: (path) => pattern.matchesDirectory(path),
      mayDenyInside: (directory) => pattern.mayMatchInside(directory),
    });
  }
  const allowedDomains = rules.allow.flatMap((rule) => (rule.target.kind === "domain" ? [rule.target.domain] : []));
  return { readDenials, allowedDomains, closedHosts: modelApiHosts(process.env) };
}

/** The model APIs the agent may hold keys for: the providers' own, and any base URL the environment points them at. */
function modelApiHosts(env: Readonly<Record<string, string | undefined>>): string[] {
  const hosts = new Set(["api.anthropic.com", "api.openai.com", "generativelanguage.googleapis.com"]);
  for (const name of ["ANTHROPIC_BASE_URL", "OPENAI_BASE_URL"]) {
    const value = env[name];
    if (!value) continue;
    try {
      hosts.add(new URL(value).host.toLowerCase());
    } catch {
      // not a URL: the provider refuses it itself
    }
  }
  return [...hosts];
}
