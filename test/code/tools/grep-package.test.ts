import { execFileSync } from "node:child_process";
import { copyFileSync, cpSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { temporaryFolder } from "../../helpers/temporary-folder.js";

// Grep's search thread is a module of its own (src/code/tools/grep/search-thread.cts), which the tool starts from
// the file beside it: the package's build must emit it, `npm pack` must ship it, and the built tool must find it
// when run by plain Node (the other Grep tests run the sources under vitest, where the pool compiles the thread
// itself). Built in a copy of the repository: dist/ is untouched.

const repository = fileURLToPath(new URL("../../../", import.meta.url));

describe("Grep in the built package", () => {
  it("is built with its search thread, packed by `npm pack`, and searches from dist/ in plain Node", () => {
    const copy = temporaryFolder("minagent-grep-package-");
    for (const file of ["package.json", "tsconfig.json", "README.md"]) copyFileSync(join(repository, file), join(copy, file));
    cpSync(join(repository, "src"), join(copy, "src"), { recursive: true });
    symlinkSync(join(repository, "node_modules"), join(copy, "node_modules"));
    // The package's own build compiler and tsconfig.json (emit does not depend on the type check, which tsc -p
    // tsconfig.check.json does elsewhere; --noCheck makes this a few seconds).
    execFileSync(process.execPath, [join(repository, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.json", "--noCheck"], {
      cwd: copy,
      stdio: "pipe",
      timeout: 240_000,
    });

    const packed = JSON.parse(
      execFileSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], { cwd: copy, encoding: "utf8" }),
    ) as {
      files: { path: string }[];
    }[];
    const paths = new Set(packed[0]?.files.map((file) => file.path));
    for (const file of ["grep.js", "grep/tool.js", "grep/search-pool.js", "grep/search-thread.cjs"])
      expect(paths, file).toContain(`dist/code/tools/${file}`);

    const project = temporaryFolder("minagent-grep-package-project-");
    mkdirSync(join(project, "src"));
    writeFileSync(join(project, "src", "a.ts"), "export const needle = 1;\n");
    writeFileSync(join(project, "long-line.txt"), `${"a".repeat(40)}!\n`);
    const script = `
      const { createGrepTool, Workspace } = await import(${JSON.stringify(pathToFileURL(join(copy, "dist/code/index.js")).href)});
      const grep = createGrepTool(new Workspace({ root: ${JSON.stringify(project)} }), { maxFileMilliseconds: 200 });
      const context = { signal: new AbortController().signal, toolCallId: "1" };
      console.log(await grep.execute({ pattern: "needle", output_mode: "content" }, context));
      console.log(await grep.execute({ pattern: "^(a+)+$" }, context));`;
    const output = execFileSync(process.execPath, ["--input-type=module", "-e", script], {
      cwd: project,
      encoding: "utf8",
      timeout: 30_000,
    });
    expect(output).toBe(
      [
        "src/a.ts:1:export const needle = 1;",
        "No files found.",
        "[Gave up on long-line.txt: the pattern took over 0.2 s there. The pattern backtracks on long lines: avoid nested quantifiers such as (a+)+ and .* between common words, or search fewer files with path, glob or type.]",
        "",
      ].join("\n"),
    );
  }, 300_000);
});
