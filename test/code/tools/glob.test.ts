import { mkdir, utimes, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createGlobTool, type GlobToolOptions } from "../../../src/code/tools/glob.js";
import type { Workspace } from "../../../src/code/workspace.js";
import type { ToolResult } from "../../../src/index.js";
import { callTool } from "../helpers/call-tool.js";
import { createTemporaryWorkspace, removeTemporaryWorkspace } from "../helpers/temporary-workspace.js";

let base: string;
let root: string;
let workspace: Workspace;

beforeEach(async () => {
  ({ base, root, workspace } = await createTemporaryWorkspace("glob"));
});

afterEach(() => removeTemporaryWorkspace(base));

/** Creates files (relative to the root) with the given modification times (seconds), creating folders. */
async function files(entries: Record<string, number>): Promise<void> {
  for (const [path, seconds] of Object.entries(entries)) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), path);
    await utimes(join(root, path), seconds, seconds);
  }
}

const glob = (args: Record<string, unknown>, options: GlobToolOptions = {}): Promise<ToolResult> =>
  callTool(createGlobTool(workspace, options), args);

const list = async (args: Record<string, unknown>, options?: GlobToolOptions) => {
  const result = await glob(args, options);
  if (result.isError) throw new Error(`unexpected error: ${result.content}`);
  return result.content.split("\n");
};

describe("Glob", () => {
  it("lists matching files relative to the root, most recently modified first (ties by path)", async () => {
    await files({ "src/a.ts": 1000, "src/b.ts": 3000, "src/deep/c.ts": 2000, "src/d.js": 4000, "e.ts": 1000, "README.md": 5000 });
    expect(await list({ pattern: "**/*.ts" })).toEqual(["src/b.ts", "src/deep/c.ts", "e.ts", "src/a.ts"]);
    expect(await list({ pattern: "src/**/*.{ts,js}" })).toEqual(["src/d.js", "src/b.ts", "src/deep/c.ts", "src/a.ts"]);
    expect(await list({ pattern: "*.ts", path: "src" })).toEqual(["src/b.ts", "src/a.ts"]);
    expect(await list({ pattern: join(root, "src", "*.js") })).toEqual(["src/d.js"]);
    expect(await list({ pattern: "src/deep/c.ts" })).toEqual(["src/deep/c.ts"]);
  });

  it("stops at maxResults and says how many matched", async () => {
    await files(Object.fromEntries(Array.from({ length: 5 }, (_, index) => [`f${index}.txt`, 1000 + index])));
    expect(await list({ pattern: "*.txt" }, { maxResults: 3 })).toEqual([
      "f4.txt",
      "f3.txt",
      "f2.txt",
      "[Showing the 3 most recently modified of 5 files; use a narrower pattern or path to see the others.]",
    ]);
  });

  it("respects .gitignore (nested too), skips .git, and matches dot files", async () => {
    await files({
      ".gitignore": 1000,
      "dist/app.js": 1000,
      "src/app.js": 1000,
      "src/.gitignore": 1000,
      "src/generated.js": 1000,
      ".git/hooks/pre-commit.js": 1000,
      ".github/workflows/ci.js": 1000,
    });
    await writeFile(join(root, ".gitignore"), "dist/\n");
    await writeFile(join(root, "src/.gitignore"), "generated.js\n");
    expect((await list({ pattern: "**/*.js" })).sort()).toEqual([".github/workflows/ci.js", "src/app.js"]);
    expect(await list({ pattern: "**/*.js", path: "dist" })).toEqual(["dist/app.js"]);
  });

  it("respects ripgrep's .ignore files as well as .gitignore (nested too)", async () => {
    await files({
      ".gitignore": 1000,
      ".ignore": 1000,
      "dist/a.js": 1000,
      "logs/b.js": 1000,
      "src/.ignore": 1000,
      "src/c.js": 1000,
      "src/d.js": 1000,
    });
    await writeFile(join(root, ".gitignore"), "dist/\n");
    await writeFile(join(root, ".ignore"), "logs/\n");
    await writeFile(join(root, "src/.ignore"), "d.js\n");
    expect(await list({ pattern: "**/*.js" })).toEqual(["src/c.js"]);
  });

  it("explains a pattern without / that found nothing at the top", async () => {
    await files({ "src/a.ts": 1000 });
    expect((await glob({ pattern: "*.ts" })).content).toBe(
      'No files found. A pattern without "/" matches only files directly in .; use "**/*.ts" to search its subfolders too.',
    );
    expect((await glob({ pattern: "**/*.py" })).content).toBe("No files found.");
    expect((await glob({ pattern: "missing/**/*.ts" })).content).toBe("No files found.");
  });

  it("refuses folders outside the workspace, a file as path and a missing path", async () => {
    await files({ "a.ts": 1000 });
    await writeFile(join(base, "outside", "x.ts"), "");
    for (const args of [
      { pattern: "*.ts", path: join(base, "outside") },
      { pattern: "../outside/*.ts" },
      { pattern: join(base, "outside", "*.ts") },
    ]) {
      const result = await glob(args);
      expect(result.isError).toBe(true);
      expect(result.content).toContain("outside the workspace");
    }
    expect(await glob({ pattern: "*", path: "a.ts" })).toEqual({
      content: "a.ts is a file, not a folder: give a folder as path, or put the file name in the pattern.",
      isError: true,
    });
    expect(await glob({ pattern: "*", path: "nope" })).toEqual({ content: "Path does not exist: nope.", isError: true });
  });
});
