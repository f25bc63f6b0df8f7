import { readdir, readFile, stat, symlink, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createEditTool, planEdit } from "../../../src/code/tools/edit.js";
import { createReadTool } from "../../../src/code/tools/read.js";
import { createTodoStore, createTodoWriteTool } from "../../../src/code/tools/todo-write.js";
import { createWriteTool } from "../../../src/code/tools/write.js";
import type { Workspace } from "../../../src/code/workspace.js";
import { Agent, FakeModel, ToolRegistry } from "../../../src/index.js";
import { reply, toolCall } from "../../../src/testing/index.js";
import { callTool } from "../helpers/call-tool.js";
import { createTemporaryWorkspace, removeTemporaryWorkspace } from "../helpers/temporary-workspace.js";

let base: string;
let root: string;
let workspace: Workspace;

beforeEach(async () => {
  ({ base, root, workspace } = await createTemporaryWorkspace("edit"));
});

afterEach(() => removeTemporaryWorkspace(base));

const edit = (file_path: string, old_string: string, new_string: string, replace_all?: boolean) =>
  callTool(createEditTool(workspace), { file_path, old_string, new_string, ...(replace_all !== undefined && { replace_all }) });
const read = (file_path: string) => callTool(createReadTool(workspace), { file_path });
const contentOf = (path: string) => readFile(join(root, path), "utf8");

/** A file the agent has read. */
async function given(path: string, content: string | Buffer): Promise<void> {
  await writeFile(join(root, path), content);
  const result = await read(path);
  if (result.isError) throw new Error(result.content);
}

