import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CodePermissions, createCodePermissions, type PermissionMode } from "../../../src/code/permissions/index.js";
import type { PermissionContext } from "../../../src/index.js";

let base: string;
let root: string;
const byMode: Partial<Record<PermissionMode, CodePermissions>> = {};

beforeAll(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), "minagent-bash-paths-")));
  root = join(base, "work");
  await mkdir(join(root, "src"), { recursive: true });
  await mkdir(join(base, "outside"));
  await writeFile(join(base, "outside", "secret.txt"), "secret\n");
  await symlink(join(base, "outside"), join(root, "link"));
  await symlink(join(base, "outside", "missing.txt"), join(root, "dangling"));
  await symlink(join(root, ".git"), join(root, "git-dir"));
  for (const mode of ["default", "acceptEdits"] as const)
    byMode[mode] = await createCodePermissions({
      workspace: { root, directories: [root] },
      mode,
      settingsFiles: [],
      home: join(base, "home"),
      rules: { deny: ["Read(./secrets/**)"] },
    });
});

afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

const context: PermissionContext = {
  runId: "run",
  tool: { name: "Bash", description: "", parameters: {}, execute: () => "" },
  signal: new AbortController().signal,
  needsApproval: false,
};
const decide = async (mode: PermissionMode, command: string) =>
  (await (byMode[mode] as CodePermissions).canUseTool({ id: "1", name: "Bash", arguments: { command } }, context)).behavior;

describe("shell paths on disk: symbolic links are followed for what the modes allow", () => {
  it.each([
    ["default", "cat src/a.ts", "allow"],
    ["default", "cat link/secret.txt", "ask"],
    ["default", "ls link", "ask"],
    ["acceptEdits", "touch src/new.ts", "allow"],
    ["acceptEdits", "rm link/secret.txt", "ask"],
    ["acceptEdits", "echo x > link/secret.txt", "ask"],
    ["acceptEdits", "echo x > dangling", "ask"],
    ["acceptEdits", "echo x > git-dir/config", "ask"],
    ["acceptEdits", "mkdir -p src/deep/new/dir", "allow"],
  ] as const)("%s: %j → %s", async (mode, command, expected) => {
    expect(await decide(mode, command)).toBe(expected);
  });
});

describe("shell reads the rules see", () => {
  it.each([
    ["echo $(<secrets/key.pem)", "deny"],
    ["grep -r TOKEN secrets", "deny"],
    ["wc --files0-from=list.txt", "ask"],
    ["ls --color=auto src", "allow"],
    ["grep --include=*.ts -r x src", "allow"],
    ["grep -f/etc/patterns x", "ask"],
    ["cat -- -weird-name", "allow"],
  ] as const)("%j → %s", async (command, expected) => {
    expect(await decide("default", command)).toBe(expected);
  });
});
