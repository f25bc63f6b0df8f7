import { execFile } from "node:child_process";
import * as fs from "node:fs/promises";
import { chmod, chown, mkdir, readdir, readFile, readlink, stat, symlink, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createEditTool } from "../../src/code/tools/edit.js";
import { createReadTool } from "../../src/code/tools/read.js";
import { Workspace } from "../../src/code/workspace.js";
import { ToolError } from "../../src/index.js";
import { callTool } from "./helpers/call-tool.js";
import { buildPrivately } from "./helpers/private-build.js";
import { createTemporaryWorkspace, removeTemporaryWorkspace } from "./helpers/temporary-workspace.js";

// rename is wrapped so that a test can make it fail once: a crash between writing the temporary file and moving it
// into place; realpath, so that a test can make one path slow to resolve.
vi.mock("node:fs/promises", async (importOriginal) => {
  const actual = await importOriginal<typeof import("node:fs/promises")>();
  return { ...actual, rename: vi.fn(actual.rename), realpath: vi.fn(actual.realpath) };
});

let base: string;
let root: string;
let outside: string;

beforeEach(async () => {
  ({ base, root, outside } = await createTemporaryWorkspace("workspace"));
  await writeFile(join(outside, "secret.txt"), "secret\n");
});

afterEach(async () => {
  vi.mocked(fs.rename).mockClear();
  await removeTemporaryWorkspace(base);
});

/**
 * Runs `checkWritable` on `file` in a child process as the user nobody (setpriv), from a private build of
 * src/code/workspace.ts: what it threw, or "" when it let the file through.
 */
async function checkWritableAsNobody(file: string): Promise<string> {
  const nobody = 65534;
  const build = buildPrivately(["code/workspace.ts"], "workspace-nobody");
  try {
    await chown(file, nobody, nobody);
    for (const folder of [build.directory, base, root]) await chmod(folder, 0o755);
    const script = `const { Workspace } = await import(process.env.BUILD + "/code/workspace.js");
const workspace = new Workspace({ root: process.env.ROOT });
await workspace.remember(process.env.FILE);
console.log(JSON.stringify(await workspace.checkWritable(process.env.FILE).then(() => "", (error) => error.message)));`;
    const { stdout } = await promisify(execFile)(
      "setpriv",
      ["--reuid", String(nobody), "--regid", String(nobody), "--clear-groups", process.execPath, "--input-type=module", "-e", script],
      { env: { PATH: process.env.PATH ?? "", BUILD: build.build, ROOT: root, FILE: file }, timeout: 20_000 },
    );
    return JSON.parse(stdout) as string;
  } finally {
    build.remove();
  }
}

async function refusal(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(ToolError);
  return (error as ToolError).message;
}

