import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CodingAgent } from "../../../src/code/index.js";
import { describeProjectAgentHooks, loadSubagentDefinitions } from "../../../src/code/subagents/index.js";
import { FakeModel } from "../../../src/index.js";
import { createTemporaryWorkspace, removeTemporaryWorkspace } from "../helpers/temporary-workspace.js";

// A Claude Code user's agent files work unchanged: .claude/agents/ and ~/.claude/agents/ are read, and what cannot be
// used is left out with a warning instead of stopping the session.

let base: string;
let root: string;
beforeEach(async () => {
  ({ base, root } = await createTemporaryWorkspace("claude-agents"));
});
afterEach(() => removeTemporaryWorkspace(base));

async function agentFile(folder: string, name: string, text: string): Promise<void> {
  await mkdir(folder, { recursive: true });
  await writeFile(join(folder, name), text);
}

async function create() {
  return CodingAgent.create(new FakeModel([]), {
    workspace: root,
    home: base,
    settingsFiles: [],
    sandbox: false,
    claudeDirectory: join(base, "claude"),
  });
}

describe("Claude Code's agent files", () => {
  it("are read from the project's .claude/agents and the user's Claude folder; a tool minagent lacks is a warning", async () => {
    await agentFile(
      join(root, ".claude", "agents"),
      "reviewer.md",
      "---\nname: reviewer\ndescription: Reviews a change for bugs\ntools: Read, Grep, Glob, WebSearch, KillShell\ncolor: blue\n---\nYou review changes.\n",
    );
    await agentFile(join(base, "claude", "agents"), "writer.md", "---\nname: writer\ndescription: Writes release notes\n---\nYou write.\n");
    const agent = await create();
    try {
      const types = agent.subagents?.subagents().map((definition) => definition.name);
      expect(types).toEqual(expect.arrayContaining(["reviewer", "writer"]));
      expect(agent.warnings).toEqual([
        expect.stringMatching(/Subagent "reviewer" .* names tools minagent does not have: KillShell; it runs without them/),
      ]);
    } finally {
      await agent.close();
    }
  });

  it("a file that cannot be used is skipped with a warning naming it, and the session starts", async () => {
    const broken = join(root, ".claude", "agents", "broken.md");
    await agentFile(join(root, ".claude", "agents"), "broken.md", "---\nname: broken\n---\nNo description.\n");
    await agentFile(join(root, ".claude", "agents"), "fine.md", "---\nname: fine\ndescription: Works\n---\nFine.\n");
    const agent = await create();
    try {
      expect(agent.subagents?.subagents().map((definition) => definition.name)).toContain("fine");
      expect(agent.warnings).toEqual([expect.stringContaining(broken)]);
      expect(agent.warnings[0]).toMatch(/skipped: the session goes on without it/);
    } finally {
      await agent.close();
    }
  });

  it("at the same level minagent's file replaces Claude Code's of the same name", async () => {
    await agentFile(join(root, ".claude", "agents"), "helper.md", "---\nname: helper\ndescription: Claude Code's helper\n---\nA.\n");
    await agentFile(join(root, ".minagent", "agents"), "helper.md", "---\nname: helper\ndescription: minagent's helper\n---\nB.\n");
    const agent = await create();
    try {
      expect(agent.subagents?.subagents().find((definition) => definition.name === "helper")?.description).toBe("minagent's helper");
    } finally {
      await agent.close();
    }
  });

  it("the project's agent files with hooks are listed for the trust question, and left out of a folder not trusted", async () => {
    const guarded = [
      "---",
      "name: release",
      "description: Prepares a release",
      "hooks:",
      "  PreToolUse:",
      "    - matcher: Bash",
      "      hooks:",
      "        - type: command",
      "          command: ./scripts/check-release.sh",
      "---",
      "Prepare the release.",
    ].join("\n");
    await agentFile(join(root, ".claude", "agents"), "release.md", guarded);
    await agentFile(join(root, ".claude", "agents"), "plain.md", "---\nname: plain\ndescription: No hooks\n---\nPlain.\n");
    // The user's own agent files are theirs: they never need the folder's trust.
    await agentFile(join(base, "claude", "agents"), "mine.md", guarded.replace("name: release", "name: mine"));
    expect(await describeProjectAgentHooks(root)).toEqual([".claude/agents/release.md: hook PreToolUse Bash: ./scripts/check-release.sh"]);
    const skipped: string[] = [];
    const untrusted = await loadSubagentDefinitions({
      root,
      userDirectory: false,
      claudeDirectory: join(base, "claude"),
      projectHooks: false,
      onSkipped: (problem) => skipped.push(problem),
    });
    expect(untrusted.map((definition) => definition.name)).toEqual(["mine", "plain"]);
    expect(skipped).toEqual([
      `Subagent definition ${join(root, ".claude", "agents", "release.md")} has hooks, which run commands, and this folder is not trusted, so it is not used (skipped: the session goes on without it)`,
    ]);
    const trusted = await loadSubagentDefinitions({ root, userDirectory: false, claudeDirectory: join(base, "claude") });
    expect(trusted.map((definition) => definition.name)).toEqual(["mine", "plain", "release"]);
  });
});
