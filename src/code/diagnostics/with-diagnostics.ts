import type { Tool, ToolParameters } from "../../engine.js";
import type { Diagnostics } from "./diagnostics.js";

/** The argument naming the file each file tool changes (Claude Code's names). */
const fileArguments: Readonly<Record<string, string>> = {
  Write: "file_path",
  Edit: "file_path",
  MultiEdit: "file_path",
  NotebookEdit: "notebook_path",
};

/**
 * The tool, with the errors its change brings to a file appended to its result: for a file tool (Write, Edit,
 * MultiEdit, NotebookEdit) whose file a language server serves, the server's new errors for that file after the
 * change (see {@link Diagnostics.around}). Read starts the diagnosis of the file it read, in the background
 * ({@link Diagnostics.prefetch}). Other tools, and results that are not text, pass untouched.
 */
export function withDiagnostics<P extends ToolParameters>(
  tool: Tool<P>,
  diagnostics: Diagnostics,
  resolvePath: (path: string) => Promise<string>,
): Tool<P> {
  if (tool.name === "Read") return withPrefetch(tool, diagnostics, resolvePath);
  const fileArgument = fileArguments[tool.name];
  if (fileArgument === undefined) return tool;
  const execute: Tool<P>["execute"] = async (args, context) => {
    const named = (args as Record<string, unknown>)[fileArgument];
    const path = typeof named === "string" ? await resolvePath(named).catch(() => undefined) : undefined;
    // A path the tool will refuse changes nothing: the tool says why.
    if (path === undefined || !diagnostics.serves(path)) return tool.execute(args, context);
    const { value, report } = await diagnostics.around(path, () => Promise.resolve(tool.execute(args, context)));
    return typeof value === "string" && report !== undefined ? `${value}\n\n${report}` : value;
  };
  return Object.create(tool, { execute: { value: execute, enumerable: true, writable: true, configurable: true } }) as Tool<P>;
}

/** Read, starting the file's first diagnosis once it has read it: an edit usually follows a Read. */
function withPrefetch<P extends ToolParameters>(
  tool: Tool<P>,
  diagnostics: Diagnostics,
  resolvePath: (path: string) => Promise<string>,
): Tool<P> {
  const execute: Tool<P>["execute"] = async (args, context) => {
    const result = await tool.execute(args, context);
    const named = (args as Record<string, unknown>).file_path;
    const path = typeof named === "string" ? await resolvePath(named).catch(() => undefined) : undefined;
    if (path !== undefined && diagnostics.serves(path)) diagnostics.prefetch(path);
    return result;
  };
  return Object.create(tool, { execute: { value: execute, enumerable: true, writable: true, configurable: true } }) as Tool<P>;
}
