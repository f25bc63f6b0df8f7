import { createInterface } from "node:readline";

/** What the CLI touches of the outside world, so tests can pass a fake. */
export type CliIo = {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** Reads one line from standard input; `undefined` at end of input. */
  readLine: () => Promise<string | undefined>;
  env: Record<string, string | undefined>;
  /**
   * True when stdout is a terminal: `minagent run` then streams the answer as it is written. Otherwise
   * (a pipe, a file; the default) it writes each model call's text once the call has answered.
   */
  isTerminal?: boolean | undefined;
};

/**
 * The real process's io. When the reader of stdout goes away (`minagent run … | head`), the process
 * ends at once, quietly and with exit code 0, rather than dying on EPIPE with a stack trace (or going
 * on paying for model calls nobody reads). A closed stderr is simply no longer written to.
 */
export function processIo(): CliIo {
  let stderrOpen = true;
  process.stdout.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code === "EPIPE") process.exit(0);
    throw error;
  });
  process.stderr.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code !== "EPIPE") throw error;
    stderrOpen = false;
  });
  return {
    stdout: (text) => {
      process.stdout.write(text);
      // A write to a closed pipe fails at once (its "error" event comes a tick later): stop before the run goes on.
      if ((process.stdout.errored as NodeJS.ErrnoException | null)?.code === "EPIPE") process.exit(0);
    },
    stderr: (text) => stderrOpen && process.stderr.write(text),
    readLine: () => readOneLine(process.stdin),
    env: process.env,
    isTerminal: process.stdout.isTTY === true,
  };
}

function readOneLine(input: NodeJS.ReadableStream): Promise<string | undefined> {
  return new Promise((resolve) => {
    const lines = createInterface({ input });
    let answer: string | undefined;
    lines.once("line", (line) => {
      answer = line;
      lines.close();
    });
    lines.once("close", () => resolve(answer));
  });
}
