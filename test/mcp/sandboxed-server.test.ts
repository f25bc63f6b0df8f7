// A stdio server with "sandbox": true runs inside the OS sandbox Bash commands run in: the real reference filesystem
// server under real bubblewrap. It works in the workspace, the OS refuses what its own allowed directories would let
// it do outside, nothing of it outlives close, and without an enabled sandbox it is never started.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startCodeMcpServers } from "../../src/cli/code/start-mcp-servers.js";
import { createSandbox, type Sandbox } from "../../src/code/sandbox/create-sandbox.js";
import { readSandboxSettings, type SandboxSettings } from "../../src/code/sandbox/sandbox-settings.js";
import { connectMcpServers, type McpServers, type McpStdioServerConfig } from "../../src/mcp/index.js";
import { isRunning, referenceServers, waitFor } from "./reference-servers.js";

try {
  execFileSync("bwrap", ["--version"], { stdio: "ignore" });
} catch {
  throw new Error("bubblewrap is not installed: run scripts/install-test-deps.sh (it installs Debian's bubblewrap and socat)");
}

const made: string[] = [];
/** A new folder under `parent`, removed when the file ends. */
function folderIn(prefix: string, parent = tmpdir()): string {
  const folder = realpathSync(mkdtempSync(join(parent, prefix)));
  made.push(folder);
  return folder;
}

async function sandboxOver(workspace: string, settings: SandboxSettings = {}): Promise<Sandbox> {
  const home = homedir();
  return createSandbox({
    settings: await readSandboxSettings([], { root: workspace, home }, settings),
    directories: [workspace],
    home,
    userDirectory: join(home, ".minagent"),
  });
}

const sandboxed = (config: McpStdioServerConfig): McpStdioServerConfig => ({ ...config, sandbox: true });
const textOf = (result: { content?: unknown }) =>
  ((result.content ?? []) as { type: string; text?: string }[]).map((block) => block.text ?? "").join("\n");

/** Every process whose parent chain leads to `pid` (the host's view). */
function descendantsOf(pid: number): number[] {
  const parents = new Map<number, number>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // The command name is in parentheses and may hold spaces: the parent's id is the second field after it.
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
    } catch {
      // ended meanwhile
    }
  }
  const found: number[] = [];
  const walk = (parent: number) => {
    for (const [child, of] of parents)
      if (of === parent && !found.includes(child)) {
        found.push(child);
        walk(child);
      }
  };
  walk(pid);
  return found;
}

/**
 * The process has ended: it is gone, or a zombie. bubblewrap's init inside is orphaned when the outer bubblewrap ends,
 * and waits as a zombie (dead, holding nothing) until the machine's init reaps it, which may take a while in a container.
 */
function hasEnded(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z");
  } catch {
    return true;
  }
}

let workspace: string;
let outside: string;
let sandbox: Sandbox;
let mcp: McpServers;

beforeAll(async () => {
  workspace = folderIn("minagent-mcp-sandboxed-");
  mkdirSync(join(workspace, "files"));
  writeFileSync(join(workspace, "files", "notes.txt"), "kept in the workspace\n");
  // Outside the workspace and outside /tmp (which the sandbox replaces with its own): where an escaped write would land.
  outside = folderIn("minagent-mcp-outside-", "/var/tmp");
  sandbox = await sandboxOver(workspace);
  expect(sandbox.status.enabled).toBe(true);
  mcp = await connectMcpServers(
    { mcpServers: { files: sandboxed(referenceServers.filesystem(join(workspace, "files"), outside)) } },
    { cwd: workspace, sandbox },
  );
}, 60_000);

afterAll(async () => {
  await mcp?.close();
  await sandbox?.close();
  for (const folder of made.splice(0)) rmSync(folder, { recursive: true, force: true });
});

