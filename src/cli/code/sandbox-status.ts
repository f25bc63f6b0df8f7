import type { SandboxStatus } from "../../code/sandbox/create-sandbox.js";

/** One line for the start of a session: whether Bash commands run confined, and if not (or not fully), why, loudly. */
export function sandboxStatusLine(status: SandboxStatus): string {
  if (status.enabled) {
    const on = `sandbox: on (${status.mechanism}) · writes: the workspace${status.writable.length > 1 ? ` and ${status.writable.length - 1} more` : ""}`;
    // On but short of something (socat: no network at all): what the settings ask for is not what commands get.
    return status.problem ? `${on} · ⚠ ${status.problem}` : `${on} · network: ${networkSummary(status)}`;
  }
  if (!status.requested)
    return "sandbox: off (sandbox.enabled is false or --no-sandbox): Bash commands are judged by the permission rules alone";
  return `⚠ sandbox: OFF — ${status.problem}. Bash commands run unconfined, judged by the permission rules alone (sandbox.failIfUnavailable: true makes this an error)`;
}

/** `/sandbox`: the configuration, and what is missing. */
export function describeSandbox(status: SandboxStatus): string {
  const lines = [sandboxStatusLine(status)];
  if (status.enabled) {
    lines.push(
      `  writable: ${[...status.writable, `${status.temporary ?? "a temporary folder made at the first command"} ($TMPDIR; /tmp is read-only)`].join(", ")}`,
    );
    lines.push("  read-only: the home directory, ~/.minagent, .minagent/, .claude/, .git/hooks, .git/config, .vscode/, .idea/");
    lines.push(
      `  hidden from reads: ${status.denyRead.length > 0 ? status.denyRead.join(", ") : "none listed"} (and what Read deny rules cover)`,
    );
    lines.push(`  network: ${networkSummary(status)}`);
    lines.push(`  Unix sockets: ${status.unixSockets ? "open (network.allowAllUnixSockets)" : "closed"}`);
    const leaving =
      status.allowUnsandboxedCommands === false
        ? "refused (allowUnsandboxedCommands: false)"
        : status.allowUnsandboxedCommands === true
          ? "asked every time; -p judges it by rules (allowUnsandboxedCommands: true)"
          : "asked every time; refused in -p";
    lines.push(`  a call asking to run outside: ${leaving}`);
  }
  lines.push('  Configure it under "sandbox" in .minagent/settings.json (docs/cli-code.md, The sandbox).');
  return lines.join("\n");
}

function networkSummary(status: SandboxStatus): string {
  const domains = status.allowedDomains.length > 0 ? `proxy allows ${status.allowedDomains.join(", ")}` : "none allowed";
  return status.asksForNewDomains ? `${domains}; other hosts are asked about` : domains;
}
