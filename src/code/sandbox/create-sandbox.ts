import { type ChildProcess, spawn } from "node:child_process";
import { mkdir, mkdtemp, realpath, rm, rmdir, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Readable } from "node:stream";
import { UsageError } from "../../errors.js";
import { type BubblewrapPrograms, bubblewrapArguments, findBubblewrap, sessionNamespaceArguments } from "./bubblewrap.js";
import { findDeniedPaths, literalDenials, type ReadDenial } from "./find-denied-paths.js";
import { type NetworkDecision, type NetworkProxy, type NetworkRequest, startNetworkProxy } from "./network-proxy.js";
import type { ResolvedSandboxSettings } from "./sandbox-settings.js";
import { seccompFilter } from "./seccomp-filter.js";

/** Settings of {@link createSandbox}. */
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
  mechanism: "bubblewrap" | undefined;
  /** Why it is not enabled although requested (what is missing). */
  problem: string | undefined;
  /** Folders commands may write in (besides the session's temporary folder). */
  writable: string[];
  /** The session's temporary folder (`TMPDIR`, and `/tmp` inside). */
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

/** The OS sandbox Bash commands run in: {@link createSandbox}. */
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

// The descriptor a confined program's shell opens the seccomp filter on.
const programFilterDescriptor = 9;

// The proxy's port inside the sandbox's own loopback: a command's servers use other ports.
const proxyPort = 39_281;
// Control files of the agent and of git: a command that changed them would change what runs outside the sandbox.
const controlDirectories = [".minagent", ".claude"];
const controlFilesIfPresent = [".git/hooks", ".git/config", ".vscode", ".idea"];

/**
 * The OS sandbox for shell commands (Linux: bubblewrap). Every confined command writes only in `directories`,
 * `filesystem.allowWrite` and a temporary folder of the session's; cannot change the agent's control files (even
 * ones that do not exist yet); reads nothing `denyRead` or a Read deny rule covers; reaches the network only through
 * a proxy that lets `allowedDomains` through; cannot use Unix sockets; and everything it starts is ended with it.
 * When the sandbox cannot run here, `status.enabled` is false and `status.problem` says why; with
 * `failIfUnavailable` that is a UsageError instead.
 */