describe("a sandboxed stdio server", () => {
  it("starts, says it runs sandboxed, and works in the workspace: list, read and write through its tools", async () => {
    const [status] = mcp.status();
    expect(status).toMatchObject({ name: "files", state: "ready", transport: "stdio", sandboxed: true });
    expect(status?.pid).toBeGreaterThan(0);
    const files = join(workspace, "files");
    expect(textOf(await mcp.callTool("files", "list_directory", { path: files }))).toContain("[FILE] notes.txt");
    expect(textOf(await mcp.callTool("files", "read_text_file", { path: join(files, "notes.txt") }))).toBe("kept in the workspace\n");
    const written = await mcp.callTool("files", "write_file", { path: join(files, "made.txt"), content: "made inside" });
    expect(written.isError).toBeFalsy();
    expect(readFileSync(join(files, "made.txt"), "utf8")).toBe("made inside");
  });

  it("cannot write outside the workspace, though the server itself allows the folder: the OS refuses", async () => {
    // The server accepts the folder as one of its allowed directories (it lists it)…
    const allowed = textOf(await mcp.callTool("files", "list_allowed_directories", {}));
    expect(allowed).toContain(outside);
    // …but the write fails, and nothing appears on the host.
    const result = await mcp.callTool("files", "write_file", { path: join(outside, "escaped.txt"), content: "should not land" });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/EROFS: read-only file system/);
    const created = await mcp.callTool("files", "create_directory", { path: join(outside, "made-dir") });
    expect(created.isError).toBe(true);
    expect(readdirSync(outside)).toEqual([]);
  });

  it("is restarted confined after it stops: a new process, in the sandbox again", async () => {
    const first = mcp.status()[0]?.pid as number;
    process.kill(first, "SIGKILL");
    await waitFor(() => mcp.status()[0]?.state === "crashed", "the server to be seen stopped");
    const listed = await mcp.callTool("files", "list_directory", { path: join(workspace, "files") });
    expect(textOf(listed)).toContain("[FILE] notes.txt");
    const [status] = mcp.status();
    expect(status).toMatchObject({ state: "ready", restarts: 1, sandboxed: true });
    expect(status?.pid).not.toBe(first);
    const result = await mcp.callTool("files", "write_file", { path: join(outside, "after-restart.txt"), content: "no" });
    expect(textOf(result)).toMatch(/EROFS: read-only file system/);
    expect(readdirSync(outside)).toEqual([]);
  });

  it("leaves nothing running after close: its process and every child of it are gone", async () => {
    const other = await connectMcpServers(
      { mcpServers: { files: sandboxed(referenceServers.filesystem(workspace)) } },
      { cwd: workspace, sandbox },
    );
    const pid = other.status()[0]?.pid as number;
    expect(other.status()[0]).toMatchObject({ state: "ready", sandboxed: true });
    expect(isRunning(pid)).toBe(true);
    const children = descendantsOf(pid);
    // bubblewrap's own processes and the server inside: more than one process to end.
    expect(children.length).toBeGreaterThan(0);
    const serverScript = referenceServers.filesystem().args?.[0] as string;
    const commandLines = [pid, ...children].map((id) => readFileSync(`/proc/${id}/cmdline`, "utf8").replaceAll("\0", " "));
    expect(commandLines.some((line) => line.includes(serverScript))).toBe(true);
    await other.close();
    await waitFor(() => [pid, ...children].every(hasEnded), "the sandboxed server's processes to end", 10_000);
    expect(other.status()[0]?.state).toBe("closed");
  });
});

describe("after the servers close", () => {
  it("the placeholders held over the workspace's control files while they ran are gone", async () => {
    // While a confined server runs, .minagent, .claude and .git/hooks are held by empty read-only folders.
    expect(readdirSync(workspace).sort()).toEqual([".claude", ".git", ".minagent", "files"]);
    await mcp.close();
    await waitFor(() => readdirSync(workspace).length === 1, "the placeholders to be removed", 10_000);
    expect(readdirSync(workspace)).toEqual(["files"]);
  });
});

describe("a server that asks for the sandbox when none is enabled", () => {
  it("is failed with a problem saying so and why, and is never spawned", async () => {
    const root = folderIn("minagent-mcp-unsandboxed-");
    const marker = join(root, "started");
    const off = await sandboxOver(root, { enabled: false });
    expect(off.status.enabled).toBe(false);
    // Were it started, it would leave a file behind.
    const server: McpStdioServerConfig = {
      command: process.execPath,
      args: ["-e", `require("node:fs").writeFileSync(${JSON.stringify(marker)}, "")`],
      sandbox: true,
    };
    const servers = await connectMcpServers({ mcpServers: { files: server } }, { cwd: root, sandbox: off });
    const [status] = servers.status();
    expect(status).toMatchObject({ name: "files", state: "failed", tools: [] });
    expect(status?.sandboxed).toBeUndefined();
    expect(status?.pid).toBeUndefined();
    expect(status?.problem).toMatch(
      /asks for the OS sandbox \("sandbox": true in code\), which is not available: the sandbox is turned off/,
    );
    expect(status?.problem).toMatch(/not started \(never unconfined\)/);
    await expect(servers.callTool("files", "anything")).rejects.toThrow(/is unavailable: it asks for the OS sandbox/);
    await servers.close();
    await off.close();
    expect(existsSync(marker)).toBe(false);
  });

  it("is failed too when no sandbox is given at all, and the problem names what is missing", async () => {
    const servers = await connectMcpServers({ mcpServers: { files: sandboxed(referenceServers.filesystem(tmpdir())) } });
    expect(servers.status()[0]).toMatchObject({ state: "failed" });
    expect(servers.status()[0]?.problem).toContain("no sandbox was given to connectMcpServers");
    await servers.close();
  });

  it("gives the sandbox's own problem when it cannot run here", async () => {
    const root = folderIn("minagent-mcp-nobwrap-");
    // No bubblewrap on this PATH: the sandbox is requested but cannot run.
    const missing = await createSandbox({
      settings: await readSandboxSettings([], { root, home: homedir() }),
      directories: [root],
      home: homedir(),
      userDirectory: join(homedir(), ".minagent"),
      env: { PATH: root },
    });
    expect(missing.status).toMatchObject({ enabled: false, requested: true });
    const servers = await connectMcpServers({ mcpServers: { files: sandboxed(referenceServers.filesystem(root)) } }, { sandbox: missing });
    expect(servers.status()[0]?.problem).toContain(`which is not available: ${missing.status.problem}`);
    await servers.close();
    await missing.close();
  });

  it("leaves servers that do not ask for it unconfined, beside one that does", async () => {
    const root = folderIn("minagent-mcp-mixed-");
    const off = await sandboxOver(root, { enabled: false });
    const servers = await connectMcpServers(
      { mcpServers: { plain: referenceServers.filesystem(root), confined: sandboxed(referenceServers.filesystem(root)) } },
      { sandbox: off },
    );
    expect(servers.status().map(({ name, state, sandboxed }) => ({ name, state, sandboxed }))).toEqual([
      { name: "plain", state: "ready", sandboxed: undefined },
      { name: "confined", state: "failed", sandboxed: undefined },
    ]);
    await servers.close();
    await off.close();
  });
});

