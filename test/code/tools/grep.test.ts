import { mkdir, utimes, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { compileSearchPattern, createGrepTool, type GrepToolOptions, requiredLiterals } from "../../../src/code/tools/grep.js";
import type { Workspace } from "../../../src/code/workspace.js";
import type { ToolResult } from "../../../src/index.js";
import { callTool } from "../helpers/call-tool.js";
import { createTemporaryWorkspace, removeTemporaryWorkspace } from "../helpers/temporary-workspace.js";

let base: string;
let root: string;
let workspace: Workspace;

beforeEach(async () => {
  ({ base, root, workspace } = await createTemporaryWorkspace("grep"));
});

afterEach(() => removeTemporaryWorkspace(base));

/** Writes files (relative to the root), creating folders; each later file is one second newer. */
async function files(entries: Record<string, string | Buffer>): Promise<void> {
  let time = 1_700_000_000;
  for (const [path, content] of Object.entries(entries)) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), content);
    await utimes(join(root, path), time, time);
    time += 1;
  }
}

const grep = (args: Record<string, unknown>, options: GrepToolOptions = {}, signal?: AbortSignal): Promise<ToolResult> =>
  callTool(createGrepTool(workspace, options), args, signal);

const text = async (args: Record<string, unknown>, options?: GrepToolOptions) => {
  const result = await grep(args, options);
  if (result.isError) throw new Error(`unexpected error: ${result.content}`);
  return result.content;
};

describe("Grep: files_with_matches (the default)", () => {
  it("lists matching files relative to the root, most recently modified first", async () => {
    await files({ "a.ts": "const needle = 1;\n", "src/b.ts": "no\n", "src/c.ts": "needle()\n", "d.md": "a needle here\n" });
    expect(await text({ pattern: "needle" })).toBe(["Found 3 files", "d.md", "src/c.ts", "a.ts"].join("\n"));
    expect(await text({ pattern: "absent" })).toBe("No files found.");
  });

  it("searches a folder or a single file given as path", async () => {
    await files({ "a.ts": "needle\n", "src/b.ts": "needle\n", "src/c.ts": "needle\n" });
    expect(await text({ pattern: "needle", path: "src" })).toBe(["Found 2 files", "src/c.ts", "src/b.ts"].join("\n"));
    expect(await text({ pattern: "needle", path: join(root, "src", "b.ts") })).toBe(["Found 1 file", "src/b.ts"].join("\n"));
  });

  it("refuses a path outside the workspace and names a missing one", async () => {
    await writeFile(join(base, "outside", "x.txt"), "needle\n");
    const outside = await grep({ pattern: "needle", path: join(base, "outside") });
    expect(outside.isError).toBe(true);
    expect(outside.content).toContain("outside the workspace");
    expect(await grep({ pattern: "needle", path: "../outside" })).toMatchObject({ isError: true });
    expect(await grep({ pattern: "needle", path: "nowhere" })).toEqual({ content: "Path does not exist: nowhere.", isError: true });
  });
});