export async function createSandbox(options: SandboxOptions): Promise<Sandbox> {
  const settings = options.settings;
  const requested = settings.enabled !== false;
  const allowedDomains = [...settings.allowedDomains, ...(options.allowedDomains ?? [])];
  const base = {
    requested,
    writable: [] as string[],
    temporary: undefined,
    denyRead: settings.denyRead,
    allowedDomains,
    asksForNewDomains: options.askNetwork !== undefined,
    unixSockets: settings.allowAllUnixSockets,
    allowUnsandboxedCommands: settings.allowUnsandboxedCommands,
  };
  const off = (problem: string | undefined): Sandbox => ({
    status: { ...base, enabled: false, mechanism: undefined, problem },
    confine: () => Promise.reject(new Error("the sandbox is not enabled")),
    confineProgram: () => Promise.reject(new Error("the sandbox is not enabled")),
    close: async () => {},
  });
  if (!requested) return off(undefined);
  const programs = await findBubblewrap(options.env);
  if ("problem" in programs) {
    if (settings.failIfUnavailable)
      throw new UsageError(`The sandbox is required (sandbox.failIfUnavailable) but cannot run: ${programs.problem}.`);
    return off(programs.problem);
  }
  const wantsProxy = allowedDomains.length > 0 || options.askNetwork !== undefined;
  if (wantsProxy && !programs.socat) {
    const problem = "socat is not installed, so commands could reach no allowed domain (apt-get install socat)";
    if (settings.failIfUnavailable) throw new UsageError(`The sandbox is required (sandbox.failIfUnavailable) but ${problem}.`);
  }
  const session = await realpath(await mkdtemp(join(tmpdir(), "minagent-sandbox-")));
  const temporary = join(session, "tmp");
  const emptyDirectory = join(session, "empty");
  await Promise.all([mkdir(temporary, { mode: 0o700 }), mkdir(emptyDirectory, { mode: 0o555 })]);
  const writable = await existingDirectories([...options.directories, ...settings.allowWrite]);
  const protectedHomes = [options.home, options.userDirectory, join(options.home, ".claude")];
  const literal = await literalDenials(settings.denyRead);
  const denials = [...literal, ...(options.readDenials ?? [])];
  const filter = seccompFilter({ allowUnixSockets: settings.allowAllUnixSockets });
  const placeholders = new Map<string, number>();
  let holder: Promise<NetworkHolder> | undefined;
  const status: SandboxStatus = {
    ...base,
    enabled: true,
    mechanism: "bubblewrap",
    problem: wantsProxy && !programs.socat ? "socat is not installed: commands reach no network, not even allowedDomains" : undefined,
    writable,
    temporary,
  };

  const confine: Sandbox["confine"] = async ({ argv, cwd, env, firstFreeDescriptor }) => {
    holder ??= startNetworkHolder(programs, session, wantsProxy && programs.socat !== undefined, options, allowedDomains);
    const network = await holder;
    const control = await controlPaths(writable, protectedHomes);
    // Made here, by the agent, rather than by bubblewrap inside: a root agent's namespace may not write in a folder
    // another user owns. A placeholder that cannot be made cannot be made by the command either.
    const missing: string[] = [];
    for (const path of control.missing) {
      if (
        !placeholders.has(path) &&
        (await mkdir(path).then(
          () => false,
          (error: NodeJS.ErrnoException) => error.code !== "EEXIST",
        ))
      )
        continue;
      placeholders.set(path, (placeholders.get(path) ?? 0) + 1);
      missing.push(path);
    }
    const readOnly = control.readOnly;
    const hidden = await findDeniedPaths(denials);
    const args = [
      "--target",
      String(network.pid),
      "--user",
      "--net",
      "--preserve-credentials",
      "--",
      programs.bwrap,
      ...bubblewrapArguments({
        writable,
        temporary,
        // The empty folder is also GIT_TEMPLATE_DIR, where /tmp inside would hide it.
        readOnly: [...readOnly, emptyDirectory],
        placeholders: missing.filter((path) => !path.endsWith("/.git")),
        emptyDirectory,
        hiddenFiles: hidden.files,
        hiddenDirectories: hidden.directories,
        seccompDescriptor: firstFreeDescriptor,
        cwd,
        uid: process.getuid?.() ?? 0,
        gid: process.getgid?.() ?? 0,
      }),
      ...argv,
    ];
    const proxy = network.proxied ? `http://127.0.0.1:${proxyPort}` : undefined;
    return {
      file: programs.nsenter,
      args,
      env: {
        ...env,
        ...proxyVariables(proxy),
        TMPDIR: temporary,
        GIT_TEMPLATE_DIR: emptyDirectory,
        // Caches that would go to the read-only home directory.
        XDG_CACHE_HOME: join(temporary, "cache"),
        npm_config_cache: join(temporary, "npm-cache"),
      },
      inputs: [{ descriptor: firstFreeDescriptor, bytes: filter }],
      release: async () => {
        // The innermost first: .git/hooks before the .git made around it.
        for (const path of [...missing].reverse()) {
          const count = (placeholders.get(path) ?? 1) - 1;
          if (count > 0) {
            placeholders.set(path, count);
            continue;
          }
          placeholders.delete(path);
          // Only an empty folder of ours goes: something a person put there meanwhile stays.
          await rmdir(path).catch(() => {});
        }
      },
    };
  };

  let filterFile: Promise<string> | undefined;
  const confineProgram: Sandbox["confineProgram"] = async ({ command, args, cwd, env }) => {
    filterFile ??= writeFile(join(session, "seccomp.bpf"), filter, { mode: 0o400 }).then(() => join(session, "seccomp.bpf"));
    const path = await filterFile;
    const confined = await confine({ argv: [command, ...args], cwd, env, firstFreeDescriptor: programFilterDescriptor });
    return {
      command: "sh",
      // sh opens the filter on descriptor 9 and becomes nsenter, which becomes bubblewrap: one process, so whoever
      // spawned it ends the whole sandbox by ending it.
      args: ["-c", `exec ${programFilterDescriptor}<"$0"; exec "$@"`, path, confined.file, ...confined.args],
      env: confined.env,
      release: confined.release,
    };
  };

  return {
    status,
    confine,
    confineProgram,
    close: async () => {
      const network = await holder?.catch(() => undefined);
      await network?.stop();
      await rm(session, { recursive: true, force: true });
    },
  };
}