describe("minagent code's MCP servers (startCodeMcpServers)", () => {
  /** A project whose --mcp-config file has a sandboxed filesystem server over `roots`, and a minagent folder. */
  function project(roots: string[], userSettings?: object, projectSettings?: object) {
    const root = folderIn("minagent-mcp-code-");
    const home = folderIn("minagent-mcp-code-home-");
    const config = join(root, "servers.json");
    writeFileSync(config, JSON.stringify({ mcpServers: { files: sandboxed(referenceServers.filesystem(...roots)) } }));
    if (userSettings) writeFileSync(join(home, "settings.json"), JSON.stringify(userSettings));
    if (projectSettings) {
      mkdirSync(join(root, ".minagent"));
      writeFileSync(join(root, ".minagent", "settings.json"), JSON.stringify(projectSettings));
    }
    return { root, home, config };
  }

  it("makes a sandbox from the settings files (allowWrite widens it, as for Bash), and mcp.close() closes it", async () => {
    const extra = folderIn("minagent-mcp-allow-write-", "/var/tmp");
    const refused = folderIn("minagent-mcp-refused-", "/var/tmp");
    const { root, home, config } = project([extra, refused], { sandbox: { filesystem: { allowWrite: [extra] } } });
    // Its folders as roots too (by default the project's): the server tries both, and the OS refuses one.
    const roots = [extra, refused];
    const setup = await startCodeMcpServers({ cwd: root, home, env: {}, configFiles: [config], strict: true, roots });
    const mcp = setup.mcp as McpServers;
    await mcp.ready();
    expect(mcp.status()[0]).toMatchObject({ name: "files", state: "ready", sandboxed: true });
    const written = await mcp.callTool("files", "write_file", { path: join(extra, "allowed.txt"), content: "allowWrite" });
    expect(written.isError).toBeFalsy();
    expect(readFileSync(join(extra, "allowed.txt"), "utf8")).toBe("allowWrite");
    const escaped = await mcp.callTool("files", "write_file", { path: join(refused, "escaped.txt"), content: "no" });
    expect(textOf(escaped)).toMatch(/EROFS: read-only file system/);
    expect(readdirSync(refused)).toEqual([]);
    // The sandbox's session folder, as the server's bubblewrap line names it: gone once the servers are closed.
    const pid = mcp.status()[0]?.pid as number;
    const session = /(\/\S*\/minagent-sandbox-[^/\s]+)\/tmp/.exec(readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " "))?.[1];
    expect(session && existsSync(session)).toBe(true);
    await mcp.close();
    expect(existsSync(session as string)).toBe(false);
  }, 60_000);

  it("--no-sandbox, or sandbox.enabled false in a trusted project's settings, leaves the server failed, not unconfined", async () => {
    const off = project([tmpdir()]);
    const flagged = await startCodeMcpServers({
      cwd: off.root,
      home: off.home,
      env: {},
      configFiles: [off.config],
      strict: true,
      sandbox: false,
    });
    await flagged.mcp?.ready();
    expect(flagged.mcp?.status()[0]).toMatchObject({ state: "failed", problem: expect.stringContaining("the sandbox is turned off") });
    await flagged.mcp?.close();

    const disabled = project([tmpdir()], undefined, { sandbox: { enabled: false } });
    const trusted = await startCodeMcpServers({
      cwd: disabled.root,
      home: disabled.home,
      env: {},
      configFiles: [disabled.config],
      strict: true,
    });
    await trusted.mcp?.ready();
    expect(trusted.mcp?.status()[0]).toMatchObject({ state: "failed" });
    await trusted.mcp?.close();
    // An untrusted folder's own settings are not read: its "enabled": false turns nothing off.
    const untrusted = await startCodeMcpServers({
      cwd: disabled.root,
      home: disabled.home,
      env: {},
      configFiles: [disabled.config],
      strict: true,
      projectTrusted: false,
    });
    await untrusted.mcp?.ready();
    expect(untrusted.mcp?.status()[0]).toMatchObject({ state: "ready", sandboxed: true });
    await untrusted.mcp?.close();
  }, 60_000);
});
