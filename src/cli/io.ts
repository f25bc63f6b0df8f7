import { createInterface } from "node:readline";

/** What the CLI touches of the outside world, so tests can pass a fake. */
export type CliIo = {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** Reads one line from standard input; `undefined` at end of input. */
  readLine: () => Promise<string | undefined>;
  /**
   * Present when standard input is a terminal: waits for one key press, acted on without Enter as every prompt of
   * the interactive session is — one of `keys` (any case, given back in lower case), or Enter or Escape, given as
   * "" (the prompt's default). Other keys are ignored; Ctrl-C ends the process (exit code 130);
   * Ctrl-D gives `undefined`. Without it (a pipe, a file), a prompt reads a line with {@link readLine}.
   */
  readKey?: ((keys: readonly string[]) => Promise<string | undefined>) | undefined;
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
 * on paying for model calls nobody reads). A closed stderr is simply no longer written to, nor is a terminal that
 * hung up (the process's SIGHUP handler ends the session).
 */
export function processIo(): CliIo {
  let stderrOpen = true;
  process.stdout.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code === "EPIPE") process.exit(0);
    // A terminal that hung up (its window closed) fails every write with EIO: SIGHUP ends the session in order.
    if (error.code === "EIO" && process.stdout.isTTY) return;
    throw error;
  });
  process.stderr.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code !== "EPIPE" && !(error.code === "EIO" && process.stderr.isTTY)) throw error;
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
    ...(process.stdin.isTTY === true && { readKey: (keys: readonly string[]) => readOneKey(process.stdin, keys) }),
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

function readOneKey(input: NodeJS.ReadStream, keys: readonly string[]): Promise<string | undefined> {
  return new Promise((resolve) => {
    const finish = (answer: string | undefined) => {
      input.off("data", onData);
      input.setRawMode(false);
      input.pause();
      // The answer is echoed, as a line prompt would show it.
      process.stderr.write(`${answer ?? ""}\n`);
      resolve(answer);
    };
    const onData = (data: Buffer) => {
      const text = data.toString("utf8");
      // Nothing has started yet at such a prompt: Ctrl-C leaves at once, with the code an interrupted program gives.
      if (text === "\x03") {
        finish(undefined);
        process.exit(130);
      } else if (text === "\x04") finish(undefined);
      else if (text === "\r" || text === "\n" || text === "\x1b") finish("");
      else if (keys.includes(text.toLowerCase())) finish(text.toLowerCase());
    };
    input.setRawMode(true);
    input.on("data", onData);
    input.resume();
  });
}
