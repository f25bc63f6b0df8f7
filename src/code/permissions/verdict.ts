import type { PermissionRule } from "./parse-rule.js";

/**
 * A decision before the mode's last word: `ask` may still become a denial (dontAsk mode; plan mode when the call
 * `changes` things). `byMode` says an allow came (at least partly) from the mode rather than from rules, so a
 * tool's own `needsApproval` still asks.
 */
export type Verdict =
  | { behavior: "allow"; reason: string; rule?: PermissionRule | undefined; byMode?: boolean | undefined }
  | { behavior: "ask"; reason: string; rule?: PermissionRule | undefined; changes?: boolean | undefined }
  | { behavior: "deny"; message: string; rule?: PermissionRule | undefined };
