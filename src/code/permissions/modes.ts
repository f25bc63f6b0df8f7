/**
 * Claude Code's permission modes: what runs without a rule when no rule matches.
 * - `default`: read-only work inside the workspace (Read, Grep, Glob, tools marked `readOnly`, read-only shell
 *   commands such as `ls` or `cat` on workspace paths); anything else asks.
 * - `acceptEdits`: also file edits inside the workspace (Write, Edit, redirections to files) and the file-system
 *   commands `mkdir`, `touch`, `rm`, `rmdir`, `mv`, `cp` on workspace paths; writes under `.git`, `.minagent`,
 *   `.vscode` and `.idea` still ask.
 * - `plan`: read-only work only; anything else is denied (plan mode's tools end it, see `createCodePermissions`).
 * - `dontAsk`: only what an allow rule allows; everything else — asks included — is denied.
 * - `bypassPermissions`: everything runs except what a deny rule forbids (ask rules still ask).
 */
export type PermissionMode = "default" | "acceptEdits" | "plan" | "dontAsk" | "bypassPermissions";

/** Every permission mode, in the order the documentation lists them. */
export const permissionModes: readonly PermissionMode[] = Object.freeze(["default", "acceptEdits", "plan", "dontAsk", "bypassPermissions"]);

/** True when `value` names a permission mode. */
export function isPermissionMode(value: unknown): value is PermissionMode {
  return typeof value === "string" && (permissionModes as readonly string[]).includes(value);
}

/**
 * The mode after `mode` when a person cycles modes (Claude Code's shift-tab): default → acceptEdits → plan →
 * default. dontAsk and bypassPermissions, which are chosen deliberately at start, cycle back to default.
 */
export function nextPermissionMode(mode: PermissionMode): PermissionMode {
  return mode === "default" ? "acceptEdits" : mode === "acceptEdits" ? "plan" : "default";
}
