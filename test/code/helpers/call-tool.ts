import { type Tool, ToolRegistry, type ToolResult } from "../../../src/index.js";

/** Executes one call of `tool` through a registry, as the loop does, and returns what the model would read. */
export async function callTool(tool: Tool, args: Record<string, unknown>, signal?: AbortSignal): Promise<ToolResult> {
  const outcome = await new ToolRegistry().add(tool).execute({ id: "1", name: tool.name, arguments: args }, { signal });
  if ("pending" in outcome) throw new Error("unexpected pending call");
  return outcome;
}