describe("Grep: which files", () => {
  it("respects .gitignore files at every level, negations, .git/info/exclude, and skips .git", async () => {
    await files({
      ".gitignore": "*.log\nbuild/\n",
      ".git/info/exclude": "local.txt\n",
      ".git/config": "needle\n",
      "vendor/lib/.git": "gitdir: needle\n",
      "app.log": "needle\n",
      "build/out.js": "needle\n",
      "local.txt": "needle\n",
      "src/.gitignore": "secret.txt\n!keep.log\n",
      "src/secret.txt": "needle\n",
      "src/keep.log": "needle\n",
      "src/deep/secret.txt": "needle\n",
      "src/main.ts": "needle\n",
      "other/secret.txt": "needle\n",
      ".hidden/config.json": '{"needle": true}\n',
    });
    expect(await text({ pattern: "needle" })).toBe(
      ["Found 4 files", ".hidden/config.json", "other/secret.txt", "src/main.ts", "src/keep.log"].join("\n"),
    );
  });

  it("searches an ignored folder named as path, with the ignore files inside it", async () => {
    await files({
      ".gitignore": "node_modules/\ndist/\n",
      "node_modules/pkg/index.js": "needle\n",
      "node_modules/pkg/dist/index.js": "needle\n",
      "node_modules/pkg/.gitignore": "*.map\n",
      "node_modules/pkg/index.js.map": "needle\n",
    });
    expect(await text({ pattern: "needle" })).toBe("No files found.");
    expect(await text({ pattern: "needle", path: "node_modules" })).toBe(
      ["Found 2 files", "node_modules/pkg/dist/index.js", "node_modules/pkg/index.js"].join("\n"),
    );
  });

  it("skips binary files", async () => {
    await files({
      "image.bin": Buffer.from([0x6e, 0x65, 0x65, 0x64, 0x6c, 0x65, 0x00, 0x01]),
      "late.bin": Buffer.concat([Buffer.from("needle\n".repeat(20_000)), Buffer.from([0])]),
      "text.txt": "needle\n",
    });
    expect(await text({ pattern: "needle" })).toBe(["Found 1 file", "text.txt"].join("\n"));
  });

  it("filters by type, like ripgrep's --type", async () => {
    await files({ "a.ts": "needle\n", "b.tsx": "needle\n", "c.js": "needle\n", "d.py": "needle\n", "e.md": "needle\n" });
    expect(await text({ pattern: "needle", type: "ts" })).toBe(["Found 2 files", "b.tsx", "a.ts"].join("\n"));
    expect(await text({ pattern: "needle", type: "python" })).toBe(["Found 1 file", "d.py"].join("\n"));
    const unknown = await grep({ pattern: "needle", type: "klingon" });
    expect(unknown.isError).toBe(true);
    expect(unknown.content).toContain('Unknown file type "klingon". Known types: js, ts, py, rust, go');
  });

  it("filters by glob: a name anywhere, a path from the folder searched, several, and exclusions", async () => {
    await files({ "a.ts": "needle\n", "src/b.ts": "needle\n", "src/b.test.ts": "needle\n", "src/c.js": "needle\n" });
    expect(await text({ pattern: "needle", glob: "*.ts" })).toBe(["Found 3 files", "src/b.test.ts", "src/b.ts", "a.ts"].join("\n"));
    expect(await text({ pattern: "needle", glob: "src/**/*.{ts,js}" })).toBe(
      ["Found 3 files", "src/c.js", "src/b.test.ts", "src/b.ts"].join("\n"),
    );
    expect(await text({ pattern: "needle", glob: "*.ts !*.test.ts" })).toBe(["Found 2 files", "src/b.ts", "a.ts"].join("\n"));
  });
});

