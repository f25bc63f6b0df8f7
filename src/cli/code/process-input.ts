import { MinagentError } from "../../errors.js";
import type { CliIo } from "../io.js";
import type { CodeSessionContext } from "./session-context.js";

/**
 * What `minagent code` reads of the io beyond CliIo. A fake io (tests) may set these; the real process's io gets them
 * from the process itself (recognised by its environment being `process.env`).
 */
export type CodeIo = CliIo & {
  /** True when standard input is a terminal: without -p, the interactive UI starts. */
  stdinIsTerminal?: boolean | undefined;
  /** Reads all of standard input (the prompt of `-p` when none is given on the command line). */
  readInput?: (() => Promise<string>) | undefined;
  /** The terminal the interactive UI draws on. */
  terminal?: CodeSessionContext["terminal"] | undefined;
  /** Aborts the run, as SIGINT does the real process's. */
  signal?: AbortSignal | undefined;
};

/** True when `io` is the process's own (processIo), so process.stdin, process.stdout and signals are its. */
export function isProcessIo(io: CliIo): boolean {
  return io.env === process.env;
}

export function stdinIsTerminal(io: CodeIo): boolean {
  return io.stdinIsTerminal ?? (isProcessIo(io) && process.stdin.isTTY === true);
}

/** All of standard input: the process's stdin read to its end, or a fake io's lines. */
export async function readInput(io: CodeIo): Promise<string> {
  if (io.readInput) return io.readInput();
  if (isProcessIo(io)) {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(typeof chunk === "string" ? Buffer.from(chunk) : (chunk as Buffer));
    return Buffer.concat(chunks).toString("utf8");
  }
  const lines: string[] = [];
  for (let line = await io.readLine(); line !== undefined; line = await io.readLine()) lines.push(line);
  return lines.join("\n");
}

export function terminalOf(io: CodeIo): CodeSessionContext["terminal"] {
  return io.terminal ?? { input: process.stdin, output: process.stdout };
}

/** The reason the process's signal carries when SIGINT, SIGTERM or SIGHUP aborted it. */
export class ProcessSignalError extends MinagentError {
  constructor(readonly signal: "SIGINT" | "SIGTERM" | "SIGHUP") {
    super(signal === "SIGINT" ? "interrupted (SIGINT)" : signal === "SIGTERM" ? "terminated (SIGTERM)" : "the terminal hung up (SIGHUP)");
  }
}

/** The exit code of a run that `signal` aborted: 143 for SIGTERM, 129 for SIGHUP, else 130 (SIGINT, or the io's own signal). */
export function interruptedExitCode(signal: AbortSignal): number {
  if (!(signal.reason instanceof ProcessSignalError)) return 130;
  return signal.reason.signal === "SIGTERM" ? 143 : signal.reason.signal === "SIGHUP" ? 129 : 130;
}

/**
 * A signal aborted by the io's own signal and, for the real process, by SIGINT, SIGTERM and SIGHUP (a second SIGINT
 * ends the process at once with 130). `dispose` removes the handlers.
 */
export function interruptSignal(io: CodeIo): { signal: AbortSignal; dispose: () => void } {
  const controller = new AbortController();
  const signals = [controller.signal, ...(io.signal ? [io.signal] : [])];
  const signal = AbortSignal.any(signals);
  if (!isProcessIo(io)) return { signal, dispose: () => {} };
  const onInterrupt = () => {
    if (controller.signal.aborted) process.exit(130);
    controller.abort(new ProcessSignalError("SIGINT"));
  };
  const onTerminate = () => controller.abort(new ProcessSignalError("SIGTERM"));
  // A closed terminal window: the session still ends as for SIGTERM (the session file closed, SessionEnd hooks, the
  // sandbox's temporary folder removed) instead of dying mid-write and leaving its folders behind. Writes to the gone
  // terminal fail with EIO from now on, which processIo's stream handlers let pass.
  const onHangUp = () => controller.abort(new ProcessSignalError("SIGHUP"));
  process.on("SIGINT", onInterrupt);
  process.on("SIGTERM", onTerminate);
  process.on("SIGHUP", onHangUp);
  return {
    signal,
    dispose: () => {
      process.off("SIGINT", onInterrupt);
      process.off("SIGTERM", onTerminate);
      process.off("SIGHUP", onHangUp);
    },
  };
}
