import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createCodePermissions } from "../../../src/code/permissions/index.js";
import { parsePermissionRule } from "../../../src/code/permissions/parse-rule.js";
import { permissionContext } from "../helpers/permission-context.js";
import { createTemporaryWorkspace, removeTemporaryWorkspace } from "../helpers/temporary-workspace.js";

// Every specifier Claude Code's settings use parses, so that a project's .claude/settings.json starts the session.

let base: string;
let root: string;
beforeEach(async () => {
  ({ base, root } = await createTemporaryWorkspace("claude-rules"));
});
afterEach(() => removeTemporaryWorkspace(base));

const bases = () => ({ root, home: base });

describe("Claude Code's rule specifiers", () => {
  it.each([
    "WebSearch",
    "WebFetch(domain:github.com)",
    "Task(Explore)",
    "Agent(general-purpose)",
    "Skill(pdf)",
    "Skill(review-pr *)",
    "SlashCommand",
    "SlashCommand(/commit)",
    "SlashCommand(/review-pr:*)",
    "NotebookEdit(notebooks/**)",
    "MultiEdit(src/**)",
    "mcp__github",
    "mcp__github__*",
    "mcp__github__get_issue",
    "Bash(git diff *)",
  ])("%s parses", (rule) => {
    expect(() => parsePermissionRule(rule, "allow", ".claude/settings.json", bases())).not.toThrow();
  });

  it("Agent(<type>) and Task(<type>) match the calls of that subagent type only", async () => {
    const permissions = await createCodePermissions({
      workspace: { root, directories: [root] },
      settingsFiles: [],
      rules: { deny: ["Task(general-purpose)"], ask: ["Agent(Explore)"] },
      home: base,
    });
    const call = (subagent_type: string) =>
      permissions.canUseTool(
        { id: "a", name: "Agent", arguments: { subagent_type, description: "look", prompt: "look" } },
        permissionContext("Agent"),
      );
    expect(await call("general-purpose")).toMatchObject({ behavior: "deny" });
    expect(await call("Explore")).toMatchObject({ behavior: "ask" });
    expect(await call("reviewer")).toMatchObject({ behavior: "allow" });
  });

  it("MultiEdit(…) rules cover Edit, as MultiEdit's edits are Edit's here", async () => {
    const permissions = await createCodePermissions({
      workspace: { root, directories: [root] },
      settingsFiles: [],
      rules: { deny: ["MultiEdit(src/**)"] },
      home: base,
    });
    const edit = (file_path: string) =>
      permissions.canUseTool(
        { id: "e", name: "Edit", arguments: { file_path, old_string: "a", new_string: "b" } },
        permissionContext("Edit"),
      );
    expect(await edit("src/a.ts")).toMatchObject({ behavior: "deny" });
    expect((await edit("docs/a.md")).behavior).not.toBe("deny");
  });

  it("Skill(<name>) matches that skill; Skill(<name> *) that skill with any arguments, not a longer name", async () => {
    const permissions = await createCodePermissions({
      workspace: { root, directories: [root] },
      settingsFiles: [],
      rules: { deny: ["Skill(deploy)"], ask: ["Skill(review-pr *)"], allow: ["Skill"] },
      home: base,
    });
    const call = (skill: string) => permissions.canUseTool({ id: "s", name: "Skill", arguments: { skill } }, permissionContext("Skill"));
    expect(await call("deploy")).toMatchObject({ behavior: "deny" });
    expect(await call("deploy-docs")).toMatchObject({ behavior: "allow" });
    expect(await call("review-pr")).toMatchObject({ behavior: "ask" });
    expect(await call("review-pr 42")).toMatchObject({ behavior: "ask" });
    expect(await call("review-prs")).toMatchObject({ behavior: "allow" });
  });
});
