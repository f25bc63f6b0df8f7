import { type CanUseTool, isReadOnlyCall, type PermissionDecision } from "../../engine.js";
import { toOneLine } from "../../text.js";
import { type HookRunner, withPreToolUseHooks } from "../hooks/index.js";
import { loadBashParser } from "../permissions/bash-parser.js";
import type { PermissionMode } from "../permissions/modes.js";
import { isReadOnlyBashCommand } from "./read-only-bash.js";

/** What a subagent's permission check is made of. */
export type SubagentPermissionParts = {
  /** The subagent type's name, for the messages its model reads. */
  subagent: string;
  /** Its agent file's `permissionMode`. */
  permissionMode: PermissionMode | undefined;
  /** The session's check: rules, mode, hooks, a person. Without it, a tool's `needsApproval` asks. */
  canUseTool: CanUseTool | undefined;
  /** Decides as the session's rules and mode would, asking nobody (for `dontAsk`). Without it, the session's check is asked. */
  judge: CanUseTool | undefined;
  /** Its agent file's hooks: their PreToolUse hooks run first. */
  hooks: HookRunner | undefined;
};

const allow: PermissionDecision = Object.freeze({ behavior: "allow" });

/**
 * A subagent's permission check: its own PreToolUse hooks (a deny stands; a rewrite is what the rest judges), then
 * its file's mode where that narrows the session's — `plan` denies what may change things (read-only shell commands
 * run, as in plan mode), `dontAsk` denies what the session would ask about — then the session's check. Modes that
 * would loosen the session's (`acceptEdits`, `bypassPermissions`) add nothing: a file cannot widen what the person
 * allowed, so every call still meets the session's rules and mode.
 */
export function subagentCanUseTool(parts: SubagentPermissionParts): CanUseTool {
  const session: CanUseTool = parts.canUseTool ?? ((_call, context) => (context.needsApproval ? { behavior: "ask" } : allow));
  const narrowed = narrowToMode(parts, session);
  return parts.hooks?.hasHooks("PreToolUse") ? withPreToolUseHooks(parts.hooks, narrowed) : narrowed;
}

function narrowToMode(parts: SubagentPermissionParts, session: CanUseTool): CanUseTool {
  const { permissionMode: mode, subagent } = parts;
  if (mode === "plan")
    return async (call, context) => {
      const readOnly =
        call.name === "Bash"
          ? isReadOnlyBashCommand(await loadBashParser(), typeof call.arguments.command === "string" ? call.arguments.command : "")
          : isReadOnlyCall(context.tool, call.arguments);
      if (readOnly) return session(call, context);
      return {
        behavior: "deny",
        message: `The ${subagent} subagent runs in plan mode (its permissionMode): "${call.name}"${call.name === "Bash" ? ` (\`${toOneLine(String(call.arguments.command ?? ""), 80)}\`)` : ""} may change things, so it is not allowed. Use read-only tools, and end with a report of what should be done.`,
      };
    };
  if (mode === "dontAsk")
    return async (call, context) => {
      const judged = await (parts.judge ?? session)(call, context);
      if (judged.behavior === "deny") return judged;
      if (judged.behavior === "ask")
        return {
          behavior: "deny",
          message: `Permission denied: the ${subagent} subagent runs in dontAsk mode (its permissionMode), which denies whatever no allow rule allows${judged.reason ? ` (${judged.reason})` : ""}. Do without this call, or report that it is needed.`,
        };
      return parts.judge ? session(call, context) : judged;
    };
  return session;
}
