import { type ChildProcess, spawn } from "node:child_process";

/** A server process that said which port of 127.0.0.1 it listens on; stop it when done (by its pid). */
export type ListeningServer = { port: number; output: () => string; stop: () => Promise<void> };

/**
 * Runs `node <args>` and waits (15 s at most) for the `LISTENING <port>` line it writes on stderr, as the test
 * servers here do (fixtures/oauth-server.mjs; fixtures/loopback-only.mjs for a reference server). `name` is for
 * messages. A server that exits or stays silent is stopped and the promise rejects with what it printed.
 */
export async function startListeningServer(
  name: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<ListeningServer> {
  const child: ChildProcess = spawn(process.execPath, args, { env, stdio: ["ignore", "ignore", "pipe"] });
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once("exit", resolve));
    if (child.pid) process.kill(child.pid, "SIGKILL");
    await exited;
  };
  let output = "";
  try {
    const port = await new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${name} did not listen within 15 s: ${output}`)), 15_000);
      child.stderr?.on("data", (chunk: Buffer) => {
        output += chunk.toString();
        const match = /LISTENING (\d+)/.exec(output);
        if (match) {
          clearTimeout(timer);
          resolve(Number(match[1]));
        }
      });
      child.once("exit", (code) => reject(new Error(`${name} exited (${code}): ${output}`)));
    });
    return { port, output: () => output, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
