import { link, mkdir, readFile, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createCodePermissions, type PermissionMode } from "../../../src/code/permissions/index.js";
import { createEditTool } from "../../../src/code/tools/edit.js";
import { createReadTool } from "../../../src/code/tools/read.js";
import { createWriteTool } from "../../../src/code/tools/write.js";
import type { Workspace } from "../../../src/code/workspace.js";
import { type CanUseTool, type Tool, ToolRegistry } from "../../../src/index.js";
import { createTemporaryWorkspace, removeTemporaryWorkspace } from "../helpers/temporary-workspace.js";

let base: string;
let root: string;
let outside: string;
let workspace: Workspace;

beforeEach(async () => {
  ({ base, root, outside, workspace } = await createTemporaryWorkspace("hard-links"));
  await writeFile(join(outside, "passwd"), "root:x:0:0\n");
  // As `ln ../outside/passwd linked.txt` run by an earlier command would leave it.
  await link(join(outside, "passwd"), join(root, "linked.txt"));
  await writeFile(join(root, "plain.txt"), "plain\n");
  await symlink("linked.txt", join(root, "to-linked.txt"));
  await mkdir(join(root, "folder"));
});

afterEach(() => removeTemporaryWorkspace(base));

const tools = (): Record<string, Tool> => ({
  Read: createReadTool(workspace),
  Write: createWriteTool(workspace),
  Edit: createEditTool(workspace),
});

const argumentsFor = (name: string, file_path: string): Record<string, unknown> =>
  name === "Read" ? { file_path } : name === "Write" ? { file_path, content: "new\n" } : { file_path, old_string: "x", new_string: "y" };

/** Runs one call as the loop does; "pending" when the decision was to ask. */
async function call(name: string, file_path: string, canUseTool?: CanUseTool): Promise<string> {
  const tool = tools()[name] as Tool;
  const outcome = await new ToolRegistry().add(tool).execute({ id: "1", name, arguments: argumentsFor(name, file_path) }, { canUseTool });
  return "pending" in outcome ? "pending" : String(outcome.content);
}

describe("Workspace.isLocationUncertain", () => {
  it("is true for a regular file with another hard link, also reached through a symlink", async () => {
    expect(await workspace.isLocationUncertain("linked.txt")).toBe(true);
    expect(await workspace.isLocationUncertain(join(root, "to-linked.txt"))).toBe(true);
  });

  it("is false for a file with one link, a folder, a missing file and a path that is refused anyway", async () => {
    expect(await workspace.isLocationUncertain("plain.txt")).toBe(false);
    expect(await workspace.isLocationUncertain("folder")).toBe(false);
    expect(await workspace.isLocationUncertain("missing.txt")).toBe(false);
    expect(await workspace.isLocationUncertain("../outside/passwd")).toBe(false);
  });
});

describe("Read, Write and Edit of a hard-linked file", () => {
  it.each(["Read", "Write", "Edit"])(
    "%s asks for approval when no permission check decides, and runs on a file with one link",
    async (name) => {
      expect(await call(name, "linked.txt")).toBe("pending");
      expect(await call(name, "to-linked.txt")).toBe("pending");
      expect(await call(name, "plain.txt")).not.toBe("pending");
    },
  );

  it.each([
    ["default", "Read", "linked.txt", "ask"],
    ["default", "Read", "to-linked.txt", "ask"],
    ["default", "Read", "plain.txt", "allow"],
    ["plan", "Read", "linked.txt", "ask"],
    ["acceptEdits", "Edit", "linked.txt", "ask"],
    ["acceptEdits", "Write", "linked.txt", "ask"],
    ["acceptEdits", "Edit", "plain.txt", "allow"],
    ["acceptEdits", "Write", "new.txt", "allow"],
    ["default", "Edit", "linked.txt", "ask"],
    ["bypassPermissions", "Read", "linked.txt", "allow"],
  ] as const)("in %s mode, %s of %s is %s, as a symlink that leads out would be", async (mode: PermissionMode, name, path, expected) => {
    const permissions = await createCodePermissions({ workspace, mode, settingsFiles: [], home: join(base, "home") });
    const outcome = await call(name, path, permissions.canUseTool);
    if (expected === "ask") expect(outcome).toBe("pending");
    else expect(outcome).not.toMatch(/^pending$|Permission denied/);
  });

  it("once approved, a Write replaces the workspace's name only: the other name keeps its content", async () => {
    const registry = new ToolRegistry().add(createReadTool(workspace)).add(createWriteTool(workspace));
    const approved = { decision: { behavior: "allow" } } as const;
    await registry.execute({ id: "1", name: "Read", arguments: { file_path: "linked.txt" } }, approved);
    const written = await registry.execute({ id: "2", name: "Write", arguments: { file_path: "linked.txt", content: "mine\n" } }, approved);
    expect(written).toMatchObject({ isError: false, content: "Overwrote linked.txt (1 line, 5 bytes; it had 11 bytes)." });
    expect(await readFile(join(root, "linked.txt"), "utf8")).toBe("mine\n");
    expect(await readFile(join(outside, "passwd"), "utf8")).toBe("root:x:0:0\n");
    // Its own file now, with one link: the next call runs without asking.
    expect(await workspace.isLocationUncertain("linked.txt")).toBe(false);
  });
});
