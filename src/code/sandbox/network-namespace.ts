import type { ChildProcess } from "node:child_process";
import { spawn } from "node:child_process";
import { join } from "node:path";
import type { Readable } from "node:stream";
import { type BubblewrapPrograms, sessionNamespaceArguments } from "./bubblewrap.js";
import { type NetworkProxy, startNetworkProxy } from "./network-proxy.js";
import type { SandboxOptions } from "./sandbox-types.js";

// The proxy's port inside the sandbox's own loopback: a command's servers use other ports.
export const proxyPort = 39_281;

/** The session's network namespace, held by one process (and the bridge to the proxy, when there is one). */
export type NetworkHolder = { pid: number; proxied: boolean; stop(): Promise<void> };

/**
 * Starts the process whose network namespace every command enters: only loopback, plus (with a proxy) socat on
 * 127.0.0.1:39281 forwarding to the proxy's Unix socket outside. One per session, so a command pays for neither.
 */
export async function startNetworkHolder(
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
export function proxyVariables(proxy: string | undefined): Record<string, string | undefined> {
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
