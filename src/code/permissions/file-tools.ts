/** What a file tool does to its path: `Read(…)` rules cover readers, `Edit(…)` rules cover editors. */
export type FileAccess = "read" | "edit";

/** A tool that works on one path, and where its arguments name it. */
export type FileTool = {
  access: FileAccess;
  /** The argument holding the path. */
  pathField: string;
  /** A search over a directory (absent path: the workspace root). */
  searches: boolean;
};

/**
 * Claude Code's file tools by name. `Read(…)` rules apply to every reader and `Edit(…)` rules to every editor, as
 * Claude Code does; a rule naming another of these tools (`Write(…)`, `Grep(…)`) applies to that tool only.
 */
export const fileTools: Readonly<Record<string, FileTool>> = Object.freeze({
  Read: { access: "read", pathField: "file_path", searches: false },
  Grep: { access: "read", pathField: "path", searches: true },
  Glob: { access: "read", pathField: "path", searches: true },
  LS: { access: "read", pathField: "path", searches: true },
  NotebookRead: { access: "read", pathField: "notebook_path", searches: false },
  Write: { access: "edit", pathField: "file_path", searches: false },
  Edit: { access: "edit", pathField: "file_path", searches: false },
  MultiEdit: { access: "edit", pathField: "file_path", searches: false },
  NotebookEdit: { access: "edit", pathField: "notebook_path", searches: false },
});

/** The file tool called `name`, if it is one. */
export function fileToolNamed(name: string): FileTool | undefined {
  return Object.hasOwn(fileTools, name) ? fileTools[name] : undefined;
}

/**
 * Whether a rule written for `ruleTool` applies to a call of `callTool`: the same tool, or `Read` for any reader
 * and `Edit` for any editor. `access` stands for a shell command's own file access (a redirection, `cat`, `rm`),
 * which `Read(…)` rules cover when it reads, and `Edit(…)` or `Write(…)` rules when it writes.
 */
export function ruleCoversTool(ruleTool: string, callTool: string): boolean {
  if (ruleTool === callTool) return true;
  // Claude Code's older name of the Agent tool; its MultiEdit, whose edits minagent's Edit makes.
  if (ruleTool === "Task" && callTool === "Agent") return true;
  if (ruleTool === "MultiEdit" && callTool === "Edit") return true;
  const family = ruleTool === "Read" ? "read" : ruleTool === "Edit" ? "edit" : undefined;
  return family !== undefined && fileToolNamed(callTool)?.access === family;
}

/** Whether a rule written for `ruleTool` applies to a shell command's read or write of a file. */
export function ruleCoversAccess(ruleTool: string, access: FileAccess): boolean {
  return access === "read" ? ruleTool === "Read" : ruleTool === "Edit" || ruleTool === "Write";
}
