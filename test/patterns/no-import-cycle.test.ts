import { readFile } from "node:fs/promises";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";

const src = fileURLToPath(new URL("../../src/", import.meta.url));

/** Every module src/<entry> reaches through its relative imports (type imports included). */
async function reachable(entry: string): Promise<Set<string>> {
  const seen = new Set<string>();
  const visit = async (file: string): Promise<void> => {
    if (seen.has(file)) return;
    seen.add(file);
    const source = await readFile(join(src, file), "utf8");
    for (const [, specifier] of source.matchAll(/^(?:import|export)[^;]*?from\s+"(\.[^"]+)"/gms)) {
      await visit(relative(src, join(dirname(join(src, file)), (specifier as string).replace(/\.js$/, ".ts"))));
    }
  };
  await visit(entry);
  return seen;
}

it("the engine never imports the patterns or the index, so no import cycle depends on the order of export lines", async () => {
  const engine = await reachable("engine.ts");
  expect(engine.has("core/agent.ts")).toBe(true); // the walk follows imports
  expect([...engine].filter((file) => file.startsWith("patterns/") || file === "index.ts")).toEqual([]);
});
