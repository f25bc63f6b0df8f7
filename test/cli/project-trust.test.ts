import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, expect, test } from "vitest";
import {
  allowRuleLine,
  approvedServerLine,
  describeProjectSettings,
  isProjectTrusted,
  rememberOwnProjectSettings,
  trustProject,
  withoutProjectSettings,
} from "../../src/cli/code/project-trust.js";
import { loadSettings, settingsLocations } from "../../src/code/settings/load-settings.js";

/** The session's settings as the CLI reads them once: the user's file in `home`, the project's two. */
const settings = () => loadSettings(settingsLocations({ root, userDirectory: home }));

let root: string;
let home: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "minagent-trust-project-"));
  home = await mkdtemp(join(tmpdir(), "minagent-trust-home-"));
  await mkdir(join(root, ".minagent"));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
  await rm(home, { recursive: true, force: true });
});

test("lists what a project's own settings would run or allow, and nothing for harmless ones", async () => {
  await writeFile(join(root, ".minagent", "settings.json"), JSON.stringify({ permissions: { deny: ["Bash(rm:*)"], defaultMode: "plan" } }));
  expect(describeProjectSettings(await settings(), root)).toEqual([]);
  await writeFile(
    join(root, ".minagent", "settings.local.json"),
    JSON.stringify({
      hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "./audit.sh" }] }] },
      permissions: { defaultMode: "bypassPermissions", allow: ["Edit"], additionalDirectories: ["../secrets"] },
    }),
  );
  expect(describeProjectSettings(await settings(), root)).toEqual([
    ".minagent/settings.local.json: hook PreToolUse Bash: ./audit.sh",
    ".minagent/settings.local.json: permission mode bypassPermissions",
    ".minagent/settings.local.json: allow Edit",
    ".minagent/settings.local.json: adds the folder ../secrets",
  ]);
});

test("lists what a project's sandbox settings would open, and nothing for settings that narrow it", async () => {
  await writeFile(
    join(root, ".minagent", "settings.json"),
    JSON.stringify({
      sandbox: {
        enabled: true,
        failIfUnavailable: true,
        allowUnsandboxedCommands: false,
        filesystem: { denyRead: ["~/.ssh"] },
        network: { allowLocalBinding: false, allowAllUnixSockets: false },
      },
    }),
  );
  expect(describeProjectSettings(await settings(), root)).toEqual([]);
  await writeFile(
    join(root, ".minagent", "settings.local.json"),
    JSON.stringify({
      sandbox: {
        enabled: false,
        allowUnsandboxedCommands: true,
        filesystem: { allowWrite: ["~/.cache/tool", "/srv/out"] },
        network: { allowedDomains: ["registry.npmjs.org", "localhost:5432"], allowLocalBinding: true, allowAllUnixSockets: true },
      },
    }),
  );
  expect(describeProjectSettings(await settings(), root)).toEqual([
    ".minagent/settings.local.json: turns the sandbox off",
    ".minagent/settings.local.json: lets -p runs leave the sandbox",
    ".minagent/settings.local.json: lets commands write in ~/.cache/tool",
    ".minagent/settings.local.json: lets commands write in /srv/out",
    ".minagent/settings.local.json: lets commands reach registry.npmjs.org",
    ".minagent/settings.local.json: lets commands reach localhost:5432",
    ".minagent/settings.local.json: lets commands reach servers on this machine's loopback",
    ".minagent/settings.local.json: opens Unix sockets to commands",
  ]);
});

test("trusting a folder covers its subfolders, not its neighbours, and keeps the rest of the user's settings", async () => {
  await writeFile(join(home, "settings.json"), JSON.stringify({ permissions: { deny: ["WebFetch"] } }));
  expect(isProjectTrusted(await settings(), root)).toBe(false);
  await trustProject(home, root);
  expect(isProjectTrusted(await settings(), root)).toBe(true);
  expect(isProjectTrusted(await settings(), join(root, "packages", "a"))).toBe(true);
  expect(isProjectTrusted(await settings(), `${root}-other`)).toBe(false);
  const { readFile } = await import("node:fs/promises");
  expect(JSON.parse(await readFile(join(home, "settings.json"), "utf8"))).toEqual({
    permissions: { deny: ["WebFetch"] },
    trustedProjects: [root],
  });
});

test("a project's .claude/ settings are asked about as its .minagent/ ones are", async () => {
  await mkdir(join(root, ".claude"));
  await writeFile(
    join(root, ".claude", "settings.json"),
    JSON.stringify({
      hooks: { SessionStart: [{ hooks: [{ type: "command", command: "uv run setup.py" }] }] },
      permissions: { allow: ["Bash"] },
    }),
  );
  await writeFile(join(root, ".claude", "settings.local.json"), JSON.stringify({ permissions: { defaultMode: "acceptEdits" } }));
  expect(describeProjectSettings(await settings(), root)).toEqual([
    ".claude/settings.json: hook SessionStart: uv run setup.py",
    ".claude/settings.json: allow Bash",
    ".claude/settings.local.json: permission mode acceptEdits",
  ]);
});

