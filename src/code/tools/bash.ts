import { type ChildProcess, spawn } from "node:child_process";
import { stat } from "node:fs/promises";
import type { Readable } from "node:stream";
import type { Tool } from "../../engine.js";
import { ToolError, UsageError } from "../../errors.js";
import { formatNumber } from "../../text.js";
import type { ConfinedCommand, Sandbox } from "../sandbox/create-sandbox.js";
import type { Workspace } from "../workspace.js";

/** Settings of the {@link createBashTool Bash tool}. */
export type BashToolOptions = {
  /** Milliseconds a command may run when the call gives no `timeout` (default 120,000: two minutes). */
  defaultTimeoutMs?: number | undefined;
  /** The largest `timeout` a call may give (default 600,000: ten minutes). */
  maxTimeoutMs?: number | undefined;
  /** Longest output returned, in characters (default 30,000); longer output keeps its head and tail. */
  maxOutputLength?: number | undefined;
  /**
   * The commands' whole environment. Default: `process.env` without the variables whose names end like a
   * credential's (`…_API_KEY`, `…_TOKEN`, `…_SECRET`, `…PASSWORD`, `…_ACCESS_KEY_ID`, `…_CREDENTIALS`, `…_KEY`…),
   * because whatever a command prints goes to the model's provider and into traces; and with `GIT_EDITOR=true`, as
   * no editor can open without a terminal. Pass `process.env` to keep everything as it is.
   */
  env?: Readonly<Record<string, string | undefined>> | undefined;
  /** Milliseconds between SIGTERM and SIGKILL when a command is stopped (default 2,000). */
  killGraceMs?: number | undefined;
  /**
   * The OS sandbox every command runs in (`createSandbox`). While it is enabled the tool offers the model a
   * `dangerouslyDisableSandbox` argument; the permission check decides who may approve such a call, and
   * `allowUnsandboxedCommands: false` in its settings refuses it here.
   */
  sandbox?: Sandbox | undefined;
};

/** The {@link createBashTool Bash tool}: a Tool that also says where its next command will start. */
export type BashTool = Tool & {
  /**
   * The absolute path of the working directory the next command starts in: the workspace root until a command
   * ends in another folder inside the workspace (`cd src`). A permission check judges relative paths against it.
   * (Should that folder be deleted, the next command runs in the root instead, and says so.)
   */
  workingDirectory(): string;
  /**
   * Whether a call with these arguments runs in the OS sandbox: `confined`, `unconfined` (the sandbox is on but the
   * call asks to run outside it) or `off` (no sandbox this session). The permission check reads it.
   */
  sandboxing(args: Readonly<Record<string, unknown>>): "confined" | "unconfined" | "off";
};

type BashArguments = {
  command: string;
  timeout?: number | undefined;
  description?: string | undefined;
  dangerouslyDisableSandbox?: boolean | undefined;
};

/** How one command ended. */
type CommandRun = {
  output: string;
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  stopped: "timeout" | "abort" | undefined;
  /** The shell's working directory when it exited (its `pwd`), if it said. */
  finalDirectory: string | undefined;
};

/** A variable whose name ends like this holds a credential (case-insensitive). */
const credentialName =
  /(?:api[-_]?key|access[-_]?key(?:[-_]?id)?|private[-_]?key|(?:^|[-_])key|secret|token|password|passwd|passphrase|credentials?)$/i;

/**
 * After the shell exits, how long what it left running may keep its pipes open before the output is taken as
 * complete (its process group has been sent SIGTERM, then SIGKILL).
 */
const exitGraceMs = 500;

/**
 * The longest command line one argument can hold on Linux (MAX_ARG_STRLEN, 32 pages): the command reaches bash as
 * one argument, and a longer one would fail as `spawn E2BIG`.
 */
const maxCommandBytes = 131_072 - 1;

/**
 * Claude Code's `Bash { command, timeout?, description? }`: runs `command` with `bash -c` in a new process (and a
 * new session: no terminal to prompt on), stdin closed, and returns its output (stdout and stderr in the order
 * they were written) and its exit code. A non-zero exit code is a normal observation; a timeout is a ToolError
 * with the output so far.
 *
 * Only the working directory carries over between calls: the shell reports its `pwd` on exit through a third
 * file descriptor, and a directory inside the workspace becomes the next call's (one outside is refused with a
 * note). Variables, aliases and functions do not carry over. The command is its process group's leader: on
 * timeout or when the call's signal aborts, the whole group gets SIGTERM and, `killGraceMs` later, SIGKILL;
 * what the command left running in the background when it exited is ended the same way, so nothing outlives
 * the call (except what deliberately leaves the group, e.g. with `setsid`). Output past `maxOutputLength`
 * keeps its first and last halves, with a note of what was cut. `workingDirectory()` says where the next
 * command will start.
 * @example registry.add(createBashTool(workspace, { defaultTimeoutMs: 60_000 }))
 */