describe("Edit: replacing", () => {
  it("replaces one exact occurrence and shows the changed lines with context", async () => {
    await given("app.ts", ["import x from 'x';", "", "function main() {", "  return 1;", "}", "", "main();", "// end", ""].join("\n"));
    expect(await edit("app.ts", "  return 1;", "  const value = 2;\n  return value;")).toEqual({
      content: [
        "Edited app.ts: replaced 1 occurrence (line 4). It now reads:",
        "     1\timport x from 'x';",
        "     2\t",
        "     3\tfunction main() {",
        "     4\t  const value = 2;",
        "     5\t  return value;",
        "     6\t}",
        "     7\t",
        "     8\tmain();",
      ].join("\n"),
      isError: false,
    });
    expect(await contentOf("app.ts")).toBe(
      "import x from 'x';\n\nfunction main() {\n  const value = 2;\n  return value;\n}\n\nmain();\n// end\n",
    );
    expect(createEditTool(workspace).readOnly).toBeUndefined();
  });

  it("refuses an ambiguous old_string, naming the count and lines; replace_all replaces them all", async () => {
    await given("a.txt", "foo = 1\nbar = foo\nfoo()\n");
    expect(await edit("a.txt", "foo", "baz")).toEqual({
      content:
        "old_string occurs 3 times in a.txt (at lines 1, 2, 3), but Edit replaces exactly one. Add surrounding lines to old_string to pick one, or set replace_all to true to replace all 3.",
      isError: true,
    });
    expect((await edit("a.txt", "foo", "baz", true)).content).toBe(
      "Edited a.txt: replaced 3 occurrences (lines 1, 2, 3). Around the first, it now reads:\n     1\tbaz = 1\n     2\tbar = baz\n     3\tbaz()",
    );
    expect(await contentOf("a.txt")).toBe("baz = 1\nbar = baz\nbaz()\n");
  });

  it("takes new_string literally ($& and $1 are not replacement patterns), and may delete", async () => {
    await given("price.txt", "price: 10\nend\n");
    await edit("price.txt", "10", "$& $1 $$");
    expect(await contentOf("price.txt")).toBe("price: $& $1 $$\nend\n");
    expect((await edit("price.txt", "end\n", "")).content).toMatch(/^Edited price.txt: replaced 1 occurrence \(line 2\)/);
    expect(await contentOf("price.txt")).toBe("price: $& $1 $$\n");
  });

  it("refuses identical old_string and new_string", async () => {
    await given("a.txt", "same\n");
    expect(await edit("a.txt", "same", "same")).toEqual({
      content: "old_string and new_string are identical, so nothing would change in a.txt. Put the new text in new_string.",
      isError: true,
    });
  });

  it("keeps CRLF line endings when the model sends LF, and the byte-order mark", async () => {
    await given("win.cs", "\uFEFFclass A\r\n{\r\n    int x;\r\n}\r\n");
    expect((await edit("win.cs", "{\n    int x;\n}", "{\n    int x;\n    int y;\n}")).isError).toBe(false);
    expect(await contentOf("win.cs")).toBe("\uFEFFclass A\r\n{\r\n    int x;\r\n    int y;\r\n}\r\n");
    // A one-line old_string with a multi-line new_string: the new lines are CRLF too.
    await edit("win.cs", "class A", "// A\nclass A");
    expect(await contentOf("win.cs")).toBe("\uFEFF// A\r\nclass A\r\n{\r\n    int x;\r\n    int y;\r\n}\r\n");
  });

  it("planEdit is what the tool does, without writing: the text it writes to a CRLF file, the observation of a miss", async () => {
    await given("win.cs", "\uFEFFclass A\r\n{\r\n    int x;\r\n}\r\n");
    const change = { file_path: "win.cs", old_string: "{\n    int x;\n}", new_string: "{\n    int y;\n}" };
    const plan = planEdit(await contentOf("win.cs"), change, "win.cs");
    expect(plan).toMatchObject({ ok: true, text: "\uFEFFclass A\r\n{\r\n    int y;\r\n}\r\n" });
    expect(await contentOf("win.cs")).toBe("\uFEFFclass A\r\n{\r\n    int x;\r\n}\r\n");
    await edit(change.file_path, change.old_string, change.new_string);
    expect(await contentOf("win.cs")).toBe(plan.ok && plan.text);
    const missed = planEdit(await contentOf("win.cs"), { ...change, old_string: "int z;" }, "win.cs");
    expect(missed).toMatchObject({ ok: false, failure: "not-found" });
    expect(await edit("win.cs", "int z;", "int y;")).toEqual({ content: !missed.ok && missed.message, isError: true });
  });

  it("matches CRLF text sent to an LF file, and LF text in the LF part of a mixed file", async () => {
    await given("unix.txt", "a\nb\nc\n");
    await edit("unix.txt", "a\r\nb", "A\r\nB");
    expect(await contentOf("unix.txt")).toBe("A\nB\nc\n");
    await given("mixed.txt", "one\r\ntwo\r\nthree\r\nfour\nfive\n");
    await edit("mixed.txt", "four\nfive", "4\n5");
    expect(await contentOf("mixed.txt")).toBe("one\r\ntwo\r\nthree\r\n4\n5\n");
  });

  it("edits the same file again without a new Read: its own write counts as read", async () => {
    await given("a.txt", "one two\n");
    await edit("a.txt", "one", "1");
    expect((await edit("a.txt", "two", "2")).isError).toBe(false);
    expect(await contentOf("a.txt")).toBe("1 2\n");
  });

  it("applies parallel edits of one file one after the other, losing none", async () => {
    await given("list.txt", "a\nb\nc\nd\n");
    const registry = new ToolRegistry().add(createEditTool(workspace));
    const results = await Promise.all(
      ["a", "b", "c", "d"].map((letter) =>
        registry.execute({
          id: letter,
          name: "Edit",
          arguments: { file_path: "list.txt", old_string: `${letter}\n`, new_string: `${letter.toUpperCase()}\n` },
        }),
      ),
    );
    expect(results.map((result) => "isError" in result && result.isError)).toEqual([false, false, false, false]);
    expect(await contentOf("list.txt")).toBe("A\nB\nC\nD\n");
    expect(await readdir(root)).toEqual(["list.txt"]);
  });
});

