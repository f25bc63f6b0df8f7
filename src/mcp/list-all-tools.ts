import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { McpToolDefinition } from "./mcp-server-types.js";

/** Every page of the server's tool list. */
export async function listAllTools(client: Client, options: { timeout: number; signal: AbortSignal }): Promise<McpToolDefinition[]> {
  const tools: McpToolDefinition[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor === undefined ? {} : { cursor }, options);
    tools.push(...(page.tools as McpToolDefinition[]));
    cursor = page.nextCursor;
  } while (cursor);
  return tools;
}