/** The session's network namespace, held by one process (and the bridge to the proxy, when there is one). */
type NetworkHolder = { pid: number; proxied: boolean; stop(): Promise<void> };

/**
 * Starts the process whose network namespace every command enters: only loopback, plus (with a proxy) socat on
 * 127.0.0.1:39281 forwarding to the proxy's Unix socket outside. One per session, so a command pays for neither.
 */
async function startNetworkHolder(
  programs: BubblewrapPrograms,
  session: string,
  proxied: boolean,
  options: SandboxOptions,
  allowedDomains: string[],
): Promise<NetworkHolder> {
  let proxy: NetworkProxy | undefined;
  const socketPath = join(session, "proxy.sock");
  if (proxied)
    proxy = await startNetworkProxy({
      socketPath,
      allowedDomains,
      closedHosts: options.closedHosts,
      ask: options.askNetwork,
      onDecision: options.onNetworkDecision,
    });
  // The bridge to the proxy, and one forward per exact host-loopback entry with a port (`localhost:5432`): the host's
  // service answers at the same port on the command's own loopback, for any protocol, through a CONNECT tunnel.
  const bridges = proxied
    ? [
        `TCP-LISTEN:${proxyPort},bind=127.0.0.1,fork,reuseaddr UNIX-CONNECT:${socketPath}`,
        ...loopbackForwards(allowedDomains).map(
          ({ host, port }) => `TCP-LISTEN:${port},bind=127.0.0.1,fork,reuseaddr PROXY:127.0.0.1:${host}:${port},proxyport=${proxyPort}`,
        ),
      ]
    : [];
  const socat = shellQuote(programs.socat ?? "socat");
  // "ready" on stdout comes once bubblewrap has set the namespaces up and started the program: entering them before
  // then can fail for a user who is not root.
  const program = ["sh", "-c", `${bridges.map((addresses) => `${socat} -d -d ${addresses} & `).join("")}echo ready; exec sleep infinity`];
  const child = spawn(
    programs.bwrap,
    // --dev-bind, not --dev: mounting a devpts would make bubblewrap nest a second user namespace, which nsenter could not
    // enter the network namespace through for a user who is not root.
    [...sessionNamespaceArguments, "--dev-bind", "/dev", "/dev", "--info-fd", "3", "--", ...program],
    // Nothing of the agent's environment: the process is the sandbox's, though no command can see it.
    { stdio: ["ignore", "pipe", "pipe", "pipe"], env: { PATH: process.env.PATH ?? "/usr/bin:/bin" } },
  );
  const pid = await readChildPid(child, bridges.length);
  // Once it is up, it must not keep the agent's process alive (it ends with it: --die-with-parent).
  child.unref();
  for (const stream of [child.stdout, child.stderr, child.stdio[3] as Readable | null])
    (stream as unknown as { unref?: () => void })?.unref?.();
  return {
    pid,
    proxied,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once("exit", resolve));
        child.ref(); // else nothing would keep the process alive to see it exit
        child.kill("SIGKILL");
        await exited;
      }
      await proxy?.close();
    },
  };
}

/** The namespace's process id from bubblewrap's info descriptor; with a bridge, also waits until it listens. */
function readChildPid(child: ChildProcess, bridges: number): Promise<number> {
  return new Promise((resolve, reject) => {
    let info = "";
    let errors = "";
    let pid: number | undefined;
    let listening = bridges === 0;
    let ready = false;
    const finish = () => {
      if (pid !== undefined && listening && ready) resolve(pid);
    };
    child.stdout?.setEncoding("utf8").on("data", (text: string) => {
      ready ||= text.includes("ready");
      finish();
    });
    (child.stdio[3] as Readable).setEncoding("utf8").on("data", (text: string) => {
      info += text;
      const match = /"child-pid"\s*:\s*(\d+)/.exec(info);
      if (match) pid = Number(match[1]);
      finish();
    });
    child.stderr?.setEncoding("utf8").on("data", (text: string) => {
      errors += text;
      if ((errors.match(/listening on/g)?.length ?? 0) >= bridges) listening = true;
      finish();
    });
    child.once("error", reject);
    child.once("exit", (code) =>
      reject(new Error(`the sandbox's network namespace ended at once (exit ${code}): ${errors.trim().slice(0, 500)}`)),
    );
  });
}

