import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createCodePermissions } from "../../../src/code/permissions/index.js";
import { permissionContext } from "../helpers/permission-context.js";
import { createTemporaryWorkspace, removeTemporaryWorkspace } from "../helpers/temporary-workspace.js";

// Claude Code's `--allowedTools Bash` (a bare Bash allow rule) lets every command run, redirections included: scripts
// written for Claude Code must not stop at the first `>`. What the rule cannot open: deny and ask rules, plan mode,
// writes outside the workspace or into its protected folders.

let base: string;
let root: string;
beforeEach(async () => {
  ({ base, root } = await createTemporaryWorkspace("bare-bash"));
  await writeFile(join(root, ".env"), "TOKEN=x\n");
});
afterEach(() => removeTemporaryWorkspace(base));

async function decide(command: string, rules: { allow?: string[]; deny?: string[]; ask?: string[] }, mode?: "plan") {
  const permissions = await createCodePermissions({ workspace: { root, directories: [root] }, settingsFiles: [], rules, home: base, mode });
  return permissions.canUseTool({ id: "b", name: "Bash", arguments: { command } }, permissionContext("Bash"));
}

describe("a bare Bash allow rule", () => {
  it.each([
    "echo hello > out.txt",
    "npm test 2>&1 | tee test.log",
    "sh -c 'echo hi'",
    "bash -c 'npm run build && npm test'",
    "rm -rf build",
  ])("allows %s", async (command) => {
    expect(await decide(command, { allow: ["Bash", "Read"] })).toMatchObject({ behavior: "allow" });
  });

  it("without it the same lines are asked about (default mode)", async () => {
    expect(await decide("echo hello > out.txt", { allow: ["Read"] })).toMatchObject({ behavior: "ask" });
    expect(await decide("sh -c 'echo hi'", { allow: ["Bash(sh:*)"] })).toMatchObject({ behavior: "ask" });
  });

  it("still asks before writing outside the workspace or into its protected folders", async () => {
    expect(await decide("echo hi > /tmp/elsewhere.txt", { allow: ["Bash"] })).toMatchObject({ behavior: "ask" });
    expect(await decide("echo '{}' > .minagent/settings.json", { allow: ["Bash"] })).toMatchObject({ behavior: "ask" });
    expect(await decide("echo '{}' > .claude/settings.json", { allow: ["Bash"] })).toMatchObject({ behavior: "ask" });
  });

  it("leaves deny and ask rules in force, on every part of a line, and what they cannot see inside is asked", async () => {
    expect(await decide("ls && rm -rf build", { allow: ["Bash"], deny: ["Bash(rm:*)"] })).toMatchObject({ behavior: "deny" });
    expect(await decide("cat .env > copy.txt", { allow: ["Bash"], deny: ["Read(./.env)"] })).toMatchObject({ behavior: "deny" });
    expect(await decide("git push", { allow: ["Bash"], ask: ["Bash(git push:*)"] })).toMatchObject({ behavior: "ask" });
    expect(await decide("sh -c 'rm -rf build'", { allow: ["Bash"], deny: ["Bash(rm:*)"] })).toMatchObject({ behavior: "ask" });
  });

  it("does not open plan mode", async () => {
    expect((await decide("echo hello > out.txt", { allow: ["Bash"] }, "plan")).behavior).not.toBe("allow");
  });
});
