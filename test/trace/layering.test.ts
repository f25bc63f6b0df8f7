import { readdir, readFile } from "node:fs/promises";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";

const src = fileURLToPath(new URL("../../src/", import.meta.url));

/** The modules a module imports, relative to src/ (type imports included: they are arrows between layers too). */
async function importsOf(file: string): Promise<string[]> {
  const source = await readFile(join(src, file), "utf8");
  return [...source.matchAll(/^(?:import|export)[^;]*?from\s+"(\.[^"]+)"/gms)].map(([, specifier]) =>
    relative(src, join(dirname(join(src, file)), (specifier as string).replace(/\.js$/, ".ts"))),
  );
}

it("src/trace/ (the tracer and the viewer) imports nothing from the layers above it: cli/, code/, models/", async () => {
  const files = (await readdir(join(src, "trace"), { recursive: true }))
    .filter((name) => name.endsWith(".ts"))
    .map((name) => join("trace", name));
  expect(files).toContain("trace/viewer/trace-summary.ts"); // the listing found the viewer
  const upward: string[] = [];
  for (const file of files)
    for (const target of await importsOf(file)) if (/^(cli|code|models)\//.test(target)) upward.push(`${file} → ${target}`);
  expect(upward).toEqual([]);
});
