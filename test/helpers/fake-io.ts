import type { CliIo } from "../../src/cli/io.js";

/** A CliIo that records what the CLI printed. */
export function fakeIo(env: Record<string, string | undefined> = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = { stdout: (text) => void out.push(text), stderr: (text) => void err.push(text), env };
  return { io, stdout: () => out.join(""), stderr: () => err.join("") };
}
