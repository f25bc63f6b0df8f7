import { execFile, spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { cp, mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { projectFolderName } from "../../src/code/sessions/json-lines-session-store.js";
import { startWireServer, type WireServer } from "../../src/testing/wire-server.js";
import { anthropicStream } from "../helpers/wire-bodies.js";
import { awaitEnd, processTree } from "./tmux-pane.js";

// Issue 12, as a person lives it: `minagent code` on a terminal (the built bin in a tmux pane of its own tmux server),
// a prompt, the model calls a slow Bash, and while it runs the CLI is killed with SIGKILL. `minagent code --continue`
// in a new pane takes the conversation up again: the screen recaps it, the follow-up is answered, and the model is
// sent the earlier conversation with the cut-off call answered as interrupted — each part once. The model is a
// scripted Anthropic server on 127.0.0.1; every wait has a deadline. MINAGENT_TEST_BIN points at another build.

const execFileAsync = promisify(execFile);
const bin = process.env.MINAGENT_TEST_BIN ?? fileURLToPath(new URL("../../dist/cli/bin.js", import.meta.url));
const sampleProject = fileURLToPath(new URL("../../examples/fix-failing-test/project", import.meta.url));
const hasTmux = spawnSync("tmux", ["-V"]).status === 0;

type Block = Parameters<typeof anthropicStream>[0][number];

/** A streamed reply; `slow` sends it in small pieces 25 ms apart, as a model writing. */
function reply(blocks: Block[], stop = "tool_use", slow = false) {
  return {
    sse: anthropicStream(blocks, stop, { input_tokens: 1500, output_tokens: 30 }),
    chunkSize: slow ? 24 : 64,
    chunkDelayMs: slow ? 25 : 0,
  };
}

/** Polls `probe` until it gives something other than undefined; fails with `what` and the last `describe()` at the deadline. */
async function poll<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs: number, describe = async () => ""): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() >= deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}.${await describe()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The command line of a process, its arguments joined by spaces; undefined when it is gone. */
function commandLine(pid: number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ").trim();
  } catch {
    return undefined;
  }
}

/** Whether a process exists and is not a zombie waiting to be reaped. */
function isRunning(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return false;
  }
}

/** How a process ended: "running", the signal that killed it while it is a zombie, or "reaped" once it is gone. */
function deathOf(pid: number): "running" | "reaped" | number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // Field 3 is the state; the last, field 52, the wait status (its low 7 bits: the signal).
    return fields[0] === "Z" ? Number(fields.at(-1)) & 0x7f : "running";
  } catch {
    return "reaped";
  }
}

/** The running processes whose command line holds `marker`, found by reading /proc. */
async function processesWith(marker: string): Promise<{ pid: number; command: string }[]> {
  const found: { pid: number; command: string }[] = [];
  for (const name of await readdir("/proc")) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    const command = commandLine(Number(name));
    if (command?.includes(marker) && isRunning(Number(name))) found.push({ pid: Number(name), command });
  }
  return found;
}

/** The children of a process (pgrep -P); none when it has none or is gone. */
async function childrenOf(pid: number): Promise<number[]> {
  const { stdout } = await execFileAsync("pgrep", ["-P", String(pid)]).catch(() => ({ stdout: "" }));
  return stdout.split("\n").filter(Boolean).map(Number);
}

/**
 * A tmux server of its own. Each window runs the bin as the pane's own command (no shell in between: `env -i` execs
 * node), so `#{pane_pid}` is the CLI's process; a window stays on the screen when its program dies (remain-on-exit).
 */
class Tmux {
  readonly socket = `minagent-crash-${process.pid}-${Date.now()}`;
  #started = false;