export function createBashTool(workspace: Workspace, options: BashToolOptions = {}): BashTool {
  const defaultTimeoutMs = positiveInteger("defaultTimeoutMs", options.defaultTimeoutMs ?? 120_000);
  const maxTimeoutMs = positiveInteger("maxTimeoutMs", options.maxTimeoutMs ?? 600_000);
  const maxOutputLength = positiveInteger("maxOutputLength", options.maxOutputLength ?? 30_000);
  const killGraceMs = positiveInteger("killGraceMs", options.killGraceMs ?? 2000);
  if (defaultTimeoutMs > maxTimeoutMs)
    throw new UsageError(`Bash tool option defaultTimeoutMs (${defaultTimeoutMs}) must not exceed maxTimeoutMs (${maxTimeoutMs}).`);
  // No editor can open without a terminal: git commit without -m fails at once instead of waiting for one.
  const env = options.env ?? { ...withoutCredentials(process.env), GIT_EDITOR: "true" };
  const sandbox = options.sandbox?.status.enabled ? options.sandbox : undefined;
  let directory = workspace.root;
  const sandboxing = (args: Readonly<Record<string, unknown>>) =>
    sandbox === undefined ? "off" : args.dangerouslyDisableSandbox === true ? "unconfined" : "confined";
  return {
    name: "Bash",
    workingDirectory: () => directory,
    sandboxing,
    description: [
      "Run a bash command in a new process and get its output (stdout and stderr together) and exit code.",
      "The working directory carries over to the next call when a command ends in another folder of the workspace (cd src);",
      "nothing else does (variables, aliases, functions, activated environments are gone).",
      "stdin is closed: interactive commands fail instead of waiting, so pass flags such as --yes or -y.",
      `Timeout: the timeout argument in milliseconds (default ${defaultTimeoutMs}, at most ${maxTimeoutMs}); the command and everything it started are stopped then.`,
      "Background processes (cmd &) end when the command does.",
      `Output over ${formatNumber(maxOutputLength)} characters is cut in the middle.`,
      "Prefer Grep, Glob and Read to grep, find and cat; quote paths that contain spaces.",
      ...(sandbox ? [sandboxDescription(sandbox)] : []),
    ].join(" "),
    compileOnFirstCall: true,
    parameters: {
      type: "object",
      properties: {
        command: { type: "string", description: "The command to run (bash syntax)." },
        timeout: {
          type: "integer",
          minimum: 1,
          maximum: maxTimeoutMs,
          description: `Milliseconds before the command is stopped (default ${defaultTimeoutMs}).`,
        },
        description: { type: "string", description: "What the command does, in a few words (for the people watching)." },
        ...(sandbox && {
          dangerouslyDisableSandbox: {
            type: "boolean",
            description:
              "Run this command outside the sandbox. Only when it cannot work inside (it must write outside the workspace or reach a refused host) and the user agrees: a person is always asked.",
          },
        }),
      },
      required: ["command"],
    },
    // The tool stops its command itself; the registry's timeout is only a backstop past the largest one.
    timeoutMs: maxTimeoutMs + killGraceMs + exitGraceMs + 5000,
    execute: async (args, context) => {
      const { command, timeout } = args as BashArguments;
      if (command.trim() === "") throw new ToolError("The command is empty.");
      if (command.includes("\0")) throw new ToolError("The command contains a NUL character, which no command line can hold.");
      const bytes = Buffer.byteLength(command);
      if (bytes > maxCommandBytes)
        throw new ToolError(
          `The command is ${formatNumber(bytes)} bytes, over the ${formatNumber(maxCommandBytes)} bytes the system lets one command line hold. Write the script to a file with the Write tool and run that file instead.`,
        );
      const confined = sandboxing(args as Record<string, unknown>) === "confined" ? sandbox : undefined;
      if (sandbox && !confined && sandbox.status.allowUnsandboxedCommands === false)
        throw new ToolError(
          "Running outside the sandbox is turned off here (sandbox.allowUnsandboxedCommands is false). Run the command inside it, or ask the user to run it.",
        );
      const timeoutMs = timeout ?? defaultTimeoutMs;
      const settings = { env, timeoutMs, maxOutputLength, killGraceMs, signal: context.signal, sandbox: confined };
      const notes: string[] = [];
      let run: CommandRun;
      try {
        run = await runCommand(command, { ...settings, cwd: directory });
      } catch (error) {
        // spawn says ENOENT for a missing working directory too: the folder may have been deleted since.
        if (directory === workspace.root || (await stat(directory).catch(() => undefined))?.isDirectory()) throw error;
        notes.push(`[The working directory ${workspace.display(directory)} no longer exists; the command ran in the workspace root.]`);
        directory = workspace.root;
        run = await runCommand(command, { ...settings, cwd: directory });
      }
      const where = (folder: string) => (folder === workspace.root ? "the workspace root" : workspace.display(folder));
      const moved = run.finalDirectory === undefined || run.finalDirectory === directory ? undefined : run.finalDirectory;
      if (moved !== undefined) {
        try {
          directory = await workspace.resolve(moved);
          notes.push(`[Working directory: ${where(directory)}]`);
        } catch {
          notes.push(`[The command ended in ${moved}, outside the workspace; the working directory stays ${where(directory)}.]`);
        }
      }
      const output = run.output.trimEnd();
      if (run.stopped === "timeout")
        throw new ToolError(
          `The command timed out after ${formatDuration(timeoutMs)} and was stopped, with everything it started. Output so far:\n${output || "(none)"}`,
        );
      if (run.stopped === "abort")
        throw new ToolError(`The command was stopped (the call was aborted). Output so far:\n${output || "(none)"}`);
      const status = run.exitCode !== null ? `Exit code: ${run.exitCode}` : `Killed by ${run.signal ?? "a signal"}`;
      if (confined && run.exitCode !== 0 && sandboxRefusal.test(output)) notes.push(sandboxNote(confined));
      return [output === "" ? "(no output)" : output, "", status, ...notes].join("\n");
    },
  };
}

