/**
 * What MCP needs of an OS sandbox to run a stdio server confined: whether it is on (and why not), and a way to
 * confine a program. `createSandbox` from `minagent/code` makes one; declared here, by its shape, so that MCP
 * depends on no coding-agent module (minagent/code builds on minagent/mcp, not the other way).
 */
export type McpSandbox = {
  readonly status: {
    /** Programs run inside the OS sandbox. */
    readonly enabled: boolean;
    /** The settings or flags asked for it (false: turned off on purpose). */
    readonly requested: boolean;
    /** Why it is not enabled although requested (what is missing). */
    readonly problem: string | undefined;
  };
  /**
   * Wraps a long-running program started by someone else's spawn (the MCP SDK's) so that it runs confined: the
   * command line to spawn instead, and `release`, to call once the program has ended.
   */
  confineProgram(program: {
    command: string;
    args: readonly string[];
    cwd: string;
    env: Readonly<Record<string, string | undefined>>;
  }): Promise<{ command: string; args: string[]; env: Record<string, string | undefined>; release(): Promise<void> }>;
};

/** Why a server that asked for the sandbox cannot have it. */
export function sandboxUnavailableReason(sandbox: McpSandbox | undefined): string {
  if (!sandbox) return "no sandbox was given to connectMcpServers";
  if (sandbox.status.problem) return sandbox.status.problem;
  if (!sandbox.status.requested) return "the sandbox is turned off (sandbox.enabled is false, or --no-sandbox)";
  return "the sandbox is not enabled";
}