describe("Edit: misses, with hints", () => {
  it("says how many matches there were, and why when whitespace differs (tabs vs spaces)", async () => {
    await given("tabs.go", "func main() {\n\tif x {\n\t\treturn\n\t}\n}\n");
    expect(await edit("tabs.go", "    if x {\n        return", "\tif y {\n\t\treturn")).toEqual({
      content:
        'old_string was not found in tabs.go (0 matches). It matches lines 2–3 if whitespace and quotes are ignored: the file indents with tabs where old_string has spaces. The file has there, exactly (as JSON): "\\tif x {\\n\\t\\treturn". Copy the text exactly as it is in the file.',
      isError: true,
    });
  });

  it("recognises line-number prefixes copied from Read's output", async () => {
    await given("a.py", "def f():\n    return 1\n");
    const copied = (await read("a.py")).content; // "     1\tdef f():\n     2\t    return 1"
    expect((await edit("a.py", copied, "def f():\n    return 2")).content).toBe(
      "old_string was not found in a.py (0 matches). It seems to include line numbers copied from Read's output (the number and tab before each line); they are not part of the file. Send the text after the tab.",
    );
  });

  it("points at the first line when only a later line differs, and otherwise says to Read again", async () => {
    await given("a.txt", "alpha\nbeta\ngamma\n");
    expect((await edit("a.txt", "beta\ndelta", "x")).content).toBe(
      "old_string was not found in a.txt (0 matches). Its first line matches line 2, so the difference is further on: Read the file around that line and copy the text exactly.",
    );
    expect((await edit("a.txt", "omega", "x")).content).toBe(
      "old_string was not found in a.txt (0 matches). Read the file to see its current content, and copy old_string from it exactly (indentation included).",
    );
    expect((await edit("a.txt", "“quoted”", "x")).content).toMatch(/^old_string was not found/);
  });

  it("mentions curly quotes", async () => {
    await given("q.md", "He said “hello”.\n");
    expect((await edit("q.md", 'He said "hello".', "x")).content).toMatch(
      /It matches line 1 if whitespace and quotes are ignored: the quotes differ/,
    );
  });
});

describe("Edit: read tracking, missing, binary and outside files", () => {
  it("refuses a file not read in this session, and one changed since", async () => {
    await writeFile(join(root, "a.txt"), "one\n");
    expect(await edit("a.txt", "one", "two")).toEqual({
      content: "Read a.txt before changing it: it exists and has not been read in this session.",
      isError: true,
    });
    await read("a.txt");
    const { mtime } = await stat(join(root, "a.txt"));
    await utimes(join(root, "a.txt"), mtime, new Date(mtime.getTime() + 1000));
    expect((await edit("a.txt", "one", "two")).content).toBe(
      "a.txt has changed on disk since it was read; read it again before changing it.",
    );
    expect(await contentOf("a.txt")).toBe("one\n");
  });

  it("an empty old_string creates a missing file, fills an empty one, and is refused on a file with content", async () => {
    expect(await edit("src/new.ts", "", "export {};\n")).toEqual({ content: "Created src/new.ts (1 line, 11 bytes).", isError: false });
    expect(await contentOf("src/new.ts")).toBe("export {};\n");
    await given("empty.txt", "");
    expect((await edit("empty.txt", "", "now\n")).content).toBe("Wrote empty.txt, which was empty (1 line, 4 bytes).");
    expect((await edit("src/new.ts", "", "more")).content).toBe(
      "old_string is empty, but src/new.ts is not: an empty old_string only creates a file or fills an empty one. Give the exact text to replace, or use Write to replace the whole file.",
    );
  });

  it("a missing file is said to be missing, with similar names", async () => {
    await writeFile(join(root, "config.json"), "{}");
    expect(await edit("config.jsn", "{}", "[]")).toEqual({
      content:
        "File does not exist: config.jsn. Did you mean config.json? Edit changes existing files; to create one, use Write (or Edit with an empty old_string).",
      isError: true,
    });
  });

  it("refuses a binary or non-UTF-8 file rather than corrupt it", async () => {
    await writeFile(join(root, "blob.bin"), Buffer.from([0x61, 0, 0x62]));
    expect((await read("blob.bin")).content).toMatch(/^blob.bin is a binary file/); // seen, though not shown
    expect((await edit("blob.bin", "a", "b")).content).toBe(
      "blob.bin is a binary file (it contains NUL bytes); Edit works on UTF-8 text files only, and would corrupt it.",
    );
    // Valid text at the start, invalid UTF-8 further on (past what Read sniffs).
    await given("late.txt", Buffer.concat([Buffer.from(`${"a".repeat(10_000)}\n`), Buffer.from([0xff, 0x0a])]));
    expect((await edit("late.txt", "aaa", "b", true)).content).toMatch(/^late.txt is not UTF-8 text/);
  });

  it("refuses paths that lead outside, directly or through symlinks", async () => {
    await writeFile(join(base, "outside/secret.txt"), "secret\n");
    await symlink(join(base, "outside/secret.txt"), join(root, "link.txt"));
    await symlink(join(base, "outside"), join(root, "out"));
    for (const path of ["../outside/secret.txt", join(base, "outside/secret.txt"), "link.txt", "out/secret.txt"])
      expect((await edit(path, "secret", "pwned")).content, path).toMatch(/leads outside the workspace/);
    expect(await readFile(join(base, "outside/secret.txt"), "utf8")).toBe("secret\n");
  });
});