type RunSettings = {
  sandbox: Sandbox | undefined;
  cwd: string;
  env: Readonly<Record<string, string | undefined>>;
  timeoutMs: number;
  maxOutputLength: number;
  killGraceMs: number;
  signal: AbortSignal;
};

/**
 * What bash runs: stderr goes into stdout's pipe (so the two keep the order they were written in), an `EXIT` trap
 * writes the final `pwd` to descriptor 3 (also after an `exit` in the command), and the command, passed as `$1`,
 * is run by `eval` with no positional parameters: its error messages count its own lines and never show this.
 * A lifeline watches descriptor 4, whose other end this process holds: if this process dies (even by SIGKILL,
 * when nothing of ours runs), or closes it to end the command, the read ends and the whole group is killed, so no
 * command outlives the agent. It kills its own process group (`kill 0`), which is the command's wherever it runs:
 * bash's own outside the sandbox, and bubblewrap's inside (its new session, which a signal to the group this
 * process started does not reach). A bare
 * `wait` waits for the command's own jobs, not for it (a function in front of the builtin; `disown` made bash print
 * "wait_for: No record of process" now and then).
 */
const shellScript =
  `exec 2>&1; { trap - EXIT; read -r -u 4 _; kill -KILL 0; } </dev/null >/dev/null 2>&1 3>&- & __minagent_lifeline=$!; ` +
  `wait() { if [ $# -eq 0 ]; then local job; for job in $(jobs -p); do [ "$job" = "$__minagent_lifeline" ] || set -- "$@" "$job"; done; ` +
  `[ $# -eq 0 ] && return 0; fi; builtin wait "$@"; }; ` +
  `trap 'pwd >&3' EXIT; __minagent_command=$1; set --; eval "$__minagent_command"`;

/**
 * Runs one command (confined, when a sandbox is given) and resolves when its output is complete. Rejects only when
 * the shell cannot be started.
 */
async function runCommand(command: string, settings: RunSettings): Promise<CommandRun> {
  const argv = ["bash", "-c", shellScript, "bash", command];
  // With PWD naming the directory, bash's pwd keeps the path as given (a symlinked workspace stays inside).
  const env = { ...settings.env, PWD: settings.cwd };
  const confined = await settings.sandbox?.confine({ argv, cwd: settings.cwd, env, firstFreeDescriptor: 5 });
  try {
    // Preparing the sandbox takes a moment (its network namespace, at the first command): a call stopped meanwhile
    // (Esc) must not start its command once nobody waits for it.
    if (settings.signal.aborted) return { output: "", exitCode: null, signal: null, stopped: "abort", finalDirectory: undefined };
    return await spawnCommand(argv, env, confined, settings);
  } finally {
    await confined?.release();
  }
}

