import { readFile } from "node:fs/promises";
import { UsageError } from "../errors.js";
import { type ResolvedMcpServer, resolveMcpConfig, type VariableSource } from "./config.js";

/** One file to read servers from. */
export type McpConfigFile = {
  path: string;
  /** A missing file is an error (a file the user named) rather than nothing to read (a file looked for). */
  required?: boolean | undefined;
};

/**
 * Reads `.mcp.json` files, least specific first (the user's, the project's, then those named on the command line):
 * a server named again in a later file replaces the earlier one. Malformed JSON or shape is a UsageError naming the
 * file; a server with its own problem (an unset `${VAR}`) is returned with that problem, and does not start.
 */
export async function readMcpConfigFiles(files: readonly McpConfigFile[], variables: VariableSource): Promise<ResolvedMcpServer[]> {
  const servers = new Map<string, ResolvedMcpServer>();
  for (const file of files) {
    const text = await readOptional(file);
    if (text === undefined) continue;
    let document: unknown;
    try {
      document = JSON.parse(text);
    } catch (error) {
      throw new UsageError(`${file.path} is not valid JSON (${(error as Error).message}); fix it or remove it.`);
    }
    for (const server of resolveMcpConfig(document, file.path, variables)) {
      servers.delete(server.name);
      servers.set(server.name, server);
    }
  }
  return [...servers.values()];
}

async function readOptional(file: McpConfigFile): Promise<string | undefined> {
  try {
    return await readFile(file.path, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" && !file.required) return undefined;
    if (code === "ENOENT") throw new UsageError(`The MCP config ${file.path} does not exist.`);
    throw new UsageError(`Cannot read the MCP config ${file.path}: ${(error as Error).message}`);
  }
}
