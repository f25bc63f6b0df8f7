import { constants, existsSync } from "node:fs";
import * as fs from "node:fs/promises";
import { mkdir, readdir, readFile, rename, rm, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createReadTool } from "../../src/code/tools/read.js";
import type { Workspace } from "../../src/code/workspace.js";
import { ToolError } from "../../src/index.js";
import { callTool } from "./helpers/call-tool.js";
import { createTemporaryWorkspace, removeTemporaryWorkspace } from "./helpers/temporary-workspace.js";

// open is wrapped so that a test can change the tree at the exact moment the Workspace opens a folder or a file:
// the race a local process could win, made certain. stat, so that a test can hide /proc/self/fd as macOS would.
vi.mock("node:fs/promises", async (importOriginal) => {
  const actual = await importOriginal<typeof import("node:fs/promises")>();
  return { ...actual, open: vi.fn(actual.open), stat: vi.fn(actual.stat) };
});

let base: string;
let root: string;
let outside: string;
let workspace: Workspace;

beforeEach(async () => {
  ({ base, root, outside, workspace } = await createTemporaryWorkspace("held-folder"));
  await mkdir(join(root, "d"));
  await writeFile(join(outside, "secret.txt"), "secret\n");
});

afterEach(async () => {
  vi.mocked(fs.open).mockReset();
  vi.mocked(fs.stat).mockReset();
  await removeTemporaryWorkspace(base);
});

/** Runs `change` just before the Workspace's first `open` whose path and flags `matches` accepts (and `after`, just after it). */
function beforeOpen(matches: (path: string, flags: number) => boolean, change: () => Promise<void>, after?: () => Promise<void>): void {
  const actualOpen = vi.mocked(fs.open).getMockImplementation() as typeof fs.open;
  let done = false;
  vi.mocked(fs.open).mockImplementation(async (path, flags, mode) => {
    if (done || typeof flags !== "number" || !matches(String(path), flags)) return actualOpen(path, flags, mode);
    done = true;
    await change();
    const handle = await actualOpen(path, flags, mode);
    await after?.();
    return handle;
  });
}

const swapForLinkOut = async () => {
  await rename(join(root, "d"), join(root, "parked"));
  await symlink(outside, join(root, "d"));
};

async function refusal(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(ToolError);
  return (error as ToolError).message;
}

describe("Workspace.writeAtomic works through the folder it resolved", () => {
  it("refuses when a folder on the way became a symlink that leads out after the path was resolved", async () => {
    const absolute = await workspace.resolve("d/new.txt");
    await swapForLinkOut();
    expect(await refusal(workspace.writeAtomic(absolute, "x\n"))).toBe(
      "d/new.txt now leads outside the workspace: a folder or link on its way changed while it was being used, so it was left alone. Check the path and try again.",
    );
    expect(await readdir(outside)).toEqual(["secret.txt"]);
  });

  it("never writes outside when the folder is swapped for a link out as the temporary file is made", async () => {
    const absolute = await workspace.resolve("d/new.txt");
    beforeOpen((path) => path.endsWith(".minagent-tmp"), swapForLinkOut);
    await workspace.writeAtomic(absolute, "x\n").catch(() => undefined);
    expect(await readdir(outside)).toEqual(["secret.txt"]);
  });

  it.runIf(process.platform === "linux")(
    "on Linux, writes into the very folder it opened, wherever that folder has moved inside the workspace",
    async () => {
      const absolute = await workspace.resolve("d/new.txt");
      beforeOpen((path) => path.endsWith(".minagent-tmp"), swapForLinkOut);
      await workspace.writeAtomic(absolute, "x\n");
      expect(await readFile(join(root, "parked", "new.txt"), "utf8")).toBe("x\n");
      expect(await readdir(join(root, "parked"))).toEqual(["new.txt"]);
    },
  );

  it("refuses, and leaves no temporary file, when the folder itself is moved out while the temporary file is made", async () => {
    const absolute = await workspace.resolve("d/new.txt");
    beforeOpen(
      (path) => path.endsWith(".minagent-tmp"),
      () => rename(join(root, "d"), join(outside, "d")),
    );
    expect(await refusal(workspace.writeAtomic(absolute, "x\n"))).toMatch(/^d\/new.txt now leads outside the workspace/);
    expect(await readdir(join(outside, "d"))).toEqual([]);
  });

  it("makes missing folders one inside the other, and refuses when one of them is swapped for a link out", async () => {
    await workspace.writeAtomic(join(root, "a", "b", "c.txt"), "c\n");
    expect(await readFile(join(root, "a", "b", "c.txt"), "utf8")).toBe("c\n");
    const absolute = await workspace.resolve("d/e/f.txt");
    // The moment after the Workspace made d/e, as it opens it.
    beforeOpen(
      (path, flags) => (flags & constants.O_DIRECTORY) !== 0 && path.endsWith("/e") && existsSync(join(root, "d", "e")),
      async () => {
        await rm(join(root, "d", "e"), { recursive: true });
        await symlink(outside, join(root, "d", "e"));
      },
    );
    expect(await refusal(workspace.writeAtomic(absolute, "f\n"))).toMatch(/^d\/e\/f.txt now leads outside the workspace/);
    expect(await readdir(outside)).toEqual(["secret.txt"]);
  });

  it("refuses a symlink put in the target's own place after it was resolved, and leaves the file it points to alone", async () => {
    await writeFile(join(root, "d", "a.txt"), "a\n");
    const absolute = await workspace.resolve("d/a.txt");
    beforeOpen(
      (_path, flags) => (flags & constants.O_DIRECTORY) !== 0,
      async () => {
        await rm(join(root, "d", "a.txt"));
        await symlink(join(outside, "secret.txt"), join(root, "d", "a.txt"));
      },
    );
    expect(await refusal(workspace.writeAtomic(absolute, "x\n"))).toBe(
      "d/a.txt was replaced by a symbolic link while it was being written; it was left unchanged.",
    );
    expect(await readFile(join(outside, "secret.txt"), "utf8")).toBe("secret\n");
    expect(await readdir(join(root, "d"))).toEqual(["a.txt"]);
  });
});

