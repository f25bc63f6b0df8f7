import { execFile, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

// A person at a terminal for the CLI tests: the built bin in a tmux pane, keys sent with send-keys, the screen read
// with capture-pane.

const execFileAsync = promisify(execFile);
/** The built bin the panes run (MINAGENT_TEST_BIN for another). */
export const bin = process.env.MINAGENT_TEST_BIN ?? fileURLToPath(new URL("../../dist/cli/bin.js", import.meta.url));
export const hasTmux = spawnSync("tmux", ["-V"]).status === 0;
let sockets = 0;

/** A tmux server of its own with one pane running the CLI. */
export class Pane {
  readonly #socket = `minagent-test-${process.pid}-${++sockets}`;
  readonly #size: { columns: number; rows: number };

  constructor(size: { columns: number; rows: number } = { columns: 100, rows: 30 }) {
    this.#size = size;
  }

  async start(cwd: string, env: Record<string, string>, args: string[]): Promise<void> {
    const variables = Object.entries({ PATH: process.env.PATH ?? "", TERM: "xterm-256color", LANG: "C.UTF-8", ...env }).map(
      ([name, value]) => `${name}=${quote(value)}`,
    );
    const command = `env -i ${variables.join(" ")} ${quote(process.execPath)} ${quote(bin)} code ${args.map(quote).join(" ")}; echo "[exit $?]"; sleep 60`;
    await this.#tmux(
      "new-session",
      "-d",
      "-s",
      "main",
      "-x",
      String(this.#size.columns),
      "-y",
      String(this.#size.rows),
      "-c",
      cwd,
      command,
    );
  }

  async screen(): Promise<string> {
    return (await this.#tmux("capture-pane", "-p", "-t", "main")).stdout;
  }

  /** The bottom row: the status line. */
  async statusLine(): Promise<string> {
    return (await this.screen()).trimEnd().split("\n").at(-1) ?? "";
  }

  /** Sends keys by tmux name (Enter, Escape, C-c, BTab) or, with `literal`, text as typed. */
  async keys(...keys: string[]): Promise<void> {
    await this.#tmux("send-keys", "-t", "main", ...keys);
  }

  async type(text: string): Promise<void> {
    await this.#tmux("send-keys", "-t", "main", "-l", text);
  }

  /** Pastes `text` as a terminal does with bracketed paste on (tmux's paste-buffer -p). */
  async paste(text: string): Promise<void> {
    await this.#tmux("set-buffer", "-b", "test-paste", text);
    await this.#tmux("paste-buffer", "-p", "-d", "-b", "test-paste", "-t", "main");
  }

  /** Where the cursor is: its row (0 at the top of the screen) and column. */
  async cursor(): Promise<{ row: number; column: number }> {
    const [column, row] = (await this.#tmux("display-message", "-p", "-t", "main", "#{cursor_x},#{cursor_y}")).stdout.trim().split(",");
    return { row: Number(row), column: Number(column) };
  }

  /** Resizes the pane's window, as a person dragging the terminal's corner. */
  async resize(columns: number, rows: number): Promise<void> {
    await this.#tmux("resize-window", "-t", "main", "-x", String(columns), "-y", String(rows));
  }

  /** Polls the screen until `expected` is on it (a string or a test of the whole screen); fails with the screen. */
  async waitFor(expected: string | RegExp | ((screen: string) => boolean), timeoutMs = 15_000): Promise<string> {
    const test =
      typeof expected === "function"
        ? expected
        : (screen: string) => (typeof expected === "string" ? screen.includes(expected) : expected.test(screen));
    const deadline = Date.now() + timeoutMs;
    let screen = "";
    while (Date.now() < deadline) {
      screen = await this.screen();
      if (test(screen)) return screen;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`Timed out after ${timeoutMs} ms waiting for ${String(expected)}. The screen:\n${screen}`);
  }

  /**
   * Ends the tmux server, as closing the terminal window does (the CLI is hung up: SIGHUP), waits for the processes
   * the pane ran to end — the CLI cleans up after a hang-up, and a test's folders must not be removed under it — and
   * removes the socket file (kill-server leaves it behind). Processes still there after `graceMs` get SIGKILL, by pid.
   */
  async kill(graceMs = 10_000): Promise<void> {
    const [socketPath, panePid] = await this.#tmux("display-message", "-p", "#{socket_path} #{pane_pid}").then(
      ({ stdout }) => stdout.trim().split(" "),
      () => ["", ""],
    );
    const processes = panePid ? processTree(Number(panePid)) : [];
    await this.#tmux("kill-server").catch(() => undefined);
    await awaitEnd(processes, graceMs);
    if (socketPath?.endsWith(this.#socket)) await rm(socketPath, { force: true });
  }

  #tmux(...args: string[]) {
    return execFileAsync("tmux", ["-u", "-L", this.#socket, ...args], { timeout: 5000 });
  }
}

/**
 * Waits for `processes` to end — a hung-up CLI cleans up before it exits, and a test's folders must not be removed
 * under it — and sends SIGKILL, by pid, to those still running after `graceMs`.
 */
export async function awaitEnd(processes: readonly number[], graceMs = 10_000): Promise<void> {
  const deadline = Date.now() + graceMs;
  while (processes.some(isRunning) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
  for (const pid of processes.filter(isRunning)) process.kill(pid, "SIGKILL");
}

/** `pid` and the processes under it (Linux's /proc children lists; just `pid` where they cannot be read). */
export function processTree(pid: number): number[] {
  let children: number[] = [];
  try {
    children = readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {}
  return [pid, ...children.flatMap(processTree)];
}

/** Whether `pid` is still a live process (a zombie, reaped by nobody yet, counts as ended). */
function isRunning(pid: number): boolean {
  try {
    return !/^\S+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
}

/** `text` as one shell word. */
export function quote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}