describe("the tools in an agent run", () => {
  it("shows the observations the model reads: Read, a missed Edit, a fixed Edit, a refused Write, TodoWrite", async () => {
    await writeFile(join(root, "greet.py"), 'def greet(name):\n\treturn "Hello, " + name\n');
    const store = createTodoStore();
    const registry = new ToolRegistry()
      .add(createReadTool(workspace))
      .add(createEditTool(workspace))
      .add(createWriteTool(workspace))
      .add(createTodoWriteTool(store));
    const todo = (status: "in_progress" | "completed") => [
      { content: "Use an f-string in greet", status, activeForm: "Using an f-string in greet" },
    ];
    const model = new FakeModel([
      reply("", toolCall("TodoWrite", { todos: todo("in_progress") }, "t1")),
      reply("", toolCall("Write", { file_path: "greet.py", content: "x" }, "w1")),
      reply("", toolCall("Read", { file_path: "greet.py" }, "r1")),
      reply(
        "",
        toolCall(
          "Edit",
          { file_path: "greet.py", old_string: '    return "Hello, " + name', new_string: '    return f"Hello, {name}"' },
          "e1",
        ),
      ),
      reply(
        "",
        toolCall("Edit", { file_path: "greet.py", old_string: '\treturn "Hello, " + name', new_string: '\treturn f"Hello, {name}"' }, "e2"),
      ),
      reply("", toolCall("TodoWrite", { todos: todo("completed") }, "t2")),
      "greet now uses an f-string.",
    ]);
    const result = await new Agent(model, registry).run("Make greet use an f-string.");
    expect(result.status).toBe("completed");
    const observations = result.messages
      .filter((message) => message.role === "tool")
      .map(({ content, isError }) => ({ content, isError: isError ?? false }));
    expect(observations).toEqual([
      {
        content:
          "Todo list saved (1 task: 0 completed, 1 in progress, 0 pending). Now: Using an f-string in greet. Keep the list up to date as you go.",
        isError: false,
      },
      { content: "Read greet.py before changing it: it exists and has not been read in this session.", isError: true },
      { content: '     1\tdef greet(name):\n     2\t\treturn "Hello, " + name', isError: false },
      {
        content:
          'old_string was not found in greet.py (0 matches). It matches line 2 if whitespace and quotes are ignored: the file indents with tabs where old_string has spaces. The file has there, exactly (as JSON): "\\treturn \\"Hello, \\" + name". Copy the text exactly as it is in the file.',
        isError: true,
      },
      {
        content:
          'Edited greet.py: replaced 1 occurrence (line 2). It now reads:\n     1\tdef greet(name):\n     2\t\treturn f"Hello, {name}"',
        isError: false,
      },
      { content: "Todo list saved (1 task: 1 completed, 0 in progress, 0 pending). All tasks are completed.", isError: false },
    ]);
    expect(await contentOf("greet.py")).toBe('def greet(name):\n\treturn f"Hello, {name}"\n');
    expect(store.todos).toEqual(todo("completed"));
    expect(model.requests[0]?.tools.map((tool) => tool.name)).toEqual(["Read", "Edit", "Write", "TodoWrite"]);
  });
});