describe("Workspace.resolve", () => {
  it("takes relative paths from the root and accepts absolute paths inside it", async () => {
    const workspace = new Workspace({ root });
    expect(await workspace.resolve("src/app.ts")).toBe(join(root, "src/app.ts"));
    expect(await workspace.resolve(join(root, "a.txt"))).toBe(join(root, "a.txt"));
    expect(await workspace.resolve("src/../b.txt")).toBe(join(root, "b.txt"));
    expect(workspace.display(join(root, "src/app.ts"))).toBe("src/app.ts");
    expect(workspace.display(root)).toBe(".");
  });

  it("refuses .., absolute paths elsewhere, empty paths, NUL bytes and ~", async () => {
    const workspace = new Workspace({ root });
    expect(await refusal(workspace.resolve("../outside/secret.txt"))).toBe(
      `"../outside/secret.txt" leads outside the workspace; only paths inside ${root} may be used.`,
    );
    expect(await refusal(workspace.resolve(join(outside, "secret.txt")))).toMatch(/leads outside the workspace;/);
    expect(await refusal(workspace.resolve("/etc/passwd"))).toMatch(/leads outside the workspace/);
    expect(await refusal(workspace.resolve("a/../../x"))).toMatch(/leads outside/);
    expect(await refusal(workspace.resolve(""))).toMatch(/empty/);
    expect(await refusal(workspace.resolve("a\0b"))).toMatch(/NUL/);
    expect(await refusal(workspace.resolve("~/.ssh/id_rsa"))).toMatch(/"~" is not expanded/);
    // A name that merely starts like the root is not inside it.
    await mkdir(`${root}-sibling`);
    expect(await refusal(workspace.resolve(`${root}-sibling/x`))).toMatch(/leads outside/);
  });

  it("refuses a symlink inside the workspace that points outside", async () => {
    await symlink(join(outside, "secret.txt"), join(root, "link.txt"));
    const workspace = new Workspace({ root });
    expect(await refusal(workspace.resolve("link.txt"))).toMatch(/"link.txt" leads outside the workspace through a symbolic link/);
  });

  it("refuses paths under a symlinked directory that leads out, whether the file exists or not", async () => {
    await symlink(outside, join(root, "out"));
    const workspace = new Workspace({ root });
    expect(await refusal(workspace.resolve("out/secret.txt"))).toMatch(/through a symbolic link/);
    expect(await refusal(workspace.resolve("out/new/deeper.txt"))).toMatch(/through a symbolic link/);
  });

  it("judges a dangling symlink by where it points", async () => {
    await symlink(join(outside, "not-yet.txt"), join(root, "dangling-out"));
    await symlink("./not-yet.txt", join(root, "dangling-in"));
    const workspace = new Workspace({ root });
    expect(await refusal(workspace.resolve("dangling-out"))).toMatch(/through a symbolic link/);
    expect(await workspace.resolve("dangling-in")).toBe(join(root, "dangling-in"));
  });

  it("refuses a loop of symlinks with an observation", async () => {
    await symlink(join(root, "b"), join(root, "a"));
    await symlink(join(root, "a"), join(root, "b"));
    expect(await refusal(new Workspace({ root }).resolve("a"))).toMatch(/loop of symbolic links|too many symbolic links/);
  });

  it("accepts symlinks that stay inside", async () => {
    await mkdir(join(root, "real"));
    await symlink(join(root, "real"), join(root, "alias"));
    expect(await new Workspace({ root }).resolve("alias/file.txt")).toBe(join(root, "alias/file.txt"));
  });

  it("accepts additional directories, by absolute path or relative to the root, and nothing beside them", async () => {
    const extra = join(base, "extra");
    await mkdir(extra);
    const workspace = new Workspace({ root, additionalDirectories: ["../extra"] });
    expect(workspace.directories).toEqual([root, extra]);
    expect(await workspace.resolve(join(extra, "notes.md"))).toBe(join(extra, "notes.md"));
    expect(await workspace.resolve("../extra/notes.md")).toBe(join(extra, "notes.md"));
    expect(workspace.display(join(extra, "notes.md"))).toBe(join(extra, "notes.md"));
    expect(await refusal(workspace.resolve("../outside/secret.txt"))).toContain(`only paths inside ${root}, ${extra} may be used`);
  });

  it("accepts the real path of a root given through a symlink (as /tmp is on macOS)", async () => {
    const alias = join(base, "alias");
    await symlink(root, alias);
    const workspace = new Workspace({ root: alias });
    expect(await workspace.resolve(join(root, "a.txt"))).toBe(join(root, "a.txt"));
    expect(await workspace.resolve("a.txt")).toBe(join(alias, "a.txt"));
  });
});

