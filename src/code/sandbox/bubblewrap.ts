import { execFile } from "node:child_process";
import { access, constants } from "node:fs/promises";
import { delimiter, join } from "node:path";
import { seccompSupported } from "./seccomp-filter.js";

/**
 * The session's network namespace: its own user, network and pid namespaces over a read-only root, ended with the
 * agent. (The probe checks that bubblewrap can make exactly these.)
 */
export const sessionNamespaceArguments = ["--unshare-user", "--unshare-net", "--unshare-pid", "--die-with-parent", "--ro-bind", "/", "/"];

/** The programs a Linux sandbox is made of, found on `PATH`. */
export type BubblewrapPrograms = { bwrap: string; nsenter: string; socat: string | undefined };

/**
 * Finds bubblewrap and nsenter on `PATH` and checks that bubblewrap can make the namespaces the sandbox needs here
 * (a container may forbid user namespaces). Resolves with the programs, or with why the sandbox cannot run.
 */
export async function findBubblewrap(
  env: Readonly<Record<string, string | undefined>> = process.env,
): Promise<BubblewrapPrograms | { problem: string }> {
  if (process.platform !== "linux") return { problem: `bubblewrap runs on Linux, not ${process.platform}` };
  if (!seccompSupported()) return { problem: `the sandbox's seccomp filter knows x64 and arm64, not ${process.arch}` };
  // Looked for together: this runs before a session's first request.
  const [bwrap, nsenter, socat] = await Promise.all(["bwrap", "nsenter", "socat"].map((name) => findProgram(name, env)));
  if (!bwrap)
    return { problem: "bubblewrap is not installed (Debian and Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap)" };
  if (!nsenter) return { problem: "nsenter (util-linux) is not installed" };
  const probe = await run(bwrap, [...sessionNamespaceArguments, "--", "true"]);
  if (probe !== undefined) return { problem: `bubblewrap cannot create its namespaces here: ${probe}` };
  return { bwrap, nsenter, socat };
}

/** The first folder of PATH holding an executable `name`; every folder is asked at once. */
async function findProgram(name: string, env: Readonly<Record<string, string | undefined>>): Promise<string | undefined> {
  const candidates = (env.PATH ?? "/usr/local/bin:/usr/bin:/bin")
    .split(delimiter)
    .filter((directory) => directory !== "")
    .map((directory) => join(directory, name));
  const executable = await Promise.all(
    candidates.map((path) =>
      access(path, constants.X_OK).then(
        () => true,
        () => false,
      ),
    ),
  );
  return candidates[executable.indexOf(true)];
}

/** Runs a probe; resolves undefined when it succeeded, else its error output's first line. */
function run(file: string, args: string[]): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile(file, args, { timeout: 5000 }, (error, _stdout, stderr) => {
      resolve(error ? stderr.trim().split("\n")[0] || error.message : undefined);
    });
  });
}

/** Everything one confined command's bubblewrap line is made from. */
export type ConfinedCommandPlan = {
  /** Folders mounted writable at their own paths. */
  writable: readonly string[];
  /** The session's temporary folder: writable at its own path (`TMPDIR`). */
  temporary: string;
  /** Paths mounted read-only over the writable ones (control files that exist). */
  readOnly: readonly string[];
  /** Paths that do not exist yet, held by an empty read-only folder so that nothing can create them. */
  placeholders: readonly string[];
  /** An empty folder to mount as each placeholder. */
  emptyDirectory: string;
  /** Files and folders hidden from reads. */
  hiddenFiles: readonly string[];
  hiddenDirectories: readonly string[];
  /** The descriptor bubblewrap reads the seccomp filter from. */
  seccompDescriptor: number;
  cwd: string;
  /** The user and group the command runs as inside: the agent's own (else entering the session's namespace would show root). */
  uid: number;
  gid: number;
};

/** The bubblewrap arguments that confine one command, up to and including the `--` before it. */
export function bubblewrapArguments(plan: ConfinedCommandPlan): string[] {
  const args = [
    // Its own user, process, IPC, host-name and cgroup namespaces (the network one is the session's, entered by nsenter).
    "--unshare-user",
    "--uid",
    String(plan.uid),
    "--gid",
    String(plan.gid),
    "--disable-userns",
    "--unshare-pid",
    "--unshare-ipc",
    "--unshare-uts",
    "--unshare-cgroup-try",
    "--die-with-parent",
    // A new session: no access to the agent's terminal (TIOCSTI).
    "--new-session",
    "--cap-drop",
    "ALL",
    "--ro-bind",
    "/",
    "/",
    "--dev",
    "/dev",
    "--proc",
    "/proc",
  ];
  for (const directory of [...plan.writable, plan.temporary]) args.push("--bind", directory, directory);
  for (const path of plan.readOnly) args.push("--ro-bind", path, path);
  for (const path of plan.placeholders) args.push("--ro-bind", plan.emptyDirectory, path);
  for (const directory of plan.hiddenDirectories) args.push("--tmpfs", directory, "--remount-ro", directory);
  for (const file of plan.hiddenFiles) args.push("--ro-bind", "/dev/null", file);
  args.push("--seccomp", String(plan.seccompDescriptor), "--chdir", plan.cwd, "--");
  return args;
}
