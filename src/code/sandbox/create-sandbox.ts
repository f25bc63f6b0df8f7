import { mkdir, mkdtemp, realpath, rm, rmdir, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { UsageError } from "../../errors.js";
import { bubblewrapArguments, findBubblewrap } from "./bubblewrap.js";
import { controlPaths, isDirectory } from "./control-paths.js";
import { createSeatbeltSandbox } from "./create-seatbelt-sandbox.js";
import { findDeniedPaths, literalDenials } from "./find-denied-paths.js";
import { type NetworkHolder, proxyPort, proxyVariables, startNetworkHolder } from "./network-namespace.js";
import type { Sandbox, SandboxOptions, SandboxStatus } from "./sandbox-types.js";
import { findSeatbelt } from "./seatbelt.js";
import { seccompFilter } from "./seccomp-filter.js";

export type { ConfinedCommand, Sandbox, SandboxOptions, SandboxStatus } from "./sandbox-types.js";

// The descriptor a confined program's shell opens the seccomp filter on.
const programFilterDescriptor = 9;

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
  const unavailable = (problem: string) => {
    if (settings.failIfUnavailable) throw new UsageError(`The sandbox is required (sandbox.failIfUnavailable) but cannot run: ${problem}.`);
    return off(problem);
  };
  const writable = await existingDirectories([...options.directories, ...settings.allowWrite]);
  const protectedHomes = [options.home, options.userDirectory, join(options.home, ".claude")];
  const denials = [...(await literalDenials(settings.denyRead)), ...(options.readDenials ?? [])];
  if (process.platform === "darwin") {
    const seatbelt = await findSeatbelt();
    if (seatbelt.problem !== undefined) return unavailable(seatbelt.problem);
    return createSeatbeltSandbox(options, { base, writable, denials, protectedHomes });
  }
  const programs = await findBubblewrap(options.env);
  if ("problem" in programs) return unavailable(programs.problem);
  const wantsProxy = allowedDomains.length > 0 || options.askNetwork !== undefined;
  if (wantsProxy && !programs.socat) {
    const problem = "socat is not installed, so commands could reach no allowed domain (apt-get install socat)";
    if (settings.failIfUnavailable) throw new UsageError(`The sandbox is required (sandbox.failIfUnavailable) but ${problem}.`);
  }
  // The session's folders are made at the first command, so that an agent that never runs one leaves nothing behind.
  let folders: Promise<{ session: string; temporary: string; emptyDirectory: string }> | undefined;
  const prepareFolders = () =>
    (folders ??= (async () => {
      const session = await realpath(await mkdtemp(join(tmpdir(), "minagent-sandbox-")));
      const made = { session, temporary: join(session, "tmp"), emptyDirectory: join(session, "empty") };
      await Promise.all([mkdir(made.temporary, { mode: 0o700 }), mkdir(made.emptyDirectory, { mode: 0o555 })]);
      status.temporary = made.temporary;
      return made;
    })());
  const filter = seccompFilter({ allowUnixSockets: settings.allowAllUnixSockets });
  const placeholders = new Map<string, number>();
  let holder: Promise<NetworkHolder> | undefined;
  const status: SandboxStatus = {
    ...base,
    enabled: true,
    mechanism: "bubblewrap",
    problem: wantsProxy && !programs.socat ? "socat is not installed: commands reach no network, not even allowedDomains" : undefined,
    // Without socat there is no proxy to ask through.
    asksForNewDomains: base.asksForNewDomains && programs.socat !== undefined,
    writable,
    temporary: undefined,
  };

  const confine: Sandbox["confine"] = async ({ argv, cwd, env, firstFreeDescriptor }) => {
    const { session, temporary, emptyDirectory } = await prepareFolders();
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
        // The empty folder is also GIT_TEMPLATE_DIR: read-only, so no template can be planted in it.
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
    const { session } = await prepareFolders();
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
      const made = await folders?.catch(() => undefined);
      if (made) await rm(made.session, { recursive: true, force: true });
    },
  };
}

async function existingDirectories(paths: readonly string[]): Promise<string[]> {
  const found: string[] = [];
  for (const path of paths) {
    const real = await realpath(path).catch(() => undefined);
    if (real !== undefined && (await isDirectory(real)) && !found.includes(real)) found.push(real);
  }
  return found;
}
