import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCodePermissions, type PermissionMode } from "../../../src/code/permissions/index.js";
import { permissionContext } from "../helpers/permission-context.js";
import { createTemporaryWorkspace, removeTemporaryWorkspace } from "../helpers/temporary-workspace.js";

let base: string;
let root: string;

beforeAll(async () => {
  ({ base, root } = await createTemporaryWorkspace("bash-directory"));
  await mkdir(join(root, "src"), { recursive: true });
  await mkdir(join(root, ".git"));
  await mkdir(join(root, "secrets"));
});

afterAll(async () => {
  await removeTemporaryWorkspace(base);
});

const context = permissionContext("Bash");

async function decide(mode: PermissionMode, directory: string | undefined, command: string) {
  const permissions = await createCodePermissions({
    workspace: { root, directories: [root] },
    mode,
    settingsFiles: [],
    home: join(base, "home"),
    rules: { deny: ["Read(./secrets/**)"] },
    bashDirectory: directory === undefined ? undefined : () => join(root, directory),
  });
  return (await permissions.canUseTool({ id: "1", name: "Bash", arguments: { command } }, context)).behavior;
}

describe("Bash paths are taken from the Bash tool's current directory", () => {
  it.each([
    ["acceptEdits", ".git", "echo x >> config", "ask"],
    ["acceptEdits", ".git", "touch config", "ask"],
    ["acceptEdits", "src", "touch a.ts", "allow"],
    ["default", "src", "cat ../secrets/key", "deny"],
    ["default", "src", "cat < ../secrets/key", "deny"],
    ["default", "src", "cat a.ts", "allow"],
    ["default", "..", "cat work/src/a.ts", "allow"],
    ["default", "..", "cat a.ts", "ask"],
    ["default", "..", "ls", "ask"],
    ["default", undefined, "cat src/a.ts", "allow"],
  ] as const)("%s in %s: %j → %s", async (mode, directory, command, expected) => {
    expect(await decide(mode, directory, command)).toBe(expected);
  });

  it.each([
    "cd .git && echo x >> config",
    "cd .git; touch config",
    "for i in 1 2; do echo x >> config; cd .git; done",
    "f() { touch config; cd .git; }; f; f",
    "while true; do touch config; pushd .git; done",
  ])("a directory change earlier in the line (or in a loop) is asked in acceptEdits: %j", async (command) => {
    expect(await decide("acceptEdits", undefined, command)).toBe("ask");
  });
});
