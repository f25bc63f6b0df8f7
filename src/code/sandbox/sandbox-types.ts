// The sandbox's contract, apart from its makers (bubblewrap's and Seatbelt's), so that neither imports the other's file.
import type { ReadDenial } from "./find-denied-paths.js";
import type { NetworkDecision, NetworkRequest } from "./network-proxy.js";
import type { ResolvedSandboxSettings } from "./sandbox-settings.js";

/** Settings of `createSandbox`. */
export type SandboxOptions = {
  /** The merged `sandbox` settings (`readSandboxSettings`). */
  settings: ResolvedSandboxSettings;
  /** The folders commands write in: the workspace root first, then its added directories. */
  directories: readonly string[];
  /** The home directory and minagent's own folder: never writable, whatever a rule says. */
  home: string;
  userDirectory: string;
  /** What `Read(…)` deny rules cover, beside `settings.denyRead`. */
  readDenials?: readonly ReadDenial[] | undefined;
  /** Hosts that may be reached beside `settings.allowedDomains` (the domains of `WebFetch(domain:…)` allow rules). */
  allowedDomains?: readonly string[] | undefined;
  /** Hosts closed unless named exactly (the agent's model API). */
  closedHosts?: readonly string[] | undefined;
  /** Asked about a host nothing allows (the interactive CLI asks a person); without it such hosts are refused. */
  askNetwork?: ((request: NetworkRequest) => boolean | Promise<boolean>) | undefined;
  onNetworkDecision?: ((decision: NetworkDecision) => void) | undefined;
  /** Where to look for bubblewrap (default: this process's environment). */
  env?: Readonly<Record<string, string | undefined>> | undefined;
};

/** Whether commands really run confined, and in what. */
export type SandboxStatus = {
  /** Commands run inside the OS sandbox. */
  enabled: boolean;
  /** The settings or flags asked for it (false: turned off by `enabled: false` or `--no-sandbox`). */
  requested: boolean;
  /** What confines them. */
  mechanism: "bubblewrap" | "seatbelt" | undefined;
  /** Why it is not enabled although requested (what is missing). */
  problem: string | undefined;
  /** Folders commands may write in (besides the session's temporary folder). */
  writable: string[];
  /** The session's temporary folder (`TMPDIR`; `/tmp` itself is read-only), made at the first command (undefined before). */
  temporary: string | undefined;
  /** `filesystem.denyRead` as given; Read deny rules are added at each call. */
  denyRead: string[];
  /** Hosts the proxy lets through without asking. */
  allowedDomains: string[];
  /** Whether a new host is put to a person (interactive) or refused. */
  asksForNewDomains: boolean;
  unixSockets: boolean;
  allowUnsandboxedCommands: boolean | undefined;
};

/** A program and its arguments to spawn instead of the command, and what to undo after. */
export type ConfinedCommand = {
  file: string;
  args: string[];
  env: Record<string, string | undefined>;
  /** Bytes to write, in order, to the descriptors after stdio: the seccomp filter at `seccompDescriptor`. */
  inputs: { descriptor: number; bytes: Buffer }[];
  /** Call once the command has ended: removes the placeholders made for it. */
  release(): Promise<void>;
};

/** The OS sandbox Bash commands run in: `createSandbox` makes one. */
export type Sandbox = {
  readonly status: SandboxStatus;
  /**
   * Wraps `bash argv…` (run in `cwd`, with `env`) so it runs confined. `firstFreeDescriptor` is the lowest descriptor
   * the caller leaves free for the sandbox's own use.
   */
  confine(command: {
    argv: readonly string[];
    cwd: string;
    env: Readonly<Record<string, string | undefined>>;
    firstFreeDescriptor: number;
  }): Promise<ConfinedCommand>;
  /**
   * The same confinement for a long-running program started by someone else's spawn (a stdio MCP server): a command
   * line that needs no extra descriptor (a shell opens the seccomp filter from a file and execs the rest). Call
   * `release` once the program has ended.
   */
  confineProgram(program: {
    command: string;
    args: readonly string[];
    cwd: string;
    env: Readonly<Record<string, string | undefined>>;
  }): Promise<{
    command: string;
    args: string[];
    env: Record<string, string | undefined>;
    release(): Promise<void>;
  }>;
  /** Stops the session's network namespace and proxy, and removes the temporary folder. */
  close(): Promise<void>;
};
