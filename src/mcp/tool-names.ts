import { createHash } from "node:crypto";

const maxToolNameLength = 64;

/**
 * The name the model calls an MCP tool by: `mcp__<server>__<tool>`, Claude Code's form, so that permission rules
 * such as `mcp__github__*` carry over. Characters a model API refuses in a tool name become `_`; a name longer than
 * the 64 characters APIs accept is cut and given a short hash of the whole, so two long names stay apart.
 */
export function mcpToolName(server: string, tool: string): string {
  const name = `mcp__${server}__${tool.replace(/[^A-Za-z0-9_-]/g, "_")}`;
  if (name.length <= maxToolNameLength) return name;
  const hash = createHash("sha256").update(name).digest("hex").slice(0, 8);
  return `${name.slice(0, maxToolNameLength - hash.length - 1)}_${hash}`;
}