/** The process groups of the commands running now, in this process: {@link killRunningCommands} ends them. */
const runningCommands = new Map<ChildProcess, () => void>();

/**
 * Kills every command still running in this process (its whole process group, SIGKILL at once), and says how many
 * there were. For a process about to exit (`minagent acp` once its editor has gone): a command that ignores SIGTERM
 * must not outlive it, and the usual grace before SIGKILL would outlast the exit.
 */
export function killRunningCommands(): number {
  const count = runningCommands.size;
  for (const kill of runningCommands.values()) kill();
  runningCommands.clear();
  return count;
}

function spawnCommand(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  confined: ConfinedCommand | undefined,
  settings: RunSettings,
): Promise<CommandRun> {
  return new Promise((resolve, reject) => {
    const output = new OutputTail(settings.maxOutputLength);
    let finalDirectory = "";
    let stopped: CommandRun["stopped"];
    let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    let killTimer: NodeJS.Timeout | undefined;
    let settled = false;
    const inputs = confined?.inputs ?? [];
    const child = spawn(confined?.file ?? (argv[0] as string), confined?.args ?? argv.slice(1), {
      cwd: settings.cwd,
      env: confined?.env ?? env,
      detached: true,
      stdio: ["ignore", "pipe", "pipe", "pipe", "pipe", ...inputs.map(() => "pipe" as const)],
    });
    const lifeline = child.stdio[4] as Readable | null;
    // The group this process started, and through the lifeline the command's own (a sandboxed command's session).
    const killAll = () => {
      killGroup(child, "SIGKILL");
      lifeline?.destroy();
    };
    runningCommands.set(child, killAll);
    // The sandbox's own inputs (its seccomp filter), read once by bubblewrap before the command starts.
    // (A bubblewrap that fails before reading says why on stderr; the broken pipe says nothing more.)
    for (const { descriptor, bytes } of inputs) {
      const input = child.stdio[descriptor] as (NodeJS.WritableStream & { on(event: "error", listener: () => void): void }) | null;
      input?.on("error", () => {});
      input?.end(bytes);
    }
    const streams = [child.stdout, child.stderr, child.stdio[3] as Readable | null, child.stdio[4] as Readable | null];
    for (const stream of streams.slice(0, 2)) stream?.setEncoding("utf8").on("data", (text: string) => output.add(text));
    streams[2]?.setEncoding("utf8").on("data", (text: string) => {
      finalDirectory += text;
    });
    const settle = (error?: unknown) => {
      if (settled) return;
      settled = true;
      runningCommands.delete(child);
      clearTimeout(timer);
      clearTimeout(killTimer);
      settings.signal.removeEventListener("abort", onAbort);
      // Pipes can all close before the grace ends (a member that ignores SIGTERM and closed them): whatever is
      // left of the group is killed now, since the timer that would have done it has just been cleared.
      killGroup(child, "SIGKILL");
      for (const stream of streams) stream?.destroy();
      if (error !== undefined) return reject(error);
      const directory = finalDirectory.trimEnd().split("\n").at(-1);
      resolve({
        output: output.text(),
        exitCode: exit?.code ?? null,
        signal: exit?.signal ?? null,
        stopped,
        finalDirectory: directory === "" ? undefined : directory,
      });
    };
    const stop = (why: "timeout" | "abort") => {
      stopped ??= why;
      killGroup(child, "SIGTERM");
      killTimer ??= setTimeout(killAll, settings.killGraceMs);
    };
    const timer = setTimeout(() => stop("timeout"), settings.timeoutMs);
    const onAbort = () => stop("abort");
    if (settings.signal.aborted) stop("abort");
    else settings.signal.addEventListener("abort", onAbort, { once: true });
    child.on("error", (error) => {
      const tooLong = (error as NodeJS.ErrnoException).code === "E2BIG";
      const message = tooLong
        ? "The command and its environment are over the system's limit for a new process (E2BIG). Write the script to a file with the Write tool and run that file instead."
        : `Could not run the command: ${error.message}`;
      settle(new ToolError(message, { cause: error }));
    });
    child.on("exit", (code, signal) => {
      exit = { code, signal };
      clearTimeout(timer);
      settings.signal.removeEventListener("abort", onAbort);
      // The shell is gone; end what it left running, and stop waiting for pipes held by what will not end.
      killGroup(child, "SIGTERM");
      clearTimeout(killTimer);
      killTimer = setTimeout(() => {
        killGroup(child, "SIGKILL");
        settle();
      }, exitGraceMs);
    });
    child.on("close", () => settle());
  });
}

