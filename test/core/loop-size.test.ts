import { readFile } from "node:fs/promises";
import { expect, it } from "vitest";

it("runLoop in src/core/loop.ts stays under 50 lines of code (the seed's test of an engine)", async () => {
  const source = await readFile(new URL("../../src/core/loop.ts", import.meta.url), "utf8");
  // The loop function itself, from its signature to the first closing brace at column 0; helpers beside it
  // (turn planning, result appending) do not count. Same rule as the project's before-stop check: every line
  // that is not blank and not a // comment counts.
  const start = source.search(/^export (async )?function runLoop/m);
  expect(start).toBeGreaterThanOrEqual(0);
  const body = source.slice(start, source.indexOf("\n}", start) + 2);
  const codeLines = body.split("\n").filter((line) => !/^\s*(\/\/.*)?$/.test(line));
  expect(codeLines.length).toBeGreaterThan(10); // the slice found the function, not an empty match
  expect(codeLines.length).toBeLessThan(50);
});
