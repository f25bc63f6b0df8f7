import { type ChildProcess, spawn } from "node:child_process";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { McpStdioServerConfig } from "../../src/mcp/index.js";

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
  const child: ChildProcess = spawn(process.execPath, ["--import", join(fixtures, "loopback-only.mjs"), serverScript("everything"), mode], {
    env: { ...process.env, PORT: "0" },
    stdio: ["ignore", "ignore", "pipe"],
  });
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once("exit", resolve));
    if (child.pid) process.kill(child.pid, "SIGKILL");
    await exited;
  };
  let output = "";
  try {
    const port = await new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`server-everything ${mode} did not listen within 15 s: ${output}`)), 15_000);
      child.stderr?.on("data", (chunk: Buffer) => {
        output += chunk.toString();
        const match = /LISTENING (\d+)/.exec(output);
        if (match) {
          clearTimeout(timer);
          resolve(Number(match[1]));
        }
      });
      child.once("exit", (code) => reject(new Error(`server-everything ${mode} exited (${code}): ${output}`)));
    });
    return { url: `http://127.0.0.1:${port}/${mode === "sse" ? "sse" : "mcp"}`, stop, output: () => output };
  } catch (error) {
    await stop();
    throw error;
  }
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
