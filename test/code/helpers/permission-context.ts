import type { PermissionContext, Tool } from "../../../src/index.js";

/** A tool that does nothing: what a permission check is asked about when only its name (and read-only flag) matter. */
export function stubTool(name: string, readOnly = false): Tool {
  return { name, description: "", parameters: {}, ...(readOnly && { readOnly }), execute: () => "" };
}

/**
 * The context `canUseTool` gets for a call in the run "run": of `tool`, or of a stub tool of that name (default Bash),
 * with `needsApproval` as the tool's own `needsApproval` would say.
 */
export function permissionContext(tool: Tool | string = "Bash", needsApproval = false): PermissionContext {
  return {
    runId: "run",
    tool: typeof tool === "string" ? stubTool(tool) : tool,
    signal: new AbortController().signal,
    needsApproval,
  };
}
