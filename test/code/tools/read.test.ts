import { mkdir, open, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CodingAgent } from "../../../src/code/index.js";
import { createEditTool } from "../../../src/code/tools/edit.js";
import { createReadTool } from "../../../src/code/tools/read.js";
import { Workspace } from "../../../src/code/workspace.js";
import { FakeModel, UsageError } from "../../../src/index.js";
import { callTool } from "../helpers/call-tool.js";
import { createTemporaryWorkspace, removeTemporaryWorkspace } from "../helpers/temporary-workspace.js";

let base: string;
let root: string;
let workspace: Workspace;

beforeEach(async () => {
  ({ base, root, workspace } = await createTemporaryWorkspace("read"));
  await writeFile(join(base, "outside/secret.txt"), "secret\n");
});

afterEach(() => removeTemporaryWorkspace(base));

const read = (args: Record<string, unknown>, options?: Parameters<typeof createReadTool>[1]) =>
  callTool(createReadTool(workspace, options), args);
const lines = (count: number, text = (n: number) => `line ${n}`) => Array.from({ length: count }, (_, i) => `${text(i + 1)}\n`).join("");

/** Writes `megabytes` MB of numbered 100-byte lines (or one line without breaks), a megabyte at a time. */
async function writeHugeFile(path: string, megabytes: number, oneLine = false): Promise<void> {
  const handle = await open(path, "w");
  let lineNumber = 0;
  for (let chunk = 0; chunk < megabytes; chunk++) {
    if (oneLine) await handle.write(Buffer.alloc(1024 * 1024, "x"));
    else {
      const rows: string[] = [];
      for (let i = 0; i < 10_486; i++) rows.push(`row ${String(++lineNumber).padStart(8, "0")} ${"·".repeat(40)}${"-".repeat(5)}`);
      await handle.write(`${rows.join("\n")}\n`);
    }
  }
  await handle.close();
}

