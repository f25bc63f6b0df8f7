import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, expect, it } from "vitest";

const root = new URL("../../", import.meta.url).pathname;
// Inside the repository, so that `import "minagent"` resolves to this package (Node's self-reference) and its built dist/.
const folder = mkdtempSync(join(root, ".readme-"));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

it("the README's quick start runs as plain JavaScript and prints what its comments say", async () => {
  const readme = readFileSync(join(root, "README.md"), "utf8");
  const code = /## Quick start\n\n```ts\n([\s\S]*?)```/.exec(readme)?.[1];
  expect(code, "README.md has a ## Quick start code block").toBeDefined();
  const file = join(folder, "quick-start.mjs");
  writeFileSync(file, code as string);
  const { stdout } = await promisify(execFile)(process.execPath, [file], { cwd: root });
  // The comments in the README are the expected output.
  const expected = [...(code as string).matchAll(/console\.log\(.*\);\s*\/\/ (.*)$/gm)].map((match) => match[1]);
  expect(stdout.trim().split("\n")).toEqual(["[ 'thought', 'action', 'observation', 'final' ]", "Beijing is sunny, 24°C. 5"]);
  expect(expected).toEqual(['["thought", "action", "observation", "final"]', '"Beijing is sunny, 24°C." 5']);
});

it("the README's approvals example runs as plain JavaScript and prints what its comments say", async () => {
  const readme = readFileSync(join(root, "README.md"), "utf8");
  const code = /## Approvals\n[\s\S]*?```ts\n([\s\S]*?)```/.exec(readme)?.[1];
  expect(code, "README.md has an ## Approvals code block").toBeDefined();
  const file = join(folder, "approvals.mjs");
  writeFileSync(file, code as string);
  const { stdout } = await promisify(execFile)(process.execPath, [file], { cwd: root });
  const expected = [...(code as string).matchAll(/console\.log\(.*\);\s*\/\/ (.*)$/gm)].map((match) => match[1]);
  expect(expected).toEqual(["interrupted [ 'call_1' ]", "completed Deleted notes.txt."]);
  expect(stdout.trim().split("\n")).toEqual(expected);
});

it("the coding-agent example fixes its sample project's failing test", async () => {
  const script = join(root, "examples/fix-failing-test/fix-failing-test.mjs");
  const { stdout } = await promisify(execFile)(process.execPath, [script], { cwd: root, timeout: 60_000 });
  expect(stdout).toMatch(/→ Bash \{"command":"npm test","description":"Run the tests"\}/);
  expect(stdout.trim().split("\n").at(-1)).toBe("status: completed; src/math.js now divides by values.length");
});
