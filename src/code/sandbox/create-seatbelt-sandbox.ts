import { mkdir, mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { controlDirectories, controlFilesIfPresent } from "./control-paths.js";
import { findDeniedPaths, type ReadDenial } from "./find-denied-paths.js";
import { proxyVariables } from "./network-namespace.js";
import { type NetworkProxy, startNetworkProxy } from "./network-proxy.js";
import type { Sandbox, SandboxOptions, SandboxStatus } from "./sandbox-types.js";
import { sandboxExec, seatbeltProfile } from "./seatbelt.js";

/**
 * The sandbox on macOS: every command runs under `sandbox-exec` with a profile made for the call (writes, control
 * files, hidden reads, network through the proxy on a loopback port). Unlike Linux there is no process namespace —
 * what a command leaves running is ended with its process group, and `setsid` escapes that — and loopback is the
 * host's: commands reach only the proxy's port unless `network.allowLocalBinding` opens loopback.
 * Written from Apple's profile language and never run on macOS in minagent's CI (docs/code.md says so).
 */
export async function createSeatbeltSandbox(
  options: SandboxOptions,
  context: {
    base: Omit<SandboxStatus, "enabled" | "mechanism" | "problem" | "writable" | "temporary">;
    writable: string[];
    denials: ReadDenial[];
    protectedHomes: string[];
  },
): Promise<Sandbox> {
  const status: SandboxStatus = {
    ...context.base,
    enabled: true,
    mechanism: "seatbelt",
    problem: undefined,
    writable: context.writable,
    temporary: undefined,
  };
  // Made at the first command: an agent that runs none leaves nothing behind.
  let session: Promise<string> | undefined;
  const prepareSession = () =>
    (session ??= (async () => {
      const made = await realpath(await mkdtemp(join(tmpdir(), "minagent-sandbox-")));
      await mkdir(join(made, "tmp"), { mode: 0o700 });
      status.temporary = join(made, "tmp");
      return made;
    })());
  const { allowedDomains } = context.base;
  let proxy: Promise<NetworkProxy> | undefined;
  const wantsProxy = allowedDomains.length > 0 || options.askNetwork !== undefined;
  const protectedPaths = [
    ...context.writable.flatMap((directory) => [...controlDirectories, ...controlFilesIfPresent].map((name) => join(directory, name))),
    ...context.protectedHomes.filter(
      (home) => !context.writable.some((directory) => directory === home || directory.startsWith(`${home}/`)),
    ),
  ];
  const confine: Sandbox["confine"] = async ({ argv, env }) => {
    const temporary = join(await prepareSession(), "tmp");
    proxy ??= wantsProxy
      ? startNetworkProxy({
          allowedDomains,
          closedHosts: options.closedHosts,
          ask: options.askNetwork,
          onDecision: options.onNetworkDecision,
        })
      : undefined;
    const port = (await proxy)?.port;
    const hidden = await findDeniedPaths(context.denials);
    const profile = seatbeltProfile({
      writable: [...context.writable, temporary],
      protectedPaths,
      hiddenFiles: hidden.files,
      hiddenDirectories: hidden.directories,
      proxyPort: port,
      allowLocalBinding: options.settings.allowLocalBinding,
      allowUnixSockets: options.settings.allowAllUnixSockets,
    });
    return {
      file: sandboxExec,
      args: ["-p", profile, ...argv],
      env: {
        ...env,
        ...proxyVariables(port === undefined ? undefined : `http://127.0.0.1:${port}`),
        TMPDIR: temporary,
        XDG_CACHE_HOME: join(temporary, "cache"),
        npm_config_cache: join(temporary, "npm-cache"),
      },
      inputs: [],
      release: async () => {},
    };
  };
  return {
    status,
    confine,
    confineProgram: async ({ command, args, cwd, env }) => {
      const confined = await confine({ argv: [command, ...args], cwd, env, firstFreeDescriptor: 3 });
      return { command: confined.file, args: confined.args, env: confined.env, release: confined.release };
    },
    close: async () => {
      await (await proxy?.catch(() => undefined))?.close();
      const made = await session?.catch(() => undefined);
      if (made) await rm(made, { recursive: true, force: true });
    },
  };
}
