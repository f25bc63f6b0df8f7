import { readdir, readFile } from "node:fs/promises";
import { expect, it } from "vitest";

it("pattern modules are built from the engine's public API only (no reaching into core/ or tools/)", async () => {
  const folder = new URL("../../src/patterns/", import.meta.url);
  const files = (await readdir(folder)).filter((file) => file.endsWith(".ts"));
  expect(files).toEqual(expect.arrayContaining(["react.ts", "plan-and-solve.ts", "reflexion.ts", "plan-mode.ts"]));
  for (const file of files) {
    const source = await readFile(new URL(file, folder), "utf8");
    const specifiers = [...source.matchAll(/^(?:import|export)[^;]*?from\s+"([^"]+)"/gms)].map((match) => match[1]);
    for (const specifier of specifiers) {
      expect({ file, specifier }).toEqual({ file, specifier: expect.stringMatching(/^(\.\.\/engine\.js|\.\/[a-z-]+\.js)$/) });
    }
  }
});