describe("Read: text", () => {
  it("numbers lines like cat -n from line 1, and is read-only", async () => {
    await writeFile(join(root, "a.ts"), "const a = 1;\n\tindented\n\nlast");
    expect(await read({ file_path: "a.ts" })).toEqual({
      content: "     1\tconst a = 1;\n     2\t\tindented\n     3\t\n     4\tlast",
      isError: false,
    });
    expect(createReadTool(workspace).readOnly).toBe(true);
    expect((await read({ file_path: join(root, "a.ts") })).content).toMatch(/^ {5}1\tconst/);
  });

  it("reads a window: offset is the 1-based first line (0 counts as 1), limit the number of lines", async () => {
    await writeFile(join(root, "a.txt"), lines(10));
    expect((await read({ file_path: "a.txt", offset: 4, limit: 2 })).content).toBe(
      "     4\tline 4\n     5\tline 5\n\n[Shown lines 4–5 of 10. To read more, call Read with offset=6 (and a limit if you want fewer lines).]",
    );
    expect((await read({ file_path: "a.txt", offset: 9 })).content).toBe("     9\tline 9\n    10\tline 10");
    expect((await read({ file_path: "a.txt", offset: 0, limit: 1 })).content).toMatch(/^ {5}1\tline 1\n\n\[Shown lines 1–1 of 10/);
    expect((await read({ file_path: "a.txt", limit: 0 })).content).toMatch(/Invalid arguments for tool "Read"/);
  });

  it("shows 2000 lines by default and says how to read on", async () => {
    await writeFile(
      join(root, "long.txt"),
      lines(2500, (n) => String(n)),
    );
    const { content } = await read({ file_path: "long.txt" });
    const shown = content.split("\n\n")[0]?.split("\n") ?? [];
    expect(shown).toHaveLength(2000);
    expect(shown[1999]).toBe("  2000\t2000");
    expect(
      content.endsWith("[Shown lines 1–2000 of 2,500. To read more, call Read with offset=2001 (and a limit if you want fewer lines).]"),
    ).toBe(true);
  });

  it("cuts lines longer than 2000 characters and says so", async () => {
    await writeFile(join(root, "min.js"), `short\n${"a".repeat(5000)}\nshort again\n`);
    const { content } = await read({ file_path: "min.js" });
    expect(content).toContain(`     2\t${"a".repeat(2000)}… [line cut; it is 5,000 bytes long]\n     3\tshort again`);
    expect(content).toMatch(/\[1 line \(2\) was longer than 2,000 characters and cut; use Grep or Bash to see the rest of a line\.\]$/);
  });

  it("stops before its character budget, on a whole line, and says where to go on", async () => {
    await writeFile(
      join(root, "wide.txt"),
      lines(100, (n) => `${n} ${"w".repeat(90)}`),
    );
    const { content } = await read({ file_path: "wide.txt" }, { maxCharacters: 1000 });
    expect(content.length).toBeLessThan(1200);
    expect(content).toMatch(
      / {5}9\t9 w+\n\n\[The output limit of 1,000 characters \(about 250 tokens\) was reached: shown lines 1–9 of 100\. To read more, call Read with offset=10/,
    );
  });

  it("shows a CRLF file without carriage returns, and drops a byte-order mark", async () => {
    await writeFile(join(root, "win.txt"), "\uFEFFfirst\r\nsecond\r\n");
    expect((await read({ file_path: "win.txt" })).content).toBe("     1\tfirst\n     2\tsecond");
  });

  it("options must be positive integers", () => {
    expect(() => createReadTool(workspace, { maxLines: 0 })).toThrow(UsageError);
    expect(() => createReadTool(workspace, { maxCharacters: 1.5 })).toThrow(
      "Read tool option maxCharacters must be a positive integer, got 1.5.",
    );
  });
});

describe("Read: observations for what is not a readable text", () => {
  it("a directory: lists some entries and suggests Glob or ls", async () => {
    await mkdir(join(root, "src/lib"), { recursive: true });
    await writeFile(join(root, "src/index.ts"), "");
    expect(await read({ file_path: "src" })).toEqual({
      content:
        'src is a directory, not a file. It contains index.ts, lib/. Read one of its files, or list it with Glob (pattern "src/*") or Bash (ls).',
      isError: true,
    });
    for (let i = 0; i < 25; i++) await writeFile(join(root, "src/lib", `f${String(i).padStart(2, "0")}.ts`), "");
    expect((await read({ file_path: "src/lib" })).content).toContain("f19.ts, and 5 more.");
  });

  it("a binary file: NUL bytes, invalid UTF-8, a known format — but not a character cut at the sniffing boundary", async () => {
    await writeFile(join(root, "data.bin"), Buffer.from([1, 2, 0, 3]));
    expect(await read({ file_path: "data.bin" })).toEqual({
      content:
        "data.bin is a binary file (it contains NUL bytes), 4 bytes; Read shows text only. Inspect it with Bash if you need to (file, xxd, unzip -l…).",
      isError: true,
    });
    await writeFile(join(root, "latin1.txt"), Buffer.from("caf\xe9\n", "latin1"));
    expect((await read({ file_path: "latin1.txt" })).content).toMatch(/^latin1.txt is not UTF-8 text/);
    await writeFile(join(root, "logo.png"), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    expect((await read({ file_path: "logo.png" })).content).toMatch(/^logo.png is a binary file \(PNG image\)/);
    // "é" is two bytes; placed across byte 8192 it is cut in the sample, which is not a reason to call the file binary.
    await writeFile(join(root, "accents.txt"), `${"a".repeat(8191)}é\n`);
    expect((await read({ file_path: "accents.txt" })).isError).toBe(false);
  });

  it("an empty file is said to be empty, and counts as read", async () => {
    await writeFile(join(root, "empty.txt"), "");
    expect(await read({ file_path: "empty.txt" })).toEqual({ content: "empty.txt exists but is empty (0 bytes).", isError: false });
    expect((await callTool(createEditTool(workspace), { file_path: "empty.txt", old_string: "", new_string: "filled\n" })).isError).toBe(
      false,
    );
  });

  it("an offset past the end says how many lines there are", async () => {
    await writeFile(join(root, "a.txt"), lines(3));
    expect(await read({ file_path: "a.txt", offset: 10 })).toEqual({
      content: "a.txt has 3 lines, so offset 10 is past its end. Call Read with an offset from 1 to 3.",
      isError: true,
    });
  });

  it("a missing file: says so, with similar names of the same folder, or that the folder is missing too", async () => {
    await mkdir(join(root, "src"));
    await writeFile(join(root, "src/App.ts"), "");
    await writeFile(join(root, "src/app.js"), "");
    await writeFile(join(root, "src/unrelated.md"), "");
    expect(await read({ file_path: "src/app.ts" })).toEqual({
      content: "File does not exist: src/app.ts. Did you mean src/App.ts or src/app.js?",
      isError: true,
    });
    expect((await read({ file_path: "src/uility.ts" })).content).toBe("File does not exist: src/uility.ts.");
    expect((await read({ file_path: "lib/x.ts" })).content).toBe("File does not exist: lib/x.ts (its folder lib does not exist either).");
  });

  it("paths outside the workspace, directly or through links", async () => {
    await symlink(join(base, "outside/secret.txt"), join(root, "link.txt"));
    expect((await read({ file_path: "../outside/secret.txt" })).content).toMatch(/leads outside the workspace;/);
    expect((await read({ file_path: join(base, "outside/secret.txt") })).content).toMatch(/leads outside the workspace;/);
    expect(await read({ file_path: "link.txt" })).toMatchObject({
      content: expect.stringMatching(/through a symbolic link/),
      isError: true,
    });
  });

  it("a file in an additional directory may be read", async () => {
    const extra = join(base, "extra");
    await mkdir(extra);
    await writeFile(join(extra, "notes.md"), "hello\n");
    workspace = new Workspace({ root, additionalDirectories: [extra] });
    expect((await read({ file_path: join(extra, "notes.md") })).content).toBe("     1\thello");
  });
});

describe("Read: read tracking", () => {
  it("a successful read, even of a window, lets Edit change the file; a failed one does not", async () => {
    await writeFile(join(root, "a.txt"), lines(10));
    const edit = createEditTool(workspace);
    expect((await callTool(edit, { file_path: "a.txt", old_string: "line 9", new_string: "nine" })).content).toMatch(/^Read a.txt before/);
    expect((await read({ file_path: "a.txt", offset: 99 })).isError).toBe(true);
    expect((await callTool(edit, { file_path: "a.txt", old_string: "line 9", new_string: "nine" })).content).toMatch(/^Read a.txt before/);
    await read({ file_path: "a.txt", offset: 2, limit: 1 });
    expect((await callTool(edit, { file_path: "a.txt", old_string: "line 9", new_string: "nine" })).isError).toBe(false);
  });
});

describe("Read: huge files are streamed", () => {
  it("a window of a 50 MB file is fast and costs little memory, at its start and deep inside", async () => {
    const file = join(root, "huge.log");
    await writeHugeFile(file, 50);
    const before = process.memoryUsage();
    const started = performance.now();
    const { content } = await read({ file_path: "huge.log", offset: 1000, limit: 3 });
    const elapsed = performance.now() - started;
    expect(content).toMatch(/^ {2}1000\trow 00001000 ·+-+\n {2}1001\t/);
    expect(content).toMatch(/\[Shown lines 1000–1002; the file goes on \(\d+\.\d MB in all\)\. To read more, call Read with offset=1003/);
    expect(elapsed).toBeLessThan(500);
    const deep = await read({ file_path: "huge.log", offset: 500_000, limit: 2 });
    expect(deep.content).toMatch(/^500000\trow 00500000 /);
    const after = process.memoryUsage();
    // Loading the file would cost 50 MB as bytes and as much again as a string.
    expect(after.heapUsed + after.arrayBuffers - (before.heapUsed + before.arrayBuffers)).toBeLessThan(20 * 1024 * 1024);
  });

  it("a 50 MB file of one line shows its start, cut, without holding the line", async () => {
    await writeHugeFile(join(root, "one-line.min.js"), 50, true);
    const before = process.memoryUsage();
    const { content } = await read({ file_path: "one-line.min.js" });
    const after = process.memoryUsage();
    expect(content).toMatch(/^ {5}1\tx{2000}… \[line cut; it is 52,428,800 bytes long\]\n\n\[1 line \(1\) was longer/);
    expect(after.heapUsed + after.arrayBuffers - (before.heapUsed + before.arrayBuffers)).toBeLessThan(20 * 1024 * 1024);
  });
});

describe("Read's default window, as Claude Code's", () => {
  it("reads a whole 1,000-line, 60 KB file in one call of a CodingAgent, and a larger one up to about 25,000 tokens with where to go on", async () => {
    const agent = await CodingAgent.create(new FakeModel([]), { workspace: root, settingsFiles: [], sandbox: false, memory: false });
    const readThroughAgent = async (file_path: string) => {
      const outcome = await agent.registry.execute({ id: "r", name: "Read", arguments: { file_path } }, {});
      if ("pending" in outcome) throw new Error("unexpected pending call");
      return outcome.content;
    };
    try {
      const line = (number: number) => `export const value${number} = compute(input, options); // line ${number} `.padEnd(59, ".");
      await writeFile(join(root, "long.ts"), `${Array.from({ length: 1_000 }, (_, index) => line(index + 1)).join("\n")}\n`);
      const whole = await readThroughAgent("long.ts");
      expect(whole).toContain("line 1000 ");
      expect(whole).not.toMatch(/To read more|truncated/);
      await writeFile(join(root, "longer.ts"), `${Array.from({ length: 1_990 }, (_, index) => line(index + 1).repeat(2)).join("\n")}\n`);
      const cut = await readThroughAgent("longer.ts");
      expect(cut).toMatch(/The output limit of 100,000 characters \(about 25,000 tokens\) was reached: shown lines 1–\d+ of 1,990\./);
      expect(cut).toMatch(/call Read with offset=\d+/);
      expect(cut).not.toMatch(/…\[truncated/);
    } finally {
      await agent.close();
    }
  });
});
