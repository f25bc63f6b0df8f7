import { cpSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { CodingAgent } from "../../src/code/index.js";
import { FakeModel } from "../../src/index.js";
import { reply, toolCall } from "../../src/testing/index.js";

let project: string;
beforeEach(() => {
  project = mkdtempSync(join(tmpdir(), "minagent-bash-directory-"));
  cpSync(new URL("../../examples/fix-failing-test/project/", import.meta.url), project, { recursive: true });
  cpSync(join(project, "package.json"), join(project, "src", "config"));
});
afterEach(() => rmSync(project, { recursive: true, force: true }));

it("after a cd, the shell's relative paths are judged from where the shell is (a write into src/ is not a write at the root)", async () => {
  const model = new FakeModel([
    reply("", toolCall("Bash", { command: "cd src" }, "cd")),
    reply("", toolCall("Bash", { command: "echo hacked >> config" }, "w")),
    "done",
  ]);
  // Edits at the root's config are allowed by a rule; src/config is not.
  const agent = await CodingAgent.create(model, {
    workspace: project,
    settingsFiles: [],
    rules: { allow: ["Bash(cd:*)", "Bash(echo:*)", "Edit(/config)"] },
    // The judge's own paths are what is tested: a sandboxed call would run without asking.
    sandbox: false,
  });
  const result = await agent.run("go");
  expect(result.status).toBe("interrupted");
  expect(result.pending[0]?.toolCall.id).toBe("w");
  expect(readFileSync(join(project, "src", "config"), "utf8")).not.toContain("hacked");
});
