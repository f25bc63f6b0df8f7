// The OS sandbox for shell commands (Linux: bubblewrap, a seccomp filter and a filtering proxy).
export {
  type ConfinedCommand,
  createSandbox,
  type Sandbox,
  type SandboxOptions,
  type SandboxStatus,
} from "./create-sandbox.js";
export { type DeniedPaths, findDeniedPaths, type ReadDenial } from "./find-denied-paths.js";
export {
  type NetworkDecision,
  type NetworkProxy,
  type NetworkProxyOptions,
  type NetworkRequest,
  startNetworkProxy,
} from "./network-proxy.js";
export {
  mergeSandboxSettings,
  type ResolvedSandboxSettings,
  readSandboxSettings,
  resolveSandboxPath,
  type SandboxPathBases,
  type SandboxSettings,
} from "./sandbox-settings.js";
export { seccompFilter, seccompSupported } from "./seccomp-filter.js";
