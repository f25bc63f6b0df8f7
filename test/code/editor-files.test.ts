import { readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createEditTool } from "../../src/code/tools/edit.js";
import { createReadTool } from "../../src/code/tools/read.js";
import { createWriteTool } from "../../src/code/tools/write.js";
import { type EditorFiles, Workspace } from "../../src/code/workspace.js";
import { callTool } from "./helpers/call-tool.js";
import { createTemporaryWorkspace, removeTemporaryWorkspace } from "./helpers/temporary-workspace.js";

/**
 * An editor over the real folder: open buffers (a Map from path to text) shadow the disk, as Zed's do. Writes
 * update the buffer only (a real editor saves too; here the disk staying put shows minagent did not write it).
 */
class FakeEditor implements EditorFiles {
  readonly buffers = new Map<string, string>();
  readonly calls: string[] = [];
  failWrites: Error | undefined;

  async readText(absolute: string): Promise<string> {
    this.calls.push(`read ${absolute}`);
    return this.buffers.get(absolute) ?? (await readFile(absolute, "utf8"));
  }

  async writeText(absolute: string, content: string): Promise<void> {
    this.calls.push(`write ${absolute}`);
    if (this.failWrites) throw this.failWrites;
    this.buffers.set(absolute, content);
  }
}

let base: string;
let root: string;
let outside: string;
let editor: FakeEditor;
let workspace: Workspace;

beforeEach(async () => {
  ({ base, root, outside } = await createTemporaryWorkspace("editor-files"));
  editor = new FakeEditor();
  workspace = new Workspace({ root, editor });
});

afterEach(() => removeTemporaryWorkspace(base));

const read = (file_path: string) => callTool(createReadTool(workspace), { file_path });
const edit = (file_path: string, old_string: string, new_string: string) =>
  callTool(createEditTool(workspace), { file_path, old_string, new_string });
const write = (file_path: string, content: string) => callTool(createWriteTool(workspace), { file_path, content });
const onDisk = (path: string) => readFile(join(root, path), "utf8");

/** A file on disk whose open buffer has unsaved changes. */
async function givenBuffer(path: string, disk: string, buffer: string): Promise<string> {
  const absolute = join(root, path);
  await writeFile(absolute, disk);
  editor.buffers.set(absolute, buffer);
  return absolute;
}