  /** Opens a window running `minagent code <args>` in `cwd` with only `env` (and PATH, TERM, LANG). */
  async open(window: string, cwd: string, env: Record<string, string>, args: string[]): Promise<void> {
    const variables = Object.entries({ PATH: process.env.PATH ?? "", TERM: "xterm-256color", LANG: "C.UTF-8", ...env }).map(
      ([name, value]) => `${name}=${value}`,
    );
    const command = ["env", "-i", ...variables, process.execPath, bin, "code", ...args];
    const open = this.#started
      ? ["new-window", "-d", "-t", "main", "-n", window, "-c", cwd, ...command]
      : ["new-session", "-d", "-s", "main", "-n", window, "-x", "100", "-y", "30", "-c", cwd, ...command];
    this.#started = true;
    await this.#tmux(...open, ";", "set-option", "-w", "-t", `main:${window}`, "remain-on-exit", "on");
  }

  async screen(window: string): Promise<string> {
    return (await this.#tmux("capture-pane", "-p", "-t", `main:${window}`)).stdout;
  }

  async display(window: string, format: string): Promise<string> {
    return (await this.#tmux("display-message", "-p", "-t", `main:${window}`, format)).stdout.trim();
  }

  async keys(window: string, ...keys: string[]): Promise<void> {
    await this.#tmux("send-keys", "-t", `main:${window}`, ...keys);
  }

  async type(window: string, text: string): Promise<void> {
    await this.#tmux("send-keys", "-t", `main:${window}`, "-l", text);
  }

  /** Polls the window's screen until `expected` is on it; fails with the screen. */
  async waitFor(window: string, expected: string | RegExp | ((screen: string) => boolean), timeoutMs = 8000): Promise<string> {
    const test =
      typeof expected === "function"
        ? expected
        : (screen: string) => (typeof expected === "string" ? screen.includes(expected) : expected.test(screen));
    let screen = "";
    return poll(
      String(expected),
      async () => {
        screen = await this.screen(window);
        return test(screen) ? screen : undefined;
      },
      timeoutMs,
      async () => ` The screen of ${window}:\n${screen}`,
    );
  }

  /** Ends the tmux server and removes its socket file (kill-server leaves it). */
  async kill(): Promise<void> {
    if (!this.#started) return;
    const socketPath = await this.#tmux("display-message", "-p", "#{socket_path}").then(
      ({ stdout }) => stdout.trim(),
      () => "",
    );
    // The CLIs still running get SIGHUP and clean up first (their checkpoints, the session file): waited for.
    const panes = await this.#tmux("list-panes", "-s", "-t", "main", "-F", "#{pane_pid}").then(
      ({ stdout }) => stdout.split("\n").filter(Boolean).map(Number),
      () => [],
    );
    const processes = panes.flatMap(processTree);
    await this.#tmux("kill-server").catch(() => undefined);
    await awaitEnd(processes);
    if (socketPath.endsWith(this.socket)) await rm(socketPath, { force: true });
  }

  #tmux(...args: string[]) {
    return execFileAsync("tmux", ["-u", "-L", this.socket, ...args], { timeout: 5000 });
  }
}

