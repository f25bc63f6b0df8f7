import { createInterface } from "node:readline";

/** What the CLI touches of the outside world, so tests can pass a fake. */
export type CliIo = {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** Reads one line from standard input; `undefined` at end of input. */
  readLine: () => Promise<string | undefined>;
  env: Record<string, string | undefined>;
};

/** The real process's io. */
export function processIo(): CliIo {
  return {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    readLine: () => readOneLine(process.stdin),
    env: process.env,
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
