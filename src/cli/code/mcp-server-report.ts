import type { McpServerState } from "../../mcp/mcp-server-types.js";
import type { McpServerStatus } from "../../mcp/mcp-servers.js";

/**
 * An MCP server as a `-p` run reports it (`mcp_servers` in the JSON result and in stream-json's `session-start`).
 * `status` is Claude Code's word (`claude -p --output-format stream-json` lists `{ name, status }` in its init
 * event), so that scripts written for it read ours; `state` is minagent's own, finer one.
 */
export type PrintMcpServer = {
  name: string;
  /**
   * `connected` (ready), `pending` (still starting, or restarting), `needs-auth` (it needs an OAuth login), `failed`
   * (failed, stopped, unavailable, closed).
   */
  status: "connected" | "pending" | "needs-auth" | "failed";
  state: McpServerState;
  /** Why it is not ready, when it is not. */
  problem?: string;
};

const statuses: Record<McpServerState, PrintMcpServer["status"]> = {
  ready: "connected",
  starting: "pending",
  restarting: "pending",
  crashed: "failed",
  failed: "failed",
  "needs-login": "needs-auth",
  unavailable: "failed",
  closed: "failed",
};

/** The servers as `mcp_servers` lists them. */
export function describePrintMcpServers(servers: readonly McpServerStatus[]): PrintMcpServer[] {
  return servers.map((server) => ({
    name: server.name,
    status: statuses[server.state],
    state: server.state,
    ...(server.problem !== undefined && { problem: server.problem }),
  }));
}

/**
 * The line for a server, for stderr: one that is not ready says why and what becomes of its tools; a ready one
 * (said only with `--verbose`) how many tools it brings.
 */
export function mcpServerLine(server: McpServerStatus): string {
  const name = `MCP server "${server.name}"`;
  const problem = server.problem ?? "no reason given";
  switch (server.state) {
    case "ready":
      return `${name} ready: ${server.tools.length} tools`;
    case "starting":
    case "restarting":
      return `${name} is still starting; its tools join the run when it is ready`;
    case "crashed":
      return `${name} stopped: ${problem}; the next call to one of its tools restarts it`;
    case "failed":
      return `${name} failed: ${problem}. Its tools are not available in this run`;
    case "needs-login":
      return `${name} needs a login: ${problem.replace(/^it needs an OAuth login: /, "")}. Its tools are not available in this run`;
    default:
      return `${name} is ${server.state}: ${problem}. Its tools are not available in this run`;
  }
}