test("a project's env, and the MCP servers its personal file approves, are asked about; a shared file's approvals start nothing", async () => {
  await mkdir(join(root, ".claude"));
  await writeFile(
    join(root, ".claude", "settings.json"),
    JSON.stringify({ env: { NODE_OPTIONS: "--require ./x.js" }, enabledMcpjsonServers: ["db"] }),
  );
  await writeFile(
    join(root, ".claude", "settings.local.json"),
    JSON.stringify({ enableAllProjectMcpServers: true, enabledMcpjsonServers: ["github"] }),
  );
  expect(describeProjectSettings(await settings(), root)).toEqual([
    ".claude/settings.json: sets NODE_OPTIONS for every command",
    ".claude/settings.local.json: approves every MCP server of .mcp.json",
    ".claude/settings.local.json: approves the MCP server github",
  ]);
});

test("rules and approvals the person saved through minagent's prompts never ask for trust again; others still do", async () => {
  const local = join(root, ".minagent", "settings.local.json");
  await writeFile(local, JSON.stringify({ permissions: { allow: ["Bash(npm test)", "Bash(curl:*)"] }, enabledMcpjsonServers: ["github"] }));
  await writeFile(join(home, "settings.json"), JSON.stringify({ permissions: { deny: ["WebFetch"] } }));
  await rememberOwnProjectSettings(home, root, [allowRuleLine(root, local, "Bash(npm test)"), approvedServerLine(root, local, "github")]);
  // Only the rule someone else wrote into the file is left to ask about.
  expect(describeProjectSettings(await settings(), root)).toEqual([".minagent/settings.local.json: allow Bash(curl:*)"]);
  // Recorded for this folder only, beside the rest of the user's settings.
  const { readFile } = await import("node:fs/promises");
  expect(JSON.parse(await readFile(join(home, "settings.json"), "utf8"))).toEqual({
    permissions: { deny: ["WebFetch"] },
    ownProjectSettings: {
      [root]: [".minagent/settings.local.json: allow Bash(npm test)", ".minagent/settings.local.json: approves the MCP server github"],
    },
  });
  const other = `${root}-other`;
  await mkdir(join(other, ".minagent"), { recursive: true });
  await writeFile(join(other, ".minagent", "settings.local.json"), JSON.stringify({ permissions: { allow: ["Bash(npm test)"] } }));
  expect(describeProjectSettings(await loadSettings(settingsLocations({ root: other, userDirectory: home })), other)).toEqual([
    ".minagent/settings.local.json: allow Bash(npm test)",
  ]);
  await rm(other, { recursive: true, force: true });
});

test("turning every hook off, a model at a URL, and exec-form hooks' arguments are asked about", async () => {
  await writeFile(
    join(root, ".minagent", "settings.json"),
    JSON.stringify({
      disableAllHooks: true,
      model: "openai-compatible:gpt-x@https://llm.example.com/v1",
      hooks: {
        PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "node", args: ["scripts/audit.js", "--all files"] }] }],
      },
    }),
  );
  expect(describeProjectSettings(await settings(), root)).toEqual([
    '.minagent/settings.json: hook PreToolUse Bash: node scripts/audit.js "--all files"',
    ".minagent/settings.json: turns off every hook, your own guards included",
    ".minagent/settings.json: sends the conversation to https://llm.example.com/v1 (model openai-compatible:gpt-x@https://llm.example.com/v1)",
  ]);
});

test("a folder not trusted keeps the project's deny and ask rules, and nothing else of its settings", async () => {
  await writeFile(
    join(root, ".minagent", "settings.json"),
    JSON.stringify({
      env: { A: "1" },
      permissions: { deny: ["Read(./.env)"], ask: ["Bash(git push:*)"], allow: ["Bash"], defaultMode: "bypassPermissions" },
    }),
  );
  await writeFile(join(home, "settings.json"), JSON.stringify({ permissions: { deny: ["WebFetch"] } }));
  const narrowed = withoutProjectSettings(await settings());
  expect(narrowed.files.map((file) => [file.path, file.settings])).toEqual([
    [join(home, "settings.json"), { permissions: { deny: ["WebFetch"] } }],
    [join(root, ".minagent", "settings.json"), { permissions: { deny: ["Read(./.env)"], ask: ["Bash(git push:*)"] } }],
  ]);
  expect(describeProjectSettings(narrowed, root)).toEqual([]);
});
