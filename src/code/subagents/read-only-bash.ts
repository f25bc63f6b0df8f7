import type { CanUseTool, PermissionDecision, Tool } from "../../engine.js";
import { toOneLine } from "../../text.js";
import { analyzeBashCommand } from "../permissions/bash-commands.js";
import { type BashParser, loadBashParser } from "../permissions/bash-parser.js";
import { isReadOnlyBashLine } from "../permissions/judge-bash.js";

const allow: PermissionDecision = Object.freeze({ behavior: "allow" });

/**
 * Whether a command line only reads, as the permission modes judge it (the Bash judge's own classification,
 * `isReadOnlyBashLine`): it parses and can be judged (no `eval`, `bash -c`, `xargs`, `$CMD`…), every simple command
 * is one the modes know as read-only (`ls`, `cat`, `grep`, `head`, `wc`… — not `git`, `find`, `sed` or `sort`, which
 * can write or run programs), no assignment (prefix, `printf -v`, `read`, `declare`…) can change what runs, and no
 * redirection writes a file. Where it reads is for the permissions to judge.
 */
export function isReadOnlyBashCommand(parser: BashParser, commandLine: string): boolean {
  return isReadOnlyBashLine(analyzeBashCommand(parser, commandLine));
}

/**
 * A registry check for a read-only subagent: it denies a Bash call whose command may change things (see
 * {@link isReadOnlyBashCommand}), before the session's permissions are asked — so the person is never asked about
 * a command the subagent may not run anyway. Other calls pass to the next check.
 */
export function readOnlyBashCheck(subagent: string): CanUseTool {
  return async (call) => {
    if (call.name !== "Bash") return allow;
    const command = typeof call.arguments.command === "string" ? call.arguments.command : "";
    if (isReadOnlyBashCommand(await loadBashParser(), command)) return allow;
    return {
      behavior: "deny",
      message: `The ${subagent} subagent is read-only: it may run only read-only shell commands (ls, cat, head, tail, grep, wc, stat, diff…), and \`${toOneLine(command, 80)}\` may change things or run other programs. Use Read, Grep and Glob, or report what should be run.`,
    };
  };
}

/**
 * The Bash tool as a read-only subagent has it: marked read-only (its check keeps it so), so its calls overlap with
 * other reads. A new object whose prototype is the tool, so a wrapped tool's inherited fields stay (PostToolUse hooks).
 */
export function asReadOnlyTool(tool: Tool): Tool {
  return tool.readOnly ? tool : (Object.create(tool, { readOnly: { value: true, enumerable: true } }) as Tool);
}
