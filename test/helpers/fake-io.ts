import type { CliIo } from "../../src/cli/io.js";

/** A CliIo that records what the CLI printed and answers prompts from `answers` (then end of input). */
export function fakeIo(env: Record<string, string | undefined> = {}, answers: string[] = []) {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = {
    stdout: (text) => void out.push(text),
    stderr: (text) => void err.push(text),
    readLine: async () => answers.shift(),
    env,
  };
  return { io, stdout: () => out.join(""), stderr: () => err.join("") };
}
