import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll } from "vitest";
import { createSandbox, type Sandbox, type SandboxOptions } from "../../../src/code/sandbox/create-sandbox.js";
import { readSandboxSettings, type SandboxSettings } from "../../../src/code/sandbox/sandbox-settings.js";
import { createBashTool } from "../../../src/code/tools/bash.js";
import { Workspace } from "../../../src/code/workspace.js";
import { ToolError } from "../../../src/errors.js";

/** The sandbox tests drive the real bubblewrap: without it they fail, naming the install step. */
export function requireBubblewrap(): void {
  try {
    execFileSync("bwrap", ["--version"], { stdio: "ignore" });
  } catch {
    throw new Error("bubblewrap is not installed: run scripts/install-test-deps.sh (it installs Debian's bubblewrap and socat)");
  }
}

const made: string[] = [];
afterAll(() => {
  for (const folder of made.splice(0)) rmSync(folder, { recursive: true, force: true });
});

/** A new folder under `parent` (default: the system's temporary folder), removed when the test file ends. */
export function folderIn(prefix: string, parent = tmpdir()): string {
  const folder = realpathSync(mkdtempSync(join(parent, prefix)));
  made.push(folder);
  return folder;
}

/** A folder outside /tmp (which the sandbox replaces with its own), where a write that escaped would land. */
export function outsideFolder(prefix: string): string {
  return folderIn(prefix, "/var/tmp");
}

export type SandboxedShell = {
  sandbox: Sandbox;
  root: string;
  /** Runs a command through the Bash tool; resolves with its output (a ToolError's text too). */
  run(command: string): Promise<string>;
  close(): Promise<void>;
};

/** A workspace, a sandbox over it built from `settings`, and a Bash tool running in it. */
export async function sandboxedShell(
  settings: SandboxSettings = {},
  options: Partial<Omit<SandboxOptions, "settings">> & { root?: string; additionalDirectories?: string[] } = {},
): Promise<SandboxedShell> {
  const root = options.root ?? folderIn("sandbox-workspace-");
  const workspace = new Workspace({ root, additionalDirectories: options.additionalDirectories });
  const home = options.home ?? homedir();
  const sandbox = await createSandbox({
    ...options,
    settings: await readSandboxSettings([], { root, home }, settings),
    directories: workspace.directories,
    home,
    userDirectory: options.userDirectory ?? join(home, ".minagent"),
  });
  const bash = createBashTool(workspace, { sandbox });
  const signal = new AbortController().signal;
  const context = { signal } as Parameters<typeof bash.execute>[1];
  return {
    sandbox,
    root,
    run: async (command) => {
      try {
        return String(await bash.execute({ command }, context));
      } catch (error) {
        if (error instanceof ToolError) return `ToolError: ${error.message}`;
        throw error;
      }
    },
    close: () => sandbox.close(),
  };
}

/** The command lines of every process on the machine (the host's view), for what a command left running. */
export function processCommandLines(): string[] {
  const lines: string[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      lines.push(readFileSync(`/proc/${entry}/cmdline`, "utf8").replaceAll("\0", " ").trim());
    } catch {
      // ended meanwhile
    }
  }
  return lines;
}
