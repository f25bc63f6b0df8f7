import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ToolError } from "../errors.js";
import type { McpServerConnection } from "./mcp-server-connection.js";
import { describeMcpToolResult } from "./tool-result.js";

/** A resource a server lists (`resources/list`). */
export type McpResource = {
  /** The server's name in the config. */
  server: string;
  uri: string;
  name: string;
  title?: string | undefined;
  description?: string | undefined;
  mimeType?: string | undefined;
  /** Its size in bytes, when the server says. */
  size?: number | undefined;
};

/** A family of resources a server can read, named by a URI template (RFC 6570: `demo://resource/dynamic/text/{resourceId}`). */
export type McpResourceTemplate = {
  server: string;
  uriTemplate: string;
  name: string;
  title?: string | undefined;
  description?: string | undefined;
  mimeType?: string | undefined;
};

/** One part of what reading a resource gave: text, or binary data in base64. */
export type McpResourceContents = { uri: string; mimeType?: string | undefined; text?: string | undefined; blob?: string | undefined };

/** Every page of a server's resource list. */
export async function listResourcesOf(connection: McpServerConnection): Promise<McpResource[]> {
  const resources: McpResource[] = [];
  await askServer(connection, "list its resources", async (client) => {
    let cursor: string | undefined;
    do {
      const page = await client.listResources(cursor === undefined ? {} : { cursor });
      for (const resource of page.resources) resources.push({ ...withoutMeta(resource), server: connection.name } as McpResource);
      cursor = page.nextCursor;
    } while (cursor);
  });
  return resources;
}

/** Every page of a server's resource templates. */
export async function listResourceTemplatesOf(connection: McpServerConnection): Promise<McpResourceTemplate[]> {
  const templates: McpResourceTemplate[] = [];
  await askServer(connection, "list its resource templates", async (client) => {
    let cursor: string | undefined;
    do {
      const page = await client.listResourceTemplates(cursor === undefined ? {} : { cursor });
      for (const template of page.resourceTemplates)
        templates.push({ ...withoutMeta(template), server: connection.name } as McpResourceTemplate);
      cursor = page.nextCursor;
    } while (cursor);
  });
  return templates;
}

/** What the server gives for `uri` (`resources/read`). */
export async function readResourceOf(
  connection: McpServerConnection,
  uri: string,
  signal: AbortSignal | undefined,
): Promise<McpResourceContents[]> {
  const result = await askServer(connection, `read ${uri}`, (client) => client.readResource({ uri }, signal ? { signal } : undefined));
  return result.contents as McpResourceContents[];
}

/**
 * A resource's contents as text: text parts as they are, each under a line naming its uri when there are several;
 * binary parts described by type and size, since text is what a model or a prompt takes.
 */
export function describeResourceContents(contents: readonly McpResourceContents[]): string {
  if (contents.length === 1 && typeof contents[0]?.text === "string") return contents[0].text;
  if (contents.length === 0) return "(the resource is empty)";
  return describeMcpToolResult({ content: contents.map((resource) => ({ type: "resource", resource })) });
}

/**
 * Runs a request with the server's client; what the server answers with an error becomes a ToolError naming the
 * server and what was asked, its secrets redacted. An abort is rethrown as it came.
 */
export async function askServer<T>(connection: McpServerConnection, what: string, request: (client: Client) => Promise<T>): Promise<T> {
  return connection.withClient(async (client) => {
    try {
      return await request(client);
    } catch (error) {
      if (error instanceof ToolError || (error as { name?: unknown }).name === "AbortError") throw error;
      const message = error instanceof Error ? error.message : String(error);
      throw new ToolError(`MCP server "${connection.name}" could not ${what}: ${connection.redact(message)}`);
    }
  });
}

/** `_meta` is protocol bookkeeping, not something a person or a model reads. */
function withoutMeta<T extends object>(value: T): Omit<T, "_meta"> {
  const { _meta, ...rest } = value as T & { _meta?: unknown };
  return rest;
}
