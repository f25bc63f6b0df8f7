// examples/fix-failing-test (README.md and docs/code.md point to it) runs as they say. The README's own code blocks
// are checked and run by docs-snippets.test.ts.
import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { expect, it } from "vitest";

const root = new URL("../../", import.meta.url).pathname;

it("the coding-agent example fixes its sample project's failing test", async () => {
  const script = join(root, "examples/fix-failing-test/fix-failing-test.mjs");
  const { stdout } = await promisify(execFile)(process.execPath, [script], { cwd: root, timeout: 60_000 });
  expect(stdout).toMatch(/→ Bash \{"command":"npm test","description":"Run the tests"\}/);
  expect(stdout.trim().split("\n").at(-1)).toBe("status: completed; src/math.js now divides by values.length");
});