describe("the file tools with an editor", () => {
  it("keeps the editor on the workspace", () => {
    expect(workspace.editor).toBe(editor);
    expect(new Workspace({ root }).editor).toBeUndefined();
  });

  it("Read shows the buffer's text, not the disk's", async () => {
    await givenBuffer("app.ts", "saved\n", "unsaved one\nunsaved two\n");
    expect(await read("app.ts")).toEqual({ content: "     1\tunsaved one\n     2\tunsaved two", isError: false });
  });

  it("Read windows the buffer's text with the usual notes", async () => {
    await givenBuffer("long.txt", "x\n", ["a", "b", "c", "d"].join("\n"));
    const result = await callTool(createReadTool(workspace), { file_path: "long.txt", offset: 2, limit: 2 });
    expect(result.content).toBe(
      "     2\tb\n     3\tc\n\n[Shown lines 2–3 of 4. To read more, call Read with offset=4 (and a limit if you want fewer lines).]",
    );
    expect((await callTool(createReadTool(workspace), { file_path: "long.txt", offset: 9 })).content).toBe(
      "long.txt has 4 lines, so offset 9 is past its end. Call Read with an offset from 1 to 4.",
    );
  });

  it("Edit applies to the buffer's text and writes the whole new text through the editor", async () => {
    const absolute = await givenBuffer("app.ts", "const a = 1;\n", "const a = 1;\nconst b = 2;\n");
    await read("app.ts");
    const result = await edit("app.ts", "const b = 2;", "const b = 3;");
    expect(result).toEqual({
      content: "Edited app.ts: replaced 1 occurrence (line 2). It now reads:\n     1\tconst a = 1;\n     2\tconst b = 3;",
      isError: false,
    });
    expect(editor.buffers.get(absolute)).toBe("const a = 1;\nconst b = 3;\n");
    expect(await onDisk("app.ts")).toBe("const a = 1;\n");
    expect(editor.calls.filter((call) => call.startsWith("write"))).toEqual([`write ${absolute}`]);
    // The version written is the one seen: a second Edit needs no new Read.
    expect((await edit("app.ts", "const a = 1;", "const a = 0;")).isError).toBe(false);
    expect(editor.buffers.get(absolute)).toBe("const a = 0;\nconst b = 3;\n");
  });

  it("Edit creates a missing file through the editor", async () => {
    expect(await edit("new.txt", "", "hello\n")).toEqual({ content: "Created new.txt (1 line, 6 bytes).", isError: false });
    expect(editor.buffers.get(join(root, "new.txt"))).toBe("hello\n");
    await expect(stat(join(root, "new.txt"))).rejects.toThrow();
  });

  it("Write goes through the editor, keeping the buffer's conventions", async () => {
    const absolute = await givenBuffer("notes.txt", "old\n", "one\r\ntwo\r\n");
    await read("notes.txt");
    expect(await write("notes.txt", "three\nfour\n")).toEqual({
      content: "Overwrote notes.txt (2 lines, 13 bytes; it had 10 bytes). Kept the file's CRLF line endings.",
      isError: false,
    });
    expect(editor.buffers.get(absolute)).toBe("three\r\nfour\r\n");
    expect(await onDisk("notes.txt")).toBe("old\n");
    expect(await write("fresh/made.txt", "x")).toEqual({ content: "Created fresh/made.txt (1 line, 1 byte).", isError: false });
    expect(editor.buffers.get(join(root, "fresh", "made.txt"))).toBe("x");
  });

  it("refuses an Edit after the buffer changed since the Read, and allows it after a new Read", async () => {
    const absolute = await givenBuffer("app.ts", "a\n", "a\nb\n");
    await read("app.ts");
    editor.buffers.set(absolute, "a\nb\nc\n");
    expect(await edit("app.ts", "b", "B")).toEqual({
      content: "app.ts has changed in the editor or on disk since it was read; read it again before changing it.",
      isError: true,
    });
    expect(editor.buffers.get(absolute)).toBe("a\nb\nc\n");
    await read("app.ts");
    expect((await edit("app.ts", "b", "B")).isError).toBe(false);
    expect(editor.buffers.get(absolute)).toBe("a\nB\nc\n");
  });

  it("refuses an Edit or Write of a file not read first", async () => {
    await givenBuffer("app.ts", "a\n", "a\nb\n");
    const refusal = {
      content: "Read app.ts before changing it: it exists and has not been read in this session.",
      isError: true,
    };
    expect(await edit("app.ts", "b", "B")).toEqual(refusal);
    expect(await write("app.ts", "new")).toEqual(refusal);
    expect(editor.calls.filter((call) => call.startsWith("write"))).toEqual([]);
  });

  it("refuses a path outside the workspace before the editor is asked", async () => {
    await writeFile(join(outside, "secret.txt"), "secret\n");
    const path = join(outside, "secret.txt");
    for (const result of [await read(path), await edit(path, "secret", "x"), await write(path, "x")]) {
      expect(result.isError).toBe(true);
      expect(result.content).toContain("leads outside the workspace");
    }
    expect(editor.calls).toEqual([]);
  });

  it("says so when the editor cannot write, and remembers nothing new", async () => {
    const absolute = await givenBuffer("app.ts", "a\n", "a\nb\n");
    await read("app.ts");
    editor.failWrites = new Error("buffer is read-only.");
    expect(await edit("app.ts", "b", "B")).toEqual({
      content: "Could not write app.ts through the editor: buffer is read-only; it was left unchanged.",
      isError: true,
    });
    expect(editor.buffers.get(absolute)).toBe("a\nb\n");
    expect(await onDisk("app.ts")).toBe("a\n");
    editor.failWrites = undefined;
    expect((await edit("app.ts", "b", "B")).isError).toBe(false);
  });

  it("says so when the editor cannot read", async () => {
    await writeFile(join(root, "app.ts"), "a\n");
    editor.readText = async () => {
      throw new Error("no such buffer");
    };
    expect(await read("app.ts")).toEqual({ content: "Could not read app.ts through the editor: no such buffer.", isError: true });
  });

  it("still finds binary files and directories on disk", async () => {
    await writeFile(join(root, "image.png"), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2]));
    expect((await read("image.png")).content).toMatch(/^image\.png is a binary file \(PNG image\)/);
    expect((await read(".")).content).toMatch(/^\. is a directory, not a file\./);
    expect(editor.calls).toEqual([]);
  });
});