describe("Grep: content and count", () => {
  const source = ["one", "two needle", "three", "four", "five", "six", "seven needle", "eight", "nine needle", "ten"].join("\n");

  it("shows matching lines with line numbers, or without; CRLF lines end before their \\r", async () => {
    await files({ "a.txt": source, "b.txt": "needle\r\n" });
    expect(await text({ pattern: "needle", output_mode: "content" })).toBe(
      ["a.txt:2:two needle", "a.txt:7:seven needle", "a.txt:9:nine needle", "b.txt:1:needle"].join("\n"),
    );
    expect(await text({ pattern: "needle$", output_mode: "content", path: "b.txt" })).toBe("b.txt:1:needle");
    await files({ "crlf.txt": "a\r\n\r\nb\r\n" });
    expect(await text({ pattern: "^$", output_mode: "content", path: "crlf.txt" })).toBe("crlf.txt:2:");
    expect(await text({ pattern: "needle", output_mode: "content", "-n": false, path: "a.txt" })).toBe(
      ["a.txt:two needle", "a.txt:seven needle", "a.txt:nine needle"].join("\n"),
    );
  });

  it("adds context lines, merging groups that touch and separating the others with --", async () => {
    await files({ "a.txt": source, "b.txt": "needle\nafter\n" });
    expect(await text({ pattern: "needle", output_mode: "content", "-C": 1 })).toBe(
      [
        "a.txt-1-one",
        "a.txt:2:two needle",
        "a.txt-3-three",
        "--",
        "a.txt-6-six",
        "a.txt:7:seven needle",
        "a.txt-8-eight",
        "a.txt:9:nine needle",
        "a.txt-10-ten",
        "--",
        "b.txt:1:needle",
        "b.txt-2-after",
      ].join("\n"),
    );
    expect(await text({ pattern: "seven", output_mode: "content", "-B": 2, "-A": 0 })).toBe(
      ["a.txt-5-five", "a.txt-6-six", "a.txt:7:seven needle"].join("\n"),
    );
    expect(await text({ pattern: "^one", output_mode: "content", "-B": 3, "-A": 1, path: "a.txt" })).toBe(
      ["a.txt:1:one", "a.txt-2-two needle"].join("\n"),
    );
  });

  it("counts matching lines per file", async () => {
    await files({ "a.txt": source, "b.txt": "needle needle\n", "c.txt": "none\n" });
    expect(await text({ pattern: "needle", output_mode: "count" })).toBe(
      ["a.txt:3", "b.txt:1", "Found 4 matching lines in 2 files."].join("\n"),
    );
  });

  it("ignores case with -i, or with a leading (?i)", async () => {
    await files({ "a.txt": "Needle\nNEEDLE\nneedle\nnoodle\n" });
    expect(await text({ pattern: "needle", output_mode: "count" })).toContain("a.txt:1");
    expect(await text({ pattern: "needle", "-i": true, output_mode: "count" })).toContain("a.txt:3");
    expect(await text({ pattern: "(?i)needle", output_mode: "count" })).toContain("a.txt:3");
  });

  it("keeps matches within a line unless multiline is true", async () => {
    await files({ "a.ts": "function f(\n  a,\n  b\n) {}\nconst x = 1;\n" });
    const pattern = "f\\(\\s*a,\\s*b";
    expect(await text({ pattern: "a,\\n", output_mode: "content" })).toBe(
      "No matches found.\n[The pattern contains a line break, which never matches within one line: pass multiline: true to match across lines.]",
    );
    expect(await text({ pattern, output_mode: "content" })).toBe("No matches found.");
    expect(await text({ pattern, output_mode: "content", multiline: true })).toBe(
      ["a.ts:1:function f(", "a.ts:2:  a,", "a.ts:3:  b"].join("\n"),
    );
    expect(await text({ pattern: "\\(.*\\)", multiline: true, output_mode: "count" })).toBe(
      ["a.ts:1", "Found 1 match in 1 file."].join("\n"),
    );
    expect(await text({ pattern: "^\\s+b$", output_mode: "content" })).toBe("a.ts:3:  b");
  });

  it("answers an invalid regular expression with what is wrong", async () => {
    await files({ "a.txt": "x\n" });
    const result = await grep({ pattern: "foo(bar" });
    expect(result.isError).toBe(true);
    expect(result.content).toMatch(
      /^Invalid regular expression "foo\(bar": Unterminated group\. Grep takes JavaScript regular expressions/,
    );
  });

  it("accepts what only one of Unicode mode and plain mode accepts: \\p{L} and \\-", async () => {
    await files({ "a.txt": "naïve-x\n" });
    expect(await text({ pattern: "na\\p{L}ve", output_mode: "count" })).toContain("a.txt:1");
    expect(await text({ pattern: "e\\-x", output_mode: "count" })).toContain("a.txt:1");
    expect(await text({ pattern: "[[:alpha:]]+-x", output_mode: "count" })).toContain("a.txt:1");
  });
});

