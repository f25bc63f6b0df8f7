import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach } from "vitest";
import { connectMcpServers, type McpServers, type McpStdioServerConfig } from "../../src/mcp/index.js";
import { startListeningServer } from "./listening-server.js";

const require = createRequire(import.meta.url);
const fixtures = join(dirname(fileURLToPath(import.meta.url)), "fixtures");

/** The entry script of a reference server installed from the npm registry. */
function serverScript(name: "everything" | "filesystem" | "memory"): string {
  return join(dirname(require.resolve(`@modelcontextprotocol/server-${name}/package.json`)), "dist", "index.js");
}

/** The reference servers over stdio, run by this Node (22 or 24 in CI), as a `.mcp.json` entry would start them. */
export const referenceServers = {
  everything: (): McpStdioServerConfig => ({ command: process.execPath, args: [serverScript("everything"), "stdio"] }),
  filesystem: (...roots: string[]): McpStdioServerConfig => ({ command: process.execPath, args: [serverScript("filesystem"), ...roots] }),
  memory: (file: string): McpStdioServerConfig => ({
    command: process.execPath,
    args: [serverScript("memory")],
    env: { MEMORY_FILE_PATH: file },
  }),
  /** The SDK-built fixture whose tool list changes on request. */
  changingTools: (): McpStdioServerConfig => ({ command: process.execPath, args: [join(fixtures, "changing-tools-server.mjs")] }),
  /** The SDK-built fixture that sleeps, crashes (leaving a helper that holds its output open, on request) and echoes. */
  misbehaving: (env: Record<string, string> = {}): McpStdioServerConfig => ({
    command: process.execPath,
    args: [join(fixtures, "misbehaving-server.mjs")],
    env,
  }),
  /**
   * The SDK-built fixture whose log messages (a debug and a warning one at each call of `work`), prompt `whoami` and
   * resource `token://current` hold `token`, its API_TOKEN.
   */
  tokenHolding: (token: string): McpStdioServerConfig => ({
    command: process.execPath,
    args: [join(fixtures, "token-holding-server.mjs")],
    env: { API_TOKEN: token },
  }),
  /** A server started through a recorder that copies what the client writes to `log`. */
  recorded: (log: string, server: McpStdioServerConfig): McpStdioServerConfig => ({
    command: process.execPath,
    args: [join(fixtures, "record-stdin.mjs"), log, server.command, ...(server.args ?? [])],
    ...(server.env && { env: server.env }),
  }),
};

/** server-everything in one of its HTTP modes, held to 127.0.0.1 on a free port. Stop it when done. */
export async function startEverythingOverHttp(
  mode: "streamableHttp" | "sse",
): Promise<{ url: string; stop: () => Promise<void>; output: () => string }> {
  const server = await startListeningServer(
    `server-everything ${mode}`,
    ["--import", join(fixtures, "loopback-only.mjs"), serverScript("everything"), mode],
    {
      ...process.env,
      PORT: "0",
    },
  );
  return { url: `http://127.0.0.1:${server.port}/${mode === "sse" ? "sse" : "mcp"}`, stop: server.stop, output: server.output };
}

/** Waits until `check` is true, polling; fails with `what` after `timeoutMs`. */
export async function waitFor(check: () => boolean, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** True while a process with this id exists. */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * For a test file: a fresh temporary folder per test, and `connect`, which is connectMcpServers with every servers'
 * set it opens closed after the test (before the folder is removed).
 */
export function useMcpScratch(prefix: string): { folder: () => string; connect: typeof connectMcpServers } {
  let folder = "";
  let opened: McpServers[] = [];
  beforeEach(() => {
    folder = mkdtempSync(join(tmpdir(), prefix));
    opened = [];
  });
  afterEach(async () => {
    await Promise.all(opened.map((mcp) => mcp.close()));
    rmSync(folder, { recursive: true, force: true });
  });
  return {
    folder: () => folder,
    connect: async (...args) => {
      const mcp = await connectMcpServers(...args);
      opened.push(mcp);
      return mcp;
    },
  };
}