/** Which control paths exist (mounted read-only) and which must be held empty so that nothing creates them. */
async function controlPaths(
  writable: readonly string[],
  protectedHomes: readonly string[],
): Promise<{ readOnly: string[]; missing: string[] }> {
  const readOnly: string[] = [];
  const missing: string[] = [];
  const kinds = await Promise.all(
    writable.flatMap((directory, index) => [
      ...controlDirectories.map(async (name) => ({
        path: join(directory, name),
        exists: await exists(join(directory, name)),
        hold: index === 0,
      })),
      ...controlFilesIfPresent.map(async (name) => ({
        path: join(directory, name),
        exists: await exists(join(directory, name)),
        hold: false,
      })),
    ]),
  );
  for (const { path, exists, hold } of kinds) {
    if (exists) readOnly.push(path);
    else if (hold) missing.push(path);
  }
  // The workspace's .git/hooks is held even before it exists (a new hook would run at the next commit outside). When
  // .git does not exist either, an empty .git is made around the placeholder: git takes a .git without HEAD
  // for no repository, as before, and `git init` fills it (the sandbox points GIT_TEMPLATE_DIR at an empty folder, so
  // it copies no hooks). Both go again after the command if they are still empty.
  const git = join(writable[0] ?? "/", ".git");
  const gitHooks = join(git, "hooks");
  if (!readOnly.includes(gitHooks) && !(await exists(git))) missing.push(git, gitHooks);
  else if (!readOnly.includes(gitHooks) && (await isDirectory(git))) missing.push(gitHooks);
  // The home directory and minagent's own stay read-only where a writable folder holds them (a workspace of `/`), unless
  // they hold a writable folder themselves (a workspace in the home directory), which a read-only mount would hide.
  for (const home of protectedHomes) {
    const heldByWritable = writable.some((directory) => home.startsWith(`${directory === "/" ? "" : directory}/`));
    const holdsWritable = writable.some((directory) => directory === home || directory.startsWith(`${home}/`));
    if (heldByWritable && !holdsWritable && (await exists(home))) readOnly.push(home);
  }
  return { readOnly, missing };
}

/** Exact host-loopback entries with a port, which get a forward of their own. */
function loopbackForwards(allowedDomains: readonly string[]): { host: string; port: number }[] {
  return allowedDomains.flatMap((domain) => {
    const match = /^(localhost|127\.\d+\.\d+\.\d+):(\d+)$/.exec(domain);
    return match && Number(match[2]) !== proxyPort ? [{ host: match[1] as string, port: Number(match[2]) }] : [];
  });
}

function shellQuote(text: string): string {
  return `'${text.replaceAll("'", "'\\''")}'`;
}

/**
 * The variables that send clients to the proxy. Loopback names go direct: a command's loopback is its own, so its
 * servers answer it, and the host's services that an entry opens answer there too (see loopbackForwards).
 */
function proxyVariables(proxy: string | undefined): Record<string, string | undefined> {
  if (proxy === undefined) return {};
  const variables: Record<string, string> = {};
  for (const name of ["HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"]) {
    variables[name] = proxy;
    variables[name.toLowerCase()] = proxy;
  }
  const direct = "localhost,127.0.0.1,::1";
  // Node's own fetch reads them only when asked to (Node 24).
  return { ...variables, NODE_USE_ENV_PROXY: "1", NO_PROXY: direct, no_proxy: direct };
}

async function existingDirectories(paths: readonly string[]): Promise<string[]> {
  const found: string[] = [];
  for (const path of paths) {
    const real = await realpath(path).catch(() => undefined);
    if (real !== undefined && (await isDirectory(real)) && !found.includes(real)) found.push(real);
  }
  return found;
}

function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

function isDirectory(path: string): Promise<boolean> {
  return stat(path).then(
    (stats) => stats.isDirectory(),
    () => false,
  );
}
