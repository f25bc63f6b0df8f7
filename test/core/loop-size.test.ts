import { readFile } from "node:fs/promises";
import { expect, it } from "vitest";

it("src/core/loop.ts stays under 50 lines of code (the seed's test of an engine)", async () => {
  const source = await readFile(new URL("../../src/core/loop.ts", import.meta.url), "utf8");
  // Same rule as the project's before-stop check: every line that is not blank and not a // comment counts.
  const codeLines = source.split("\n").filter((line) => !/^\s*(\/\/.*)?$/.test(line));
  expect(codeLines.length).toBeLessThan(50);
});
