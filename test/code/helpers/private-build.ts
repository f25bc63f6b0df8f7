import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

const repository = fileURLToPath(new URL("../../../", import.meta.url));
const sources = join(repository, "src");

/** A private build: `build` holds the JavaScript (`<build>/code/sessions/index.js` for `src/code/sessions/index.ts`). */
export type PrivateBuild = {
  /** A fresh temporary folder holding the build and a link to the repository's node_modules. */
  directory: string;
  /** Where the JavaScript is, laid out as src/ is. */
  build: string;
  /** Deletes the folder. */
  remove(): void;
};

/**
 * Builds source files (paths under src/, e.g. "code/sessions/index.ts"), and every file they import, into a new
 * temporary folder, as JavaScript a child process can run. Each file is transpiled on its own (types are checked by
 * tsc, not here), so it takes a fraction of a second and never touches the repository's dist/, which others may be
 * rebuilding. Imports the build cannot follow (a computed `import()`) must be listed as entries themselves.
 */
export function buildPrivately(entries: readonly string[], prefix: string): PrivateBuild {
  const directory = mkdtempSync(join(tmpdir(), `minagent-${prefix}-`));
  const build = join(directory, "build");
  // The built files import packages: they find the repository's through this link.
  symlinkSync(join(repository, "node_modules"), join(directory, "node_modules"));
  const pending = entries.map((entry) => resolve(sources, entry));
  const done = new Set<string>();
  while (pending.length > 0) {
    const file = pending.pop() as string;
    if (done.has(file)) continue;
    done.add(file);
    if (!existsSync(file)) throw new Error(`the private build needs ${relative(repository, file)}, which does not exist`);
    const text = readFileSync(file, "utf8");
    const output = ts.transpileModule(text, {
      fileName: file,
      // Without comments: an import written in a comment is not followed.
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: true, removeComments: true },
    }).outputText;
    const target = join(build, relative(sources, file)).replace(/\.ts$/, ".js");
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, output);
    for (const specifier of runtimeImports(output)) pending.push(resolve(dirname(file), specifier.replace(/\.js$/, ".ts")));
  }
  return { directory, build, remove: () => rmSync(directory, { recursive: true, force: true }) };
}

/** The relative modules a built file loads (type-only imports are gone from the JavaScript). */
function runtimeImports(javascript: string): string[] {
  const found = new Set<string>();
  for (const match of javascript.matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*)["'](\.{1,2}\/[^"']+)["']/g)) found.add(match[1] as string);
  return [...found];
}
