import { mkdir, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CodePermissions, createCodePermissions, type PermissionMode } from "../../../src/code/permissions/index.js";
import { permissionContext } from "../helpers/permission-context.js";
import { createTemporaryWorkspace, removeTemporaryWorkspace } from "../helpers/temporary-workspace.js";

let base: string;
let root: string;
const byMode: Partial<Record<PermissionMode, CodePermissions>> = {};

beforeAll(async () => {
  ({ base, root } = await createTemporaryWorkspace("bash-paths"));
  await mkdir(join(root, "src"), { recursive: true });
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
      rules: { deny: ["Read(./secrets/**)", "Read(./.env)"] },
    });
});

afterAll(async () => {
  await removeTemporaryWorkspace(base);
});

const context = permissionContext("Bash");
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

describe("glob operands and recursive reads cannot be judged against path rules", () => {
  it.each([
    ["acceptEdits", "cp a.txt .gi?/config", "ask"],
    ["acceptEdits", "cp a.txt .gi[t]/config", "ask"],
    ["acceptEdits", "rm -rf .g*", "ask"],
    ["acceptEdits", "rm src/*.o", "ask"],
    ["acceptEdits", "touch src/{a,b}.ts", "ask"],
    ["default", "cat secret?/key", "ask"],
    ["default", "cat s*/key", "ask"],
    ["default", "cat .en?", "ask"],
    ["default", "cat src/{a,b}.ts", "ask"],
    ["default", "cat 'src/*.ts'", "allow"],
    ["default", "grep -r TOKEN .", "ask"],
    ["default", "grep -rn TOKEN", "ask"],
    ["default", "grep --recursive TOKEN .", "ask"],
    ["default", "ls -R", "ask"],
    ["default", "ls -laR .", "ask"],
    ["default", "diff -r src .", "ask"],
    ["default", "grep -r TOKEN src", "allow"],
    ["default", "ls -la .", "allow"],
    ["default", "grep TOKEN src/a.ts", "allow"],
  ] as const)("%s: %j → %s", async (mode, command, expected) => {
    expect(await decide(mode, command)).toBe(expected);
  });

  it("a glob operand is denied in dontAsk even when a rule allows reads", async () => {
    const permissions = await createCodePermissions({
      workspace: { root, directories: [root] },
      mode: "dontAsk",
      settingsFiles: [],
      home: join(base, "home"),
      rules: { allow: ["Bash(cat:*)"], deny: ["Read(./secrets/**)"] },
    });
    const decision = await permissions.canUseTool({ id: "1", name: "Bash", arguments: { command: "cat s*/key" } }, context);
    expect(decision.behavior).toBe("deny");
  });
});

describe("builtins that assign variables are assignments", () => {
  it.each([
    ["printf -v PATH . && cat src/a.ts", "ask"],
    ["printf -vPATH .", "ask"],
    ["printf -v LANG %s C", "allow"],
    ["printf '%s' -v", "allow"],
    ["read PATH < src/a.ts", "ask"],
    ["declare PATH=/tmp", "ask"],
    ["let x=1", "ask"],
  ] as const)("%j → %s", async (command, expected) => {
    expect(await decide("default", command)).toBe(expected);
  });
});
