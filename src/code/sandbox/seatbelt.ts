import { access, constants } from "node:fs/promises";

/** macOS's sandbox-exec, which applies a Seatbelt profile to a program and everything it starts. */
export const sandboxExec = "/usr/bin/sandbox-exec";

/** Whether Seatbelt can run here: macOS with sandbox-exec. Resolves with why not otherwise. */
export async function findSeatbelt(): Promise<{ problem?: string }> {
  if (process.platform !== "darwin") return { problem: `Seatbelt runs on macOS, not ${process.platform}` };
  const present = await access(sandboxExec, constants.X_OK).then(
    () => true,
    () => false,
  );
  return present ? {} : { problem: `${sandboxExec} is missing` };
}

/** What one Seatbelt profile allows. */
export type SeatbeltPlan = {
  /** Folders (real paths) commands may write in, the session's temporary folder included. */
  writable: readonly string[];
  /** Paths never written, existing or not: the agent's control files and folders. */
  protectedPaths: readonly string[];
  /** Files and folders never read. */
  hiddenFiles: readonly string[];
  hiddenDirectories: readonly string[];
  /** The proxy's port on loopback: the only address commands may connect to. */
  proxyPort: number | undefined;
  /** Let commands bind and reach loopback ports (`network.allowLocalBinding`): their own servers, and the host's. */
  allowLocalBinding: boolean;
  allowUnixSockets: boolean;
};

/**
 * The Seatbelt profile (SBPL) for a confined command. Everything not named below is allowed (processes, reads, mach
 * services), then: writes only where `writable` says, never to a protected path (Seatbelt matches paths, so a control
 * file that does not exist yet is held too), no reads of hidden paths, and no network but the proxy. The last rule
 * that matches an operation decides.
 */
export function seatbeltProfile(plan: SeatbeltPlan): string {
  const quote = (path: string) => `"${path.replaceAll("\\", "\\\\").replaceAll('"', '\\"')}"`;
  const subpaths = (paths: readonly string[]) => paths.map((path) => `(subpath ${quote(path)})`).join(" ");
  const literals = (paths: readonly string[]) => paths.map((path) => `(literal ${quote(path)})`).join(" ");
  const rules = [
    "(version 1)",
    "(allow default)",
    "(deny file-write*)",
    `(allow file-write* ${subpaths(plan.writable)} (literal "/dev/null") (literal "/dev/zero") (literal "/dev/tty") (literal "/dev/dtracehelper") (regex #"^/dev/fd/"))`,
  ];
  if (plan.protectedPaths.length > 0) rules.push(`(deny file-write* ${subpaths(plan.protectedPaths)})`);
  const hidden = `${subpaths(plan.hiddenDirectories)} ${literals(plan.hiddenFiles)}`.trim();
  if (hidden !== "") rules.push(`(deny file-read* ${hidden})`);
  rules.push("(deny network*)");
  if (plan.proxyPort !== undefined) rules.push(`(allow network-outbound (remote ip "localhost:${plan.proxyPort}"))`);
  if (plan.allowLocalBinding)
    rules.push(
      '(allow network-bind (local ip "localhost:*"))',
      '(allow network-inbound (local ip "localhost:*"))',
      '(allow network-outbound (remote ip "localhost:*"))',
    );
  if (plan.allowUnixSockets) rules.push("(allow network* (remote unix-socket))", "(allow network-bind (local unix-socket))");
  return rules.join("\n");
}
