import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { createCodePermissions } from "../../../src/code/index.js";
import { loadBashParser } from "../../../src/code/permissions/index.js";
import { isReadOnlyBashCommand } from "../../../src/code/subagents/index.js";
import { temporaryFolder } from "../../helpers/temporary-folder.js";

it("a read-only subagent runs exactly the shell lines plan mode runs without asking (inside the workspace)", async () => {
  const root = temporaryFolder("minagent-read-only-bash-");
  writeFileSync(join(root, "a.txt"), "a\n");
  const permissions = await createCodePermissions({ workspace: { root, directories: [root] }, mode: "plan", settingsFiles: [] });
  const parser = await loadBashParser();
  const lines = [
    "ls -la",
    "cat a.txt | head -5",
    "grep -n a a.txt 2>/dev/null",
    "wc -l < a.txt",
    "echo done",
    "command -v node",
    "LANG=C cat a.txt",
    "printf -v LANG %s C",
    "pwd; true",
    "rm a.txt",
    "touch b.txt",
    "echo hi > b.txt",
    "git status",
    "sed -n 1p a.txt",
    "npm test",
    "eval ls",
    "bash -c ls",
    "$CMD",
    "PATH=/tmp cat a.txt",
    "./env cat a.txt",
    "timeout 5 cat a.txt",
    "read x < a.txt",
    "declare x=1",
    "cat $(rm a.txt)",
    "ls (",
  ];
  const judged = [];
  for (const line of lines) {
    const explanation = await permissions.explain({ name: "Bash", arguments: { command: line } });
    judged.push({ line, readOnly: isReadOnlyBashCommand(parser, line), planRuns: explanation.decision.behavior === "allow" });
  }
  expect(judged.filter(({ readOnly, planRuns }) => readOnly !== planRuns)).toEqual([]);
  // Both answers occur: the lines above test the agreement, not one answer for all.
  expect(judged.filter(({ readOnly }) => readOnly).length).toBeGreaterThan(5);
  expect(judged.filter(({ readOnly }) => !readOnly).length).toBeGreaterThan(10);
});