describe("Grep: limits", () => {
  it("stops after head_limit entries, or the default, and says how many there were", async () => {
    await files(Object.fromEntries(Array.from({ length: 5 }, (_, index) => [`f${index}.txt`, "needle\n".repeat(3)])));
    expect(await text({ pattern: "needle", head_limit: 2 })).toBe(
      [
        "Found 5 files",
        "f4.txt",
        "f3.txt",
        "[Showing the 2 most recently modified of 5 files; narrow the search with path, glob or type, or raise head_limit.]",
      ].join("\n"),
    );
    expect(await text({ pattern: "needle", output_mode: "content" }, { defaultHeadLimit: 4 })).toBe(
      [
        "f0.txt:1:needle",
        "f0.txt:2:needle",
        "f0.txt:3:needle",
        "f1.txt:1:needle",
        "[Showing the first 4 of 15 lines, in path order; narrow the search with path, glob or type, or raise head_limit.]",
      ].join("\n"),
    );
    expect((await text({ pattern: "needle", output_mode: "count", head_limit: 1 })).split("\n")).toEqual([
      "f0.txt:3",
      "[Showing 1 of 5 files, in path order; raise head_limit to see more.]",
      "Found 15 matching lines in 5 files.",
    ]);
    expect((await text({ pattern: "needle", output_mode: "content", head_limit: 0 })).split("\n")).toHaveLength(15);
  });

  it("keeps the output within 40,000 characters, saying so", async () => {
    await files({ "wide.txt": `${"needle ".repeat(60)}\n`.repeat(200) });
    const output = await text({ pattern: "needle", output_mode: "content" });
    expect(output.length).toBeLessThan(41_000);
    expect(output.split("\n").at(-1)).toMatch(
      /^\[Showing the first 9\d of 200 lines, in path order \(output is limited to 40,000 characters\); narrow the search/,
    );
  });

  it("shows a long line around its match, cut", async () => {
    await files({ "min.js": `${"a".repeat(5000)}needle${"b".repeat(5000)}\n` });
    const output = await text({ pattern: "needle", output_mode: "content" });
    const [line, note] = output.split("\n");
    expect(line).toMatch(/^min\.js:1:…a{100}needleb+…$/);
    expect(line?.length).toBeLessThan(520);
    expect(note).toBe("[Lines longer than 500 characters are shown in part, around the match; Read shows a whole line.]");
  });

  it("skips files over maxFileBytes and names them", async () => {
    await files({ "big.txt": "needle\n".repeat(20_000), "small.txt": "needle\n" });
    expect(await text({ pattern: "needle" }, { maxFileBytes: 100_000 })).toBe(
      [
        "Found 1 file",
        "small.txt",
        "[Not searched: 1 file larger than 100,000 bytes (big.txt). Search them with Bash (grep -n) if you need to.]",
      ].join("\n"),
    );
  });

  it("drops a leading .*: a minified line costs linear time, not quadratic", async () => {
    await files({ "min.js": `${"x".repeat(2_000_000)}\n`, "a.ts": "const value = useState(0);\n" });
    const started = performance.now();
    expect(await text({ pattern: ".*useState" })).toBe(["Found 1 file", "a.ts"].join("\n"));
    expect(performance.now() - started).toBeLessThan(5000);
  });

  it("gives up a file where the pattern backtracks catastrophically, goes on, and stops after three", async () => {
    const evil = `${"a".repeat(40)}!\n`;
    await files({ "1.txt": evil, "2.txt": "aaaa\n" });
    const started = performance.now();
    expect(await text({ pattern: "^(a+)+$" }, { maxFileMilliseconds: 200 })).toBe(
      [
        "Found 1 file",
        "2.txt",
        "[Gave up on 1.txt: the pattern took over 0.2 s there. The pattern backtracks on long lines: avoid nested quantifiers such as (a+)+ and .* between common words, or search fewer files with path, glob or type.]",
      ].join("\n"),
    );
    await files({ "3.txt": evil, "4.txt": evil, "5.txt": evil });
    const all = await text({ pattern: "^(a+)+$" }, { maxFileMilliseconds: 200, threads: 1 });
    expect(all).toMatch(
      /^(No files found\.|Found 1 file\n2\.txt)\n\[The search stopped, so the results are incomplete: the pattern took over 0\.2 s on each of \d\.txt, \d\.txt, \d\.txt\./,
    );
    expect(performance.now() - started).toBeLessThan(8000);
  });

  it("stops searching when the call's signal aborts", async () => {
    await files({ "1.txt": `${"a".repeat(40)}!\n` });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const started = performance.now();
    await expect(grep({ pattern: "^(a+)+$" }, { maxFileMilliseconds: 60_000 }, controller.signal)).rejects.toThrow(/abort/i);
    expect(performance.now() - started).toBeLessThan(2000);
  });
});

describe("Grep: the pattern", () => {
  it("finds the literal runs every match must contain", () => {
    expect(requiredLiterals("function\\s+\\w+Async")).toEqual(["function", "Async"]);
    expect(requiredLiterals("foo|bar")).toEqual([]);
    expect(requiredLiterals("a(b|c)def")).toEqual(["def"]);
    expect(requiredLiterals("colou?r")).toEqual(["colo"]);
    expect(requiredLiterals("\\.test\\(")).toEqual([".test("]);
    expect(requiredLiterals("\\x41bc[xyz]{2}q+rs")).toEqual(["bc", "rs"]);
    expect(requiredLiterals("x{2}yz")).toEqual(["yz"]);
  });

  it("turns inline flags, POSIX classes and a leading .* into JavaScript", () => {
    expect(compileSearchPattern("(?i)foo", { ignoreCase: false, multiline: false })).toEqual({ source: "foo", flags: "miu", literals: [] });
    expect(compileSearchPattern("^.*foo", { ignoreCase: false, multiline: false }).source).toBe("foo");
    expect(compileSearchPattern(".*foo", { ignoreCase: false, multiline: true })).toEqual({
      source: ".*foo",
      flags: "msu",
      literals: ["foo"],
    });
    expect(compileSearchPattern("[[:digit:]]+", { ignoreCase: false, multiline: false }).source).toBe("[0-9]+");
    expect(compileSearchPattern("interface{}", { ignoreCase: false, multiline: false }).flags).toBe("m");
  });
});
