import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";

// The built bin run as a user runs it, shared by the CLI's end-to-end tests. MINAGENT_TEST_BIN runs another build
// (a private one while others work in the tree).

/** The built bin's path. */
export const builtBin = process.env.MINAGENT_TEST_BIN ?? new URL("../../dist/cli/bin.js", import.meta.url).pathname;

/** How a run of the bin ended. */
export type BinOutcome = { code: number | null; stdout: string; stderr: string };

/**
 * Starts the bin in a child process with only the given environment (plus PATH and NO_COLOR), so that no key or
 * model setting of the machine running the tests leaks in; `input` is written to its stdin, else stdin is closed.
 * `done` rejects when it has not exited within 15 s (the caller kills `child`, by its pid).
 */
export function startBuiltBin(
  args: readonly string[],
  env: Record<string, string>,
  input?: string,
): { child: ChildProcess; done: Promise<BinOutcome> } {
  if (!existsSync(builtBin)) throw new Error("dist/ is missing: npm test builds it first (or run npm run build)");
  const child = spawn(process.execPath, [builtBin, ...args], {
    env: { PATH: process.env.PATH ?? "", NO_COLOR: "1", ...env },
    stdio: [input === undefined ? "ignore" : "pipe", "pipe", "pipe"],
  });
  if (input !== undefined) child.stdin?.end(input);
  let stdout = "";
  let stderr = "";
  child.stdout?.setEncoding("utf8").on("data", (text: string) => {
    stdout += text;
  });
  child.stderr?.setEncoding("utf8").on("data", (text: string) => {
    stderr += text;
  });
  const done = new Promise<BinOutcome>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the bin did not exit within 15 s; stderr: ${stderr}`)), 15_000);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
  return { child, done };
}
