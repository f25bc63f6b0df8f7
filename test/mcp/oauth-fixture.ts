import { type ChildProcess, spawn } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const fixtures = join(dirname(fileURLToPath(import.meta.url)), "fixtures");

/**
 * A stand-in browser for `$BROWSER`: given a login's URL, it opens the page and follows the authorization server's
 * redirect back to minagent's 127.0.0.1 listener, as a person's browser would.
 */
export const standInBrowserProgram = join(fixtures, "stand-in-browser.mjs");

/** The OAuth-protected MCP server of fixtures/oauth-server.mjs, running. */
export type OAuthServer = { url: string; output: () => string; stop: () => Promise<void> };

/** Starts fixtures/oauth-server.mjs with `flags` on a free port of 127.0.0.1. Stop it when done (by its pid). */
export async function startOAuthFixture(...flags: string[]): Promise<OAuthServer> {
  const child: ChildProcess = spawn(process.execPath, [join(fixtures, "oauth-server.mjs"), ...flags], {
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
      const timer = setTimeout(() => reject(new Error(`the OAuth fixture did not listen within 15 s: ${output}`)), 15_000);
      child.stderr?.on("data", (chunk: Buffer) => {
        output += chunk.toString();
        const match = /LISTENING (\d+)/.exec(output);
        if (match) {
          clearTimeout(timer);
          resolve(Number(match[1]));
        }
      });
      child.once("exit", (code) => reject(new Error(`the OAuth fixture exited (${code}): ${output}`)));
    });
    return { url: `http://127.0.0.1:${port}/mcp`, output: () => output, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
