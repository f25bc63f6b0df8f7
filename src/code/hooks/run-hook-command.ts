import { type ChildProcess, spawn } from "node:child_process";
import { toAbortError } from "../../errors.js";

/** How to run one hook command. */
export type HookCommandOptions = {
  /** The folder it runs in. */
  cwd: string;
  /** Its whole environment. */
  env: Readonly<Record<string, string | undefined>>;
  /** Written to its stdin, which is then closed. */
  stdin: string;
  /** Milliseconds before its process group is killed. */
  timeoutMs: number;
  /** Aborting it kills the process group and rejects with an AbortError. */
  signal?: AbortSignal | undefined;
  /** Exec form: `command` is the program and these its arguments, with no shell (Claude Code's `args`). */
  args?: readonly string[] | undefined;
};

/** How a hook command ended. */
export type HookCommandResult = {
  /** The exit code, or null when it did not exit by itself (killed, timed out, never started). */
  exitCode: number | null;
  /** The signal that killed it, if one did. */
  killedBy: string | null;
  timedOut: boolean;
  /** Why it could not be started (a missing cwd, no shell). */
  startError?: string | undefined;
  stdout: string;
  stderr: string;
  /** True when stdout went past {@link maxCapturedBytes} (the rest was dropped). */
  stdoutOverflow: boolean;
};

/** Most bytes kept of each stream: a hook that prints more is cut (and its stdout is not read as JSON). */
export const maxCapturedBytes = 1024 * 1024;

/**
 * After the shell exits, how long its pipes may stay open: a background child it started (`sleep 600 &`) holds
 * them, and waiting for it would stall the agent until the timeout. What the shell itself printed is read by then.
 */
const pipeGraceMs = 200;

/**
 * Runs `command` with the platform's shell (`/bin/sh -c`) — or, with `args`, the program `command` with those
 * arguments and no shell — as the leader of a new process group, so that a timeout or an abort kills everything it
 * started (`kill(-pid)`), background children included. A command that exits on its own is left alone with
 * whatever it left running in the background.
 */
export function runHookCommand(command: string, options: HookCommandOptions): Promise<HookCommandResult> {
  if (options.signal?.aborted) return Promise.reject(toAbortError(options.signal));
  return new Promise((resolve, reject) => {
    const stdout = new Capture();
    const stderr = new Capture();
    let settled = false;
    let grace: NodeJS.Timeout | undefined;
    const child = spawn(command, options.args ?? [], {
      shell: options.args === undefined,
      cwd: options.cwd,
      env: options.env as NodeJS.ProcessEnv,
      detached: process.platform !== "win32",
      stdio: ["pipe", "pipe", "pipe"],
      windowsHide: true,
    });
    const settle = (outcome: Pick<HookCommandResult, "exitCode" | "killedBy" | "timedOut" | "startError">, error?: unknown) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(grace);
      options.signal?.removeEventListener("abort", onAbort);
      child.stdout?.destroy();
      child.stderr?.destroy();
      child.stdin?.destroy();
      if (error !== undefined) reject(error);
      else resolve({ ...outcome, stdout: stdout.text(), stderr: stderr.text(), stdoutOverflow: stdout.overflow });
    };
    const timer = setTimeout(() => {
      killGroup(child);
      settle({ exitCode: null, killedBy: "SIGKILL", timedOut: true });
    }, options.timeoutMs);
    const onAbort = () => {
      killGroup(child);
      settle({ exitCode: null, killedBy: "SIGKILL", timedOut: false }, toAbortError(options.signal as AbortSignal));
    };
    options.signal?.addEventListener("abort", onAbort, { once: true });
    child.stdout?.on("data", (chunk: Buffer) => stdout.add(chunk));
    child.stderr?.on("data", (chunk: Buffer) => stderr.add(chunk));
    child.on("error", (error) => {
      killGroup(child);
      settle({ exitCode: null, killedBy: null, timedOut: false, startError: error.message });
    });
    child.on("exit", (code, signal) => {
      grace = setTimeout(() => settle({ exitCode: code, killedBy: signal, timedOut: false }), pipeGraceMs);
    });
    child.on("close", (code, signal) => settle({ exitCode: code, killedBy: signal, timedOut: false }));
    // A hook that exits without reading its input closes the pipe under us: EPIPE is no error of ours.
    child.stdin?.on("error", () => {});
    child.stdin?.end(options.stdin);
  });
}

/** Kills the command's process group (the shell and everything it started), or the process alone where groups are not available. */
function killGroup(child: ChildProcess): void {
  if (child.pid === undefined) return;
  try {
    if (process.platform !== "win32") {
      process.kill(-child.pid, "SIGKILL");
      return;
    }
  } catch {
    // The group is gone already (ESRCH), or the platform refuses: fall back to the process itself.
  }
  try {
    child.kill("SIGKILL");
  } catch {
    // It has exited.
  }
}

/** Bytes of one stream, up to {@link maxCapturedBytes}. */
class Capture {
  readonly #chunks: Buffer[] = [];
  #bytes = 0;
  overflow = false;

  add(chunk: Buffer): void {
    const room = maxCapturedBytes - this.#bytes;
    if (chunk.length > room) this.overflow = true;
    if (room <= 0) return;
    const kept = chunk.length > room ? chunk.subarray(0, room) : chunk;
    this.#chunks.push(kept);
    this.#bytes += kept.length;
  }

  text(): string {
    return Buffer.concat(this.#chunks).toString("utf8");
  }
}