/** Signals the whole process group the command leads; nothing to do when it is already gone. */
function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // ESRCH: the group has ended
  }
}

/**
 * Output kept within a length: the first half as it came, the last half as a rolling window, and a count of
 * what fell between them. Memory stays bounded however much a command prints.
 */
class OutputTail {
  #head = "";
  #tail: string[] = [];
  #tailLength = 0;
  #cut = 0;
  #cutLines = 0;
  readonly #headLength: number;
  readonly #tailMax: number;

  constructor(maxLength: number) {
    this.#headLength = Math.ceil(maxLength / 2);
    this.#tailMax = maxLength - this.#headLength;
  }

  add(text: string): void {
    let rest = text;
    if (this.#head.length < this.#headLength) {
      const room = this.#headLength - this.#head.length;
      this.#head += rest.slice(0, room);
      rest = rest.slice(room);
    }
    if (rest === "") return;
    this.#tail.push(rest);
    this.#tailLength += rest.length;
    while (this.#tail.length > 1 && this.#tailLength - (this.#tail[0] as string).length >= this.#tailMax)
      this.#drop(this.#tail.shift() as string);
  }

  text(): string {
    let head = this.#head;
    let tail = this.#tail.join("");
    if (tail.length > this.#tailMax) {
      this.#drop(tail.slice(0, tail.length - this.#tailMax));
      tail = tail.slice(tail.length - this.#tailMax);
    }
    if (this.#cut === 0) return head + tail;
    // Cut at line breaks when one is near, so that no half line is shown.
    const headEnd = head.lastIndexOf("\n") + 1;
    if (headEnd > 0 && head.length - headEnd < 200) [head, this.#cut] = [head.slice(0, headEnd), this.#cut + head.length - headEnd];
    const tailStart = tail.indexOf("\n") + 1;
    if (tailStart > 0 && tailStart < 200) {
      this.#drop(tail.slice(0, tailStart));
      tail = tail.slice(tailStart);
    }
    const lines = this.#cutLines > 0 ? ` (${formatNumber(this.#cutLines)} line breaks)` : "";
    return `${head}\n[… ${formatNumber(this.#cut)} characters${lines} cut from the middle of the output …]\n\n${tail}`;
  }

  #drop(text: string): void {
    this.#cut += text.length;
    this.#tailLength -= text.length;
    for (let index = text.indexOf("\n"); index !== -1; index = text.indexOf("\n", index + 1)) this.#cutLines += 1;
  }
}

// What a command says when the sandbox stopped it: a read-only file system, a refused host, no route out.
const sandboxRefusal =
  /Read-only file system|refused network access|Network is unreachable|Could not resolve host|Temporary failure in name resolution|Address family not supported/i;

function sandboxDescription(sandbox: Sandbox): string {
  const domains = sandbox.status.allowedDomains;
  return [
    "Commands run in a sandbox: they may write only in the workspace, its added directories and $TMPDIR (use it for temporary files: /tmp is read-only);",
    "the agent's settings and git hooks are read-only;",
    domains.length > 0
      ? `the network goes through a proxy that allows ${domains.join(", ")}${sandbox.status.asksForNewDomains ? " and asks the user about other hosts" : ""};`
      : sandbox.status.asksForNewDomains
        ? "the network goes through a proxy that asks the user about each new host;"
        : "there is no network;",
    "nothing they start outlives them.",
  ].join(" ");
}

function sandboxNote(sandbox: Sandbox): string {
  const writable = sandbox.status.writable.join(", ");
  return `[The command ran in the sandbox: it may write only in ${writable} and $TMPDIR (not /tmp), and reach only the hosts the sandbox allows. If it cannot work inside, say why and call Bash again with dangerouslyDisableSandbox: true — the user will be asked.]`;
}

/** `env` without the variables whose names look like credentials (see {@link BashToolOptions.env}). */
export function withoutCredentials(env: Readonly<Record<string, string | undefined>>): Record<string, string | undefined> {
  return Object.fromEntries(Object.entries(env).filter(([name]) => !credentialName.test(name)));
}

function formatDuration(milliseconds: number): string {
  if (milliseconds < 1000) return `${milliseconds} ms`;
  const seconds = milliseconds / 1000;
  return seconds < 120 ? `${Number(seconds.toFixed(1))} s` : `${Number((seconds / 60).toFixed(1))} min`;
}

function positiveInteger(option: string, value: number): number {
  if (!Number.isInteger(value) || value < 1) throw new UsageError(`Bash tool option ${option} must be a positive integer, got ${value}.`);
  return value;
}