describe("Workspace.writeAtomic where folders cannot be named through their descriptor (no /proc)", () => {
  beforeEach(() => {
    const actualStat = vi.mocked(fs.stat).getMockImplementation() as typeof fs.stat;
    vi.mocked(fs.stat).mockImplementation(((path: string, options?: object) =>
      String(path).startsWith("/proc/self/fd/")
        ? Promise.reject(Object.assign(new Error("ENOENT: no such file or directory"), { code: "ENOENT" }))
        : actualStat(path, options)) as typeof fs.stat);
  });

  it("writes as usual", async () => {
    await workspace.writeAtomic(join(root, "d", "e", "new.txt"), "x\n");
    expect(await readFile(join(root, "d", "e", "new.txt"), "utf8")).toBe("x\n");
  });

  it("refuses, and removes the temporary file made outside, when the folder is swapped for a link out as it is made", async () => {
    const absolute = await workspace.resolve("d/new.txt");
    beforeOpen((path) => path.endsWith(".minagent-tmp"), swapForLinkOut);
    expect(await refusal(workspace.writeAtomic(absolute, "x\n"))).toMatch(/^d\/new.txt now leads outside the workspace/);
    expect(await readdir(outside)).toEqual(["secret.txt"]);
    expect(await readdir(join(root, "parked"))).toEqual([]);
  });

  it("refuses when the folder is swapped for a link out and back as the temporary file is made; that file stays outside, empty", async () => {
    const absolute = await workspace.resolve("d/new.txt");
    beforeOpen(
      (path) => path.endsWith(".minagent-tmp"),
      swapForLinkOut,
      async () => {
        await rm(join(root, "d"));
        await rename(join(root, "parked"), join(root, "d"));
      },
    );
    expect(await refusal(workspace.writeAtomic(absolute, "x\n"))).toMatch(/^d\/new.txt now leads outside the workspace/);
    // Without openat the temporary file cannot be made in the checked folder, nor found again once the path has moved
    // on: it is checked before any content goes in, so what stays behind is an empty file.
    const stray = (await readdir(outside)).filter((name) => name !== "secret.txt");
    expect(stray).toEqual([expect.stringMatching(/^\.new\.txt\.[0-9a-f]{12}\.minagent-tmp$/)]);
    expect(await readFile(join(outside, stray[0] as string), "utf8")).toBe("");
    expect(await readdir(join(root, "d"))).toEqual([]);
  });
});

describe("Workspace.openFile", () => {
  it("does not follow a symlink put in the file's place after the path was resolved", async () => {
    await writeFile(join(root, "d", "a.txt"), "a\n");
    beforeOpen(
      (path, flags) => path.endsWith("a.txt") && (flags & constants.O_DIRECTORY) === 0,
      async () => {
        await rm(join(root, "d", "a.txt"));
        await symlink(join(outside, "secret.txt"), join(root, "d", "a.txt"));
      },
    );
    expect(await callTool(createReadTool(workspace), { file_path: "d/a.txt" })).toEqual({
      content: "Could not read d/a.txt: a symbolic link was found where a file or folder was expected (ELOOP).",
      isError: true,
    });
  });

  it("still reads through a symlink that leads to a file inside", async () => {
    await writeFile(join(root, "d", "a.txt"), "a\n");
    await symlink(join("d", "a.txt"), join(root, "link.txt"));
    const handle = await workspace.openFile(join(root, "link.txt"));
    try {
      expect(await handle.readFile("utf8")).toBe("a\n");
    } finally {
      await handle.close();
    }
  });
});
