import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { CodingAgent, type FileMentions } from "../../src/code/index.js";
import { FakeModel, type Model } from "../../src/index.js";
import { writeFiles } from "./custom-commands-fixtures.js";
import { createTemporaryWorkspace, removeTemporaryWorkspace, type TemporaryWorkspace } from "./helpers/temporary-workspace.js";

let temporary: TemporaryWorkspace;
const agents: CodingAgent[] = [];
beforeEach(async () => {
  temporary = await createTemporaryWorkspace("file-mentions");
  await writeFiles(temporary.root, {
    "src/a.ts": "export const a = 1;\n// see @src/b.ts\n",
    "src/b.ts": "export const b = 2;\n",
    "docs/my notes.md": "# Notes\n",
    ".claude/commands/show.md": "Show @src/a.ts",
  });
  await writeFiles(temporary.outside, { "secret.txt": "outside\n" });
});
afterEach(async () => {
  await Promise.all(agents.splice(0).map((agent) => agent.close()));
  await removeTemporaryWorkspace(temporary.base);
});

async function createAgent(model: Model, options: Partial<Parameters<typeof CodingAgent.create>[1]> = {}): Promise<CodingAgent> {
  const agent = await CodingAgent.create(model, {
    workspace: temporary.root,
    settingsFiles: [],
    userDirectory: join(temporary.base, "minagent-home"),
    claudeDirectory: join(temporary.base, "claude-home"),
    home: temporary.base,
    sandbox: false,
    subagents: false,
    ...options,
  });
  agents.push(agent);
  return agent;
}

const sent = (model: FakeModel) => model.requests[0]?.messages.at(-1)?.content ?? "";

describe("@path mentions of a prompt", () => {
  test("a file's contents (as Read numbers them) and a folder's listing follow the prompt; the listener hears of both", async () => {
    const model = new FakeModel(["Read them."]);
    const agent = await createAgent(model);
    const heard: FileMentions[] = [];
    await agent.run('compare @src/a.ts with @src/ and @"docs/my notes.md".', { onFilesAttached: (files) => heard.push(files) });
    expect(sent(model)).toBe(
      [
        'compare @src/a.ts with @src/ and @"docs/my notes.md".',
        '<file path="src/a.ts">\n     1\texport const a = 1;\n     2\t// see @src/b.ts\n</file>',
        '<folder path="src/">\na.ts\nb.ts\n</folder>',
        '<file path="docs/my notes.md">\n     1\t# Notes\n</file>',
      ].join("\n\n"),
    );
    expect(heard.map(({ attached, notes }) => ({ attached, notes }))).toEqual([
      {
        attached: [
          { kind: "file", path: "src/a.ts", lines: 2 },
          { kind: "folder", path: "src/", entries: 2 },
          { kind: "file", path: "docs/my notes.md", lines: 1 },
        ],
        notes: [],
      },
    ]);
  });

  test("a path outside the workspace and a file that is not there are notes; prose, e-mail addresses and images stay text", async () => {
    const model = new FakeModel(["Fine."]);
    const agent = await createAgent(model);
    const heard: FileMentions[] = [];
    const outside = join(temporary.outside, "secret.txt");
    await agent.run(`see @${outside}, @src/missing.ts, @types/node, me@example.com and @shot.png`, {
      onFilesAttached: (files) => heard.push(files),
    });
    expect(heard[0]?.attached).toEqual([]);
    expect(heard[0]?.notes).toEqual([
      expect.stringMatching(new RegExp(`^@${outside} was not attached: .*outside the workspace`)),
      "@src/missing.ts was not attached: there is no such file.",
    ]);
    expect(sent(model)).not.toContain("outside\n");
    expect(sent(model)).toContain("[@src/missing.ts was not attached: there is no such file.]");
  });

  test("a Read deny rule keeps a file out", async () => {
    const model = new FakeModel(["Fine."]);
    const agent = await createAgent(model);
    agent.permissions.addRules({ deny: ["Read(src/b.ts)"] }, "a test");
    const heard: FileMentions[] = [];
    await agent.run("look at @src/b.ts", { onFilesAttached: (files) => heard.push(files) });
    expect(heard[0]?.notes).toEqual([expect.stringMatching(/^@src\/b\.ts was not attached: Permission denied/)]);
    expect(sent(model)).not.toContain("export const b");
  });

  test("a custom command's prompt is not read for mentions again: its files' own `@`s stay text", async () => {
    const model = new FakeModel(["Shown."]);
    const agent = await createAgent(model);
    const heard: FileMentions[] = [];
    await agent.runCommand("show", "", { onFilesAttached: (files) => heard.push(files) });
    expect(heard).toEqual([]);
    expect(sent(model)).toContain('<file path="src/a.ts">');
    expect(sent(model)).not.toContain('<file path="src/b.ts">');
  });
});
