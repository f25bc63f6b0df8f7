import { chmod, mkdir, readdir, readFile, readlink, stat, symlink, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createReadTool } from "../../../src/code/tools/read.js";
import { createWriteTool } from "../../../src/code/tools/write.js";
import { Workspace } from "../../../src/code/workspace.js";
import { callTool } from "../helpers/call-tool.js";
import { createTemporaryWorkspace, removeTemporaryWorkspace } from "../helpers/temporary-workspace.js";

let base: string;
let root: string;
let outside: string;
let workspace: Workspace;

beforeEach(async () => {
  ({ base, root, outside, workspace } = await createTemporaryWorkspace("write"));
});

afterEach(() => removeTemporaryWorkspace(base));

const write = (file_path: string, content: string) => callTool(createWriteTool(workspace), { file_path, content });
const read = (file_path: string) => callTool(createReadTool(workspace), { file_path });

describe("Write", () => {
  it("creates a file and its folders, and says so with its size; is not read-only", async () => {
    expect(await write("src/lib/new.ts", "export const a = 1;\nexport const b = 2;\n")).toEqual({
      content: "Created src/lib/new.ts (2 lines, 40 bytes).",
      isError: false,
    });
    expect(await readFile(join(root, "src/lib/new.ts"), "utf8")).toBe("export const a = 1;\nexport const b = 2;\n");
    expect(createWriteTool(workspace).readOnly).toBeUndefined();
    expect((await write("empty.txt", "")).content).toBe("Created empty.txt (0 lines, 0 bytes).");
  });

  it("overwrites an existing file only after it was read, and says so with both sizes", async () => {
    await writeFile(join(root, "a.txt"), "old content\n");
    expect(await write("a.txt", "new\n")).toEqual({
      content: "Read a.txt before changing it: it exists and has not been read in this session.",
      isError: true,
    });
    expect(await readFile(join(root, "a.txt"), "utf8")).toBe("old content\n");
    await read("a.txt");
    expect((await write("a.txt", "new\n")).content).toBe("Overwrote a.txt (1 line, 4 bytes; it had 12 bytes).");
    // Its own write counts as read: a second write needs no new Read.
    expect((await write("a.txt", "newer\n")).isError).toBe(false);
  });

  it("refuses a file changed on disk since it was read (mtime or size)", async () => {
    await writeFile(join(root, "a.txt"), "v1\n");
    await read("a.txt");
    const { mtime } = await stat(join(root, "a.txt"));
    await utimes(join(root, "a.txt"), mtime, new Date(mtime.getTime() + 2000));
    expect(await write("a.txt", "v2\n")).toEqual({
      content: "a.txt has changed on disk since it was read; read it again before changing it.",
      isError: true,
    });
    await read("a.txt");
    await writeFile(join(root, "a.txt"), "v1 changed\n");
    await utimes(join(root, "a.txt"), mtime, new Date(mtime.getTime() + 2000));
    expect((await write("a.txt", "v2\n")).content).toMatch(/has changed on disk/);
    expect(await readFile(join(root, "a.txt"), "utf8")).toBe("v1 changed\n");
  });

  it("keeps an existing file's CRLF line endings and byte-order mark when the content has LF and no mark", async () => {
    await writeFile(join(root, "win.txt"), "\uFEFFone\r\ntwo\r\n");
    await read("win.txt");
    expect((await write("win.txt", "uno\ndos\ntres\n")).content).toBe(
      "Overwrote win.txt (3 lines, 19 bytes; it had 13 bytes). Kept the file's CRLF line endings and byte-order mark.",
    );
    expect(await readFile(join(root, "win.txt"), "utf8")).toBe("\uFEFFuno\r\ndos\r\ntres\r\n");
    // Content that already chose its line endings is written as sent; a new file is never converted.
    expect((await write("win.txt", "a\r\nb\n")).content).not.toMatch(/CRLF/);
    expect(await readFile(join(root, "win.txt"), "utf8")).toBe("\uFEFFa\r\nb\n");
    await write("new.txt", "a\nb\n");
    expect(await readFile(join(root, "new.txt"), "utf8")).toBe("a\nb\n");
  });

  it("refuses a directory, and a path whose parent is a file", async () => {
    await mkdir(join(root, "dir"));
    expect(await write("dir", "x")).toEqual({ content: "dir is a directory, not a file.", isError: true });
    await writeFile(join(root, "file.txt"), "x");
    expect((await write("file.txt/child.txt", "x")).content).toMatch(
      /^Could not create the folder for file.txt\/child.txt: .*\((EEXIST|ENOTDIR)\)\.$/,
    );
  });

  it("refuses paths outside the workspace, directly or through symlinks (dangling ones too)", async () => {
    await writeFile(join(outside, "target.txt"), "outside\n");
    await symlink(join(outside, "target.txt"), join(root, "link.txt"));
    await symlink(outside, join(root, "out"));
    await symlink(join(outside, "not-yet.txt"), join(root, "dangling.txt"));
    for (const path of ["../outside/x.txt", join(outside, "x.txt"), "link.txt", "out/x.txt", "out/deep/x.txt", "dangling.txt"]) {
      const result = await write(path, "pwned\n");
      expect(result.isError, path).toBe(true);
      expect(result.content, path).toMatch(/leads outside the workspace/);
    }
    expect(await readdir(outside)).toEqual(["target.txt"]);
    expect(await readFile(join(outside, "target.txt"), "utf8")).toBe("outside\n");
  });

  it("writes through a symlink that stays inside (the link stays), and creates the target of a dangling one", async () => {
    await writeFile(join(root, "real.txt"), "old\n");
    await symlink("real.txt", join(root, "alias.txt"));
    await read("alias.txt");
    expect((await write("alias.txt", "new\n")).content).toBe("Overwrote alias.txt (1 line, 4 bytes; it had 4 bytes).");
    expect(await readlink(join(root, "alias.txt"))).toBe("real.txt");
    expect(await readFile(join(root, "real.txt"), "utf8")).toBe("new\n");

    await symlink("docs/later.md", join(root, "later-link.md"));
    expect((await write("later-link.md", "# Later\n")).content).toBe("Created later-link.md (1 line, 8 bytes).");
    expect(await readFile(join(root, "docs/later.md"), "utf8")).toBe("# Later\n");
  });

  it("writes into an additional directory", async () => {
    const extra = join(base, "extra");
    await mkdir(extra);
    workspace = new Workspace({ root, additionalDirectories: [extra] });
    expect((await write(join(extra, "notes.md"), "hi\n")).content).toBe(`Created ${join(extra, "notes.md")} (1 line, 3 bytes).`);
  });

  it("keeps an executable's mode and leaves no temporary file", async () => {
    await writeFile(join(root, "run.sh"), "#!/bin/sh\n");
    await chmod(join(root, "run.sh"), 0o755);
    await read("run.sh");
    await write("run.sh", "#!/bin/sh\necho hi\n");
    expect((await stat(join(root, "run.sh"))).mode & 0o777).toBe(0o755);
    expect(await readdir(root)).toEqual(["run.sh"]);
  });
});
