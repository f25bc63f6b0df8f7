import { mkdir, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCodePermissions, type PermissionMode } from "../../../src/code/permissions/index.js";
import { permissionContext } from "../helpers/permission-context.js";
import { createTemporaryWorkspace, removeTemporaryWorkspace } from "../helpers/temporary-workspace.js";

let base: string;
let root: string;

beforeAll(async () => {
  ({ base, root } = await createTemporaryWorkspace("file-links"));
  await mkdir(join(root, "secrets"), { recursive: true });
  await mkdir(join(root, ".git"));
  await writeFile(join(root, "secrets", "key"), "k\n");
  await writeFile(join(root, ".git", "config"), "\n");
  await symlink(join(root, "secrets", "key"), join(root, "notes.txt"));
  await symlink(join(root, ".git"), join(root, "docs"));
  await writeFile(join(root, "plain.txt"), "\n");
});

afterAll(async () => {
  await removeTemporaryWorkspace(base);
});

describe("file tools are judged on the real path too", () => {
  it.each([
    ["default", "Read", { file_path: "notes.txt" }, "deny"],
    ["bypassPermissions", "Read", { file_path: "notes.txt" }, "deny"],
    ["acceptEdits", "Edit", { file_path: "docs/config" }, "ask"],
    ["acceptEdits", "Write", { file_path: "docs/new.txt" }, "ask"],
    ["acceptEdits", "Edit", { file_path: "plain.txt" }, "allow"],
    ["default", "Read", { file_path: "plain.txt" }, "allow"],
  ] as const)("%s: %s %j → %s", async (mode: PermissionMode, name, args, expected) => {
    const permissions = await createCodePermissions({
      workspace: { root, directories: [root] },
      mode,
      settingsFiles: [],
      home: join(base, "home"),
      rules: { deny: ["Read(./secrets/**)"] },
    });
    expect((await permissions.canUseTool({ id: "1", name, arguments: { ...args } }, permissionContext(name))).behavior).toBe(expected);
  });
});

describe("shell commands are judged on where their paths lead too", () => {
  it.each([
    ["default", "cat notes.txt", "deny"],
    ["bypassPermissions", "cat notes.txt", "deny"],
    ["default", "cat < notes.txt", "deny"],
    ["default", "cat plain.txt", "allow"],
  ] as const)("%s: %s → %s", async (mode: PermissionMode, command, expected) => {
    const permissions = await createCodePermissions({
      workspace: { root, directories: [root] },
      mode,
      settingsFiles: [],
      home: join(base, "home"),
      rules: { deny: ["Read(./secrets/**)"] },
    });
    expect((await permissions.canUseTool({ id: "1", name: "Bash", arguments: { command } }, permissionContext("Bash"))).behavior).toBe(
      expected,
    );
  });
});

describe("a file with more than one hard link", () => {
  it("is asked even where an allow rule or the mode would run it: its other name may be outside", async () => {
    const outside = join(base, "outside.txt");
    await writeFile(outside, "secret\n");
    const { link } = await import("node:fs/promises");
    await link(outside, join(root, "linked.txt"));
    const decide = async (mode: PermissionMode, name: string, allow: string[]) => {
      const permissions = await createCodePermissions({
        workspace: { root, directories: [root] },
        mode,
        settingsFiles: [],
        rules: { allow },
      });
      return (await permissions.canUseTool({ id: "1", name, arguments: { file_path: "linked.txt" } }, permissionContext(name))).behavior;
    };
    expect(await decide("default", "Read", ["Read(**)"])).toBe("ask");
    expect(await decide("acceptEdits", "Edit", ["Edit(**)"])).toBe("ask");
    expect(await decide("bypassPermissions", "Read", [])).toBe("allow");
  });
});
