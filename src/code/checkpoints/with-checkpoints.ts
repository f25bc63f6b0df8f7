import { isReadOnlyCall, type Tool, type ToolParameters } from "../../engine.js";
import type { Checkpoints } from "./checkpoints.js";

/** The argument naming the file each file tool changes (Claude Code's names). */
const fileArguments: Readonly<Record<string, string>> = {
  Write: "file_path",
  Edit: "file_path",
  MultiEdit: "file_path",
  NotebookEdit: "notebook_path",
};

/** Tools whose effects are their children's, recorded there: a subagent's tools are wrapped themselves. */
const recordedElsewhere = new Set(["Agent", "Task"]);

/**
 * The tool, with its changes recorded in the checkpoints: a file tool's change of the file it names (resolved as
 * the tool resolves it), any other call that may change things (Bash, an MCP tool not marked read-only, a tool of
 * the program's) as a command, with a scan of the workspace before and after. Read-only tools and calls pass
 * untouched, except Bash's: every shell command is scanned around.
 */
export function withCheckpoints<P extends ToolParameters>(
  tool: Tool<P>,
  checkpoints: Checkpoints,
  resolvePath: (path: string) => Promise<string>,
): Tool<P> {
  if (tool.readOnly === true && tool.readOnlyCall === undefined) return tool;
  if (recordedElsewhere.has(tool.name)) return tool;
  const fileArgument = fileArguments[tool.name];
  const execute: Tool<P>["execute"] = async (args, context) => {
    const values = args as Record<string, unknown>;
    // A shell command is scanned around even when judged read-only: the judge reads its text, not what it does.
    if (tool.name !== "Bash" && isReadOnlyCall(tool, values)) return tool.execute(args, context);
    const named = fileArgument === undefined ? undefined : values[fileArgument];
    if (typeof named === "string") {
      const path = await resolvePath(named).catch(() => undefined);
      // A path the tool will refuse changes nothing: the tool says why.
      if (path === undefined) return tool.execute(args, context);
      return checkpoints.trackFileChange(path, tool.name, () => Promise.resolve(tool.execute(args, context)));
    }
    return checkpoints.trackCommand(tool.name, () => Promise.resolve(tool.execute(args, context)));
  };
  return Object.create(tool, { execute: { value: execute, enumerable: true, writable: true, configurable: true } }) as Tool<P>;
}