describe.skipIf(!hasTmux)("minagent code after kill -9 (tmux)", () => {
  let server: WireServer;
  let workspace: string;
  let home: string;
  let tmux: Tmux;
  /** Process groups a killed CLI may have left behind (the Bash tool's shell leads its own): ended after the test. */
  const strays = new Set<number>();

  beforeEach(async () => {
    if (!existsSync(bin)) throw new Error(`${bin} is missing: npm test builds it first (or set MINAGENT_TEST_BIN)`);
    server = await startWireServer();
    workspace = await mkdtemp(join(tmpdir(), "minagent-crash-workspace-"));
    home = await mkdtemp(join(tmpdir(), "minagent-crash-home-"));
    await cp(sampleProject, workspace, { recursive: true });
    tmux = new Tmux();
  });

  afterEach(async () => {
    for (const group of strays) {
      try {
        process.kill(-group, "SIGKILL");
      } catch {
        // the group has ended
      }
    }
    strays.clear();
    await tmux.kill();
    await server.close();
    await rm(workspace, { recursive: true, force: true });
    await rm(home, { recursive: true, force: true });
  });

  test("a resume after kill -9 during a slow Bash: the conversation is recapped, the cut-off call is answered as interrupted once, and no child is left running", async () => {
    const marker = `crash-marker-${process.pid}-${Date.now()}`;
    const slowCommand = `sleep 20 && echo ${marker}`;
    const prompt = "the test in test/math.test.js fails; find out why";
    const followUp = "you were cut off; what do you know so far?";
    const answer = "The slow check never finished, but mean() in src/math.js divides by values.length - 1.";
    server.reply(
      reply([
        { type: "text", text: "Let me read the code first." },
        { type: "tool_use", id: "toolu_read", name: "Read", input: { file_path: "src/math.js" } },
      ]),
      reply([{ type: "tool_use", id: "toolu_slow", name: "Bash", input: { command: slowCommand, description: "Run the slow check" } }]),
      reply([{ type: "text", text: answer }], "end_turn", true),
    );
    const env = { ANTHROPIC_API_KEY: "sk-ant-test", ANTHROPIC_BASE_URL: server.url, MINAGENT_HOME: home, HOME: home };
    // Unsandboxed: the test follows the shell as the CLI's own child (in the sandbox it is bubblewrap's, and its pid
    // namespace ends with the CLI: test/code/sandbox).
    const model = ["--model", "anthropic:claude-haiku-4-5", "--allowedTools=Bash(sleep:*),Bash(echo:*)", "--no-sandbox"];

    // The first session: a prompt, a Read, then the slow Bash.
    await tmux.open("first", workspace, env, model);
    await tmux.waitFor("first", /^>\s*$/m);
    const pid = Number(await tmux.display("first", "#{pane_pid}"));
    expect(commandLine(pid)).toBe(`${process.execPath} ${bin} code ${model.join(" ")}`);
    await tmux.type("first", prompt);
    await tmux.keys("first", "Enter");
    const running = await tmux.waitFor("first", "⋯ Bash(sleep 20");
    expect(running).toContain("✓ Read(src/math.js)");

    // The command's processes, children of the CLI, before it is killed.
    const shell = await poll(
      "the Bash tool's shell, a child of the CLI",
      async () => {
        for (const child of await childrenOf(pid)) if (commandLine(child)?.includes(marker)) return child;
        return undefined;
      },
      5000,
    );
    strays.add(shell);
    const sleeper = await poll(
      "the sleep, a child of the shell",
      async () => (await childrenOf(shell)).find((child) => commandLine(child)?.startsWith("sleep 20")),
      5000,
    );

    process.kill(pid, "SIGKILL");
    // The CLI is dead: a zombie (tmux may be slow to reap it) or reaped, either way killed by signal 9.
    const signal = await poll(
      "the CLI to die",
      async () => {
        const status = deathOf(pid);
        if (status === "running") return undefined;
        if (status !== "reaped") return status;
        const reported = await tmux.display("first", "#{pane_dead_signal}");
        return reported === "" ? undefined : Number(reported);
      },
      5000,
    );
    expect(signal).toBe(9);
    const killed = await tmux.screen("first");
    expect(killed).toContain("⋯ Bash(sleep 20");

    // Nothing the killed CLI started is left running (the sleep would go on for 20 s): looked for by the pids taken
    // before the kill and by the marker in the command line.
    const leftOver = await poll(
      "the killed CLI's command to end",
      async () => {
        const alive = [shell, sleeper].filter(isRunning);
        const marked = await processesWith(marker);
        return alive.length === 0 && marked.length === 0 ? { alive, marked } : undefined;
      },
      5000,
      async () =>
        ` Still running: ${JSON.stringify([shell, sleeper].filter(isRunning).map((p) => ({ pid: p, command: commandLine(p) })))}` +
        ` and by the marker ${JSON.stringify(await processesWith(marker))}. The Bash tool (src/code/tools/bash.ts) starts` +
        " the command with `detached: true` (a session and process group of its own, away from the terminal) and ends" +
        " that group only on an abort, a timeout or the shell's exit: nothing of the CLI runs after a SIGKILL.",
    ).catch((error: Error) => error);

    // `minagent code --continue` in a new pane: the conversation is recapped.
    await tmux.open("resumed", workspace, env, [...model, "--continue"]);
    const recap = await tmux.waitFor("resumed", /^>\s*$/m);
    const sessionId = recap.match(/^Session ([0-9a-f-]{36}) · \d+ messages$/m)?.[1];
    expect(sessionId).toBeDefined();
    expect(recap).toContain(`> ${prompt}`);
    expect(recap).toContain("Let me read the code first.");

    await tmux.type("resumed", followUp);
    await tmux.keys("resumed", "Enter");
    // The answer streams: part of it is on the screen before the rest.
    const partial = await tmux.waitFor("resumed", (screen) => screen.includes("The slow check") && !screen.includes("length - 1."));
    expect(partial).toContain("working (esc to interrupt)");
    const done = await tmux.waitFor("resumed", (screen) => screen.includes("length - 1.") && /^>\s*$/m.test(screen.split(answer)[1] ?? ""));
    expect(done).toContain(`> ${followUp}`);

    // What the model was sent: the earlier conversation, the cut-off call answered as interrupted, each once, then the follow-up.
    expect(server.requests).toHaveLength(3);
    type Content = {
      type: string;
      text?: string;
      id?: string;
      name?: string;
      input?: unknown;
      tool_use_id?: string;
      content?: unknown;
      is_error?: boolean;
    };
    const { messages } = (server.requests[2]?.body ?? { messages: [] }) as { messages: { role: string; content: string | Content[] }[] };
    const blocks = messages.flatMap(({ role, content }) =>
      (typeof content === "string" ? [{ type: "text", text: content }] : content).map((block) => ({ role, ...block })),
    );
    const texts = blocks.filter((block) => block.type === "text").map((block) => block.text);
    expect(texts.filter((text) => text === prompt)).toHaveLength(1);
    expect(blocks.filter((block) => block.type === "tool_use" && block.id === "toolu_slow")).toEqual([
      {
        role: "assistant",
        type: "tool_use",
        id: "toolu_slow",
        name: "Bash",
        input: { command: slowCommand, description: "Run the slow check" },
      },
    ]);
    const slowResults = blocks.filter((block) => block.type === "tool_result" && block.tool_use_id === "toolu_slow");
    expect(slowResults).toHaveLength(1);
    expect(slowResults[0]).toMatchObject({ role: "user", is_error: true });
    expect(JSON.stringify(slowResults[0]?.content)).toContain("This tool call was interrupted before it returned a result");
    expect(blocks.filter((block) => block.type === "tool_result" && block.tool_use_id === "toolu_read")).toHaveLength(1);
    expect(texts.filter((text) => text === followUp)).toHaveLength(1);
    expect(blocks.map(({ role, type, id, tool_use_id, text }) => `${role} ${type} ${id ?? tool_use_id ?? text}`)).toEqual([
      `user text ${prompt}`,
      "assistant text Let me read the code first.",
      "assistant tool_use toolu_read",
      "user tool_result toolu_read",
      "assistant tool_use toolu_slow",
      "user tool_result toolu_slow",
      `user text ${followUp}`,
    ]);

    // One session file, the one the recap named: --continue wrote to the session the killed CLI left.
    const sessions = join(home, "projects", projectFolderName(workspace));
    expect(await readdir(sessions)).toEqual([`${sessionId}.jsonl`]);
    expect(await readFile(join(sessions, `${sessionId}.jsonl`), "utf8")).toContain(followUp);

    // Checked last, so that the rest is seen either way.
    if (leftOver instanceof Error) throw leftOver;
  }, 60_000);
});