describe("Workspace: read tracking", () => {
  it("needs no read for a new file, a read for an existing one, and a fresh read after a change on disk", async () => {
    const workspace = new Workspace({ root });
    const file = join(root, "a.txt");
    await workspace.checkWritable(file); // does not exist: fine
    await writeFile(file, "one\n");
    expect(await refusal(workspace.checkWritable(file))).toBe(
      "Read a.txt before changing it: it exists and has not been read in this session.",
    );
    await workspace.remember(file);
    await workspace.checkWritable(file);

    const { mtime } = await stat(file);
    await utimes(file, mtime, new Date(mtime.getTime() + 5000)); // touched behind the agent's back
    expect(await refusal(workspace.checkWritable(file))).toBe(
      "a.txt has changed on disk since it was read; read it again before changing it.",
    );
    await workspace.remember(file);

    await writeFile(file, "one and more\n"); // same mtime restored, different size
    await utimes(file, mtime, new Date(mtime.getTime() + 5000));
    expect(await refusal(workspace.checkWritable(file))).toMatch(/has changed on disk/);
  });

  it("keys versions by the real file: a read through a symlink counts for the file it points to", async () => {
    const workspace = new Workspace({ root });
    await writeFile(join(root, "real.txt"), "x");
    await symlink(join(root, "real.txt"), join(root, "alias.txt"));
    await workspace.remember(join(root, "alias.txt"));
    await workspace.checkWritable(join(root, "real.txt"));
    expect(await workspace.seenVersion(join(root, "real.txt"))).toMatchObject({ size: 1 });
  });

  it("refuses a directory", async () => {
    const workspace = new Workspace({ root });
    await mkdir(join(root, "dir"));
    expect(await refusal(workspace.checkWritable(join(root, "dir")))).toBe("dir is a directory, not a file.");
  });

  it("refuses a read-only file to a user who may not write it; root may write it", async () => {
    const locked = join(root, "locked.txt");
    await writeFile(locked, "x");
    await chmod(locked, 0o444);
    const workspace = new Workspace({ root });
    await workspace.remember(locked);
    const refused = "locked.txt is read-only (no write permission); it was left unchanged.";
    if (process.getuid?.() !== 0) {
      expect(await refusal(workspace.checkWritable(locked))).toBe(refused);
      return;
    }
    // Root may write any file: the agent may change it.
    await expect(workspace.checkWritable(locked)).resolves.toBeUndefined();
    // The refusal, as a real unprivileged user sees it: nobody, owning the file without write permission.
    expect(await checkWritableAsNobody(locked)).toBe(refused);
  }, 30_000);
});

