// Compiles some of src/ with the repository's compiler settings into node_modules/.cache/<name>, so a benchmark
// can measure the sources without a build of the package; returns an importer of the compiled modules.
import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));

/** Compiles `sources` (paths under src/, e.g. "code/permissions/index.ts"); exits the process if tsc fails. */
export function compileSources(name, sources) {
  const out = join(root, "node_modules", ".cache", name);
  mkdirSync(out, { recursive: true });
  const project = join(out, "tsconfig.json");
  writeFileSync(
    project,
    JSON.stringify({
      extends: join(root, "tsconfig.json"),
      compilerOptions: { outDir: join(out, "js"), rootDir: join(root, "src"), declaration: false, sourceMap: false },
      files: sources.map((file) => join(root, "src", file)),
      include: [],
    }),
  );
  const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
  const compiled = spawnSync(process.execPath, [tsc, "-p", project], { encoding: "utf8" });
  if (compiled.status !== 0) {
    console.error(compiled.stdout, compiled.stderr);
    process.exit(1);
  }
  return (file) => import(pathToFileURL(join(out, "js", file.replace(/\.ts$/, ".js"))).href);
}
