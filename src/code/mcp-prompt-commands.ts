import type { McpPrompt, McpServers } from "../mcp/index.js";
import { parsePromptArguments } from "../mcp/index.js";

/** Whether a slash command's name is of the form MCP prompts take (`mcp__<server>__<prompt>`). */
export function isMcpPromptCommand(name: string): boolean {
  return name.startsWith("mcp__");
}

/**
 * The prompts of the ready servers that offer prompts, as slash commands (`/mcp__<server>__<prompt>`). A server whose
 * listing fails is left out, so that one broken server does not hide the others' prompts from /help.
 */
export async function listMcpPrompts(mcp: McpServers | undefined): Promise<McpPrompt[]> {
  if (!mcp) return [];
  const servers = mcp.status().filter(({ state }) => state === "ready");
  const lists = await Promise.allSettled(servers.map(({ name }) => mcp.listPrompts(name)));
  return lists.flatMap((list) => (list.status === "fulfilled" ? list.value : []));
}

/**
 * The user's turn an MCP prompt's slash command makes (`/mcp__everything__args-prompt Paris`): its arguments read
 * positionally in the order the prompt declares them, or as `name=value`, and the server's messages as text (redacted).
 * Undefined when no ready server has a prompt of that name; throws a UsageError for arguments that do not fit, and
 * a ToolError when the server refuses.
 */
export async function expandMcpPrompt(
  mcp: McpServers | undefined,
  name: string,
  args: string,
  options: { signal?: AbortSignal | undefined } = {},
): Promise<string | undefined> {
  const prompt = (await listMcpPrompts(mcp)).find((candidate) => candidate.command === name);
  if (!prompt || !mcp) return undefined;
  return mcp.getPromptText(prompt.server, prompt.name, parsePromptArguments(prompt, args), options);
}