describe("Workspace.writeAtomic", () => {
  it("creates missing folders, keeps an existing file's mode, and remembers what it wrote", async () => {
    const workspace = new Workspace({ root });
    await workspace.writeAtomic(join(root, "a/b/c.txt"), "hello");
    expect(await readFile(join(root, "a/b/c.txt"), "utf8")).toBe("hello");
    await workspace.checkWritable(join(root, "a/b/c.txt")); // its own write counts as seen

    await writeFile(join(root, "run.sh"), "#!/bin/sh\n");
    await chmod(join(root, "run.sh"), 0o751);
    await workspace.writeAtomic(join(root, "run.sh"), "#!/bin/sh\necho hi\n");
    expect((await stat(join(root, "run.sh"))).mode & 0o777).toBe(0o751);
    expect(await readdir(root)).toEqual(["a", "run.sh"]); // no temporary file left
  });

  it("writes through a symlink: the target changes and the link stays a link", async () => {
    const workspace = new Workspace({ root });
    await writeFile(join(root, "real.txt"), "old");
    await symlink("real.txt", join(root, "alias.txt"));
    await workspace.writeAtomic(join(root, "alias.txt"), "new");
    expect(await readlink(join(root, "alias.txt"))).toBe("real.txt");
    expect(await readFile(join(root, "real.txt"), "utf8")).toBe("new");
  });

  it("leaves no temporary file behind when the write fails", async () => {
    const workspace = new Workspace({ root });
    await mkdir(join(root, "taken"));
    await writeFile(join(root, "taken/inner.txt"), "keep");
    // Renaming a file over a non-empty directory fails.
    expect(await refusal(workspace.writeAtomic(join(root, "taken"), "data"))).toMatch(/^Could not write taken: /);
    expect((await readdir(root)).sort()).toEqual(["taken"]);
    expect(await readdir(join(root, "taken"))).toEqual(["inner.txt"]);
  });

  it("a crash between writing and renaming leaves the original intact and no temporary file", async () => {
    const workspace = new Workspace({ root });
    const file = join(root, "config.json");
    await writeFile(file, '{ "port": 80 }\n');
    vi.mocked(fs.rename).mockRejectedValueOnce(Object.assign(new Error("EIO: i/o error, rename"), { code: "EIO" }));
    expect(await refusal(workspace.writeAtomic(file, '{ "port": 8080 }\n'))).toBe(
      "Could not write config.json: EIO: i/o error, rename (EIO).",
    );
    expect(await readFile(file, "utf8")).toBe('{ "port": 80 }\n');
    expect(await readdir(root)).toEqual(["config.json"]);
  });

  it("through Edit: a failed rename is an observation, and the file and its folder are as they were", async () => {
    const workspace = new Workspace({ root });
    await writeFile(join(root, "app.ts"), "const port = 80;\n");
    expect((await callTool(createReadTool(workspace), { file_path: "app.ts" })).isError).toBe(false);
    vi.mocked(fs.rename).mockRejectedValueOnce(Object.assign(new Error("ENOSPC: no space left on device"), { code: "ENOSPC" }));
    const edit = createEditTool(workspace);
    expect(await callTool(edit, { file_path: "app.ts", old_string: "80", new_string: "8080" })).toEqual({
      content: "Could not write app.ts: the disk is full (ENOSPC).",
      isError: true,
    });
    expect(await readFile(join(root, "app.ts"), "utf8")).toBe("const port = 80;\n");
    expect(await readdir(root)).toEqual(["app.ts"]);
    // Nothing was written, so the agent's read still holds: the next attempt succeeds.
    expect((await callTool(edit, { file_path: "app.ts", old_string: "80", new_string: "8080" })).isError).toBe(false);
    expect(await readFile(join(root, "app.ts"), "utf8")).toBe("const port = 8080;\n");
  });
});

describe("Workspace.exclusive", () => {
  it("runs work on the same file one at a time, and on different files at once", async () => {
    const workspace = new Workspace({ root });
    const order: string[] = [];
    const step = (name: string, ms: number) => async () => {
      order.push(`${name} start`);
      await new Promise((resolve) => setTimeout(resolve, ms));
      order.push(`${name} end`);
      return name;
    };
    const results = await Promise.all([
      workspace.exclusive(join(root, "a.txt"), step("a1", 20)),
      workspace.exclusive(join(root, "a.txt"), step("a2", 1)),
      workspace.exclusive(join(root, "b.txt"), step("b", 1)),
    ]);
    expect(results).toEqual(["a1", "a2", "b"]);
    expect(order.indexOf("a2 start")).toBeGreaterThan(order.indexOf("a1 end"));
    expect(order.indexOf("b end")).toBeLessThan(order.indexOf("a1 end"));
    // A failure does not block the next.
    await expect(workspace.exclusive(join(root, "a.txt"), () => Promise.reject(new Error("x")))).rejects.toThrow("x");
    expect(await workspace.exclusive(join(root, "a.txt"), async () => "after")).toBe("after");
  });

  it("runs calls on one file in the order they were made, however long their paths take to resolve", async () => {
    const workspace = new Workspace({ root });
    await writeFile(join(root, "a.txt"), "a");
    await symlink("a.txt", join(root, "link.txt"));
    const actual = await vi.importActual<typeof import("node:fs/promises")>("node:fs/promises");
    vi.mocked(fs.realpath).mockImplementationOnce(async (path) => {
      await new Promise((resolve) => setTimeout(resolve, 50));
      return actual.realpath(path);
    });
    const order: string[] = [];
    const step = (name: string) => async () => {
      order.push(name);
    };
    await Promise.all([
      workspace.exclusive(join(root, "link.txt"), step("first, through the slow link")),
      workspace.exclusive(join(root, "a.txt"), step("second")),
    ]);
    expect(order).toEqual(["first, through the slow link", "second"]);
  });
});
