import { readdir, readFile } from "node:fs/promises";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";

const src = fileURLToPath(new URL("../../../src/", import.meta.url));
const folder = "code/permissions";

/** The modules of src/code/permissions/ a module imports, relative to src/ (type imports included). */
async function importsOf(file: string): Promise<string[]> {
  const source = await readFile(join(src, file), "utf8");
  return [...source.matchAll(/^(?:import|export)[^;]*?from\s+"(\.[^"]+)"/gms)]
    .map(([, specifier]) => relative(src, join(dirname(join(src, file)), (specifier as string).replace(/\.js$/, ".ts"))))
    .filter((target) => target.startsWith(`${folder}/`));
}

it("src/code/permissions/ has no import circle, type imports included", async () => {
  const files = (await readdir(join(src, folder))).filter((name) => name.endsWith(".ts")).map((name) => `${folder}/${name}`);
  const imports = new Map(await Promise.all(files.map(async (file) => [file, await importsOf(file)] as const)));
  expect(imports.get(`${folder}/bash-commands.ts`)).toContain(`${folder}/bash-words.ts`); // the walk reads imports
  const circles: string[] = [];
  // Depth-first from every file; a file met again on the current path closes a circle.
  const visit = (file: string, path: string[]): void => {
    for (const target of imports.get(file) ?? []) {
      if (path.includes(target)) circles.push([...path.slice(path.indexOf(target)), target].join(" → "));
      else visit(target, [...path, target]);
    }
  };
  for (const file of files) visit(file, [file]);
  expect(circles).toEqual([]);
});
