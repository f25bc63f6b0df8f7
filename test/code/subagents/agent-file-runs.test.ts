import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CodingAgent, type CodingAgentOptions } from "../../../src/code/index.js";
import { FakeModel, type Message, type Model } from "../../../src/index.js";
import { reply, toolCall } from "../../../src/testing/index.js";
import { createTemporaryWorkspace, removeTemporaryWorkspace } from "../helpers/temporary-workspace.js";
import { makeScriptFolder } from "../hooks/scripts.js";
import { docsWriterFile, plannerFile, releaseCheckerFile, researcherFile, reviewerFile, testRunnerFile } from "./agent-file-fixtures.js";

// Agent files in .claude/agents run as their keys say, inside a CodingAgent: the model alias on the session's
// provider, disallowedTools, a permission mode that only narrows, the file's own hooks beside the session's.

let base: string;
let root: string;
beforeEach(async () => {
  ({ base, root } = await createTemporaryWorkspace("agent-file-runs"));
});
afterEach(() => removeTemporaryWorkspace(base));

async function agentFiles(files: Record<string, string>): Promise<void> {
  await mkdir(join(root, ".claude", "agents"), { recursive: true });
  for (const [name, text] of Object.entries(files)) await writeFile(join(root, ".claude", "agents", name), text);
}

function create(model: Model, options: Partial<CodingAgentOptions> = {}) {
  return CodingAgent.create(model, {
    workspace: root,
    home: base,
    settingsFiles: [],
    sandbox: false,
    memory: false,
    compaction: false,
    claudeDirectory: join(base, "claude"),
    ...options,
  });
}

/** A FakeModel as a provider's model: agent files' aliases map by the session's provider. */
function onProvider(fake: FakeModel, provider: string, modelId: string): Model {
  return { provider, modelId, complete: (messages, tools, options) => fake.complete(messages, tools, options) };
}

const start = (subagent_type: string, prompt: string) => toolCall("Agent", { description: "delegate", prompt, subagent_type }, "agent-1");
const toolTexts = (messages: readonly Message[]) => messages.filter((message) => message.role === "tool").map((message) => message.content);

describe("agent files at run time", () => {
  it("model: sonnet runs on the session provider's Sonnet, with the file's tools and prompt", async () => {
    await agentFiles({ "reviewer.md": reviewerFile });
    const parent = new FakeModel([reply("", start("code-reviewer", "Review src/parse.ts.")), "The reviewer found nothing."]);
    const child = new FakeModel(["No bugs found in src/parse.ts."]);
    const resolved: string[] = [];
    const agent = await create(onProvider(parent, "anthropic", "claude-opus-4-6"), {
      subagents: {
        resolveModel: (spec) => {
          resolved.push(spec);
          return child;
        },
      },
    });
    try {
      const result = await agent.run("Review my change.");
      expect(resolved).toEqual(["anthropic:claude-sonnet-4-6"]);
      expect(toolTexts(result.messages)).toEqual(["No bugs found in src/parse.ts."]);
      expect(child.requests[0]?.tools.map((tool) => tool.name)).toEqual(["Read", "Grep", "Glob"]);
      expect(child.requests[0]?.messages[0]?.content).toMatch(/^You are a senior reviewer\./);
      expect(agent.subagents?.subagents().find((type) => type.name === "code-reviewer")).toMatchObject({ model: "sonnet", color: "blue" });
      expect(agent.warnings).toEqual([]);
    } finally {
      await agent.close();
    }
  });

  it("on a provider with no Sonnet, the session's model runs it, and one line says so", async () => {
    await agentFiles({ "reviewer.md": reviewerFile });
    const model = new FakeModel([reply("", start("code-reviewer", "Review it.")), "Reviewed.", "Done."]);
    const agent = await create(onProvider(model, "ollama", "qwen3:8b"));
    try {
      await agent.run("Review my change.");
      expect(model.requests).toHaveLength(3);
      expect(agent.warnings).toEqual([
        `Subagent "code-reviewer" (${join(root, ".claude", "agents", "reviewer.md")}) asks for the model "sonnet", which has no equivalent for the session's provider (ollama): the session's model (qwen3:8b) runs it`,
      ]);
    } finally {
      await agent.close();
    }
  });

  it("disallowedTools takes tools away from every tool it would inherit", async () => {
    await agentFiles({ "docs-writer.md": docsWriterFile });
    const agent = await create(new FakeModel([]));
    try {
      const tools = agent.subagents?.subagents().find((type) => type.name === "docs-writer")?.tools;
      expect(tools).toEqual(["Read", "Edit", "NotebookEdit", "Glob", "Grep", "TodoWrite", "WebFetch", "WebSearch", "Agent"]);
    } finally {
      await agent.close();
    }
  });

  it("permissionMode: plan denies what changes things even in a bypassPermissions session; reads and read-only commands run", async () => {
    await agentFiles({ "planner.md": plannerFile });
    await writeFile(join(root, "notes.md"), "Plan the parser.\n");
    const model = new FakeModel([
      reply("", start("planner", "Plan the parser change.")),
      reply("", toolCall("Read", { file_path: "notes.md" }, "r1"), toolCall("Write", { file_path: "plan.md", content: "x" }, "w1")),
      reply("", toolCall("Bash", { command: "ls" }, "b1"), toolCall("Bash", { command: "touch made-by-planner" }, "b2")),
      "1. Change src/parse.ts.",
      "Planned.",
    ]);
    const agent = await create(model, { mode: "bypassPermissions" });
    try {
      await agent.run("Plan it.");
      const child = model.requests[3]?.messages ?? [];
      const results = child.filter((message) => message.role === "tool");
      expect(results.map((message) => [message.toolCallId, message.isError === true])).toEqual([
        ["r1", false],
        ["w1", true],
        ["b1", false],
        ["b2", true],
      ]);
      expect(results[1]?.content).toMatch(/The planner subagent runs in plan mode \(its permissionMode\): "Write" may change things/);
      await expect(readFile(join(root, "plan.md"), "utf8")).rejects.toThrow(/ENOENT/);
      await expect(readFile(join(root, "made-by-planner"), "utf8")).rejects.toThrow(/ENOENT/);
    } finally {
      await agent.close();
    }
  });

  it("a file's bypassPermissions does not loosen a default session: one warning, and its write is still asked (so denied)", async () => {
    await agentFiles({
      "fixer.md": "---\nname: fixer\ndescription: Fixes lint errors.\npermissionMode: bypassPermissions\n---\nFix the lint errors.\n",
    });
    const model = new FakeModel([
      reply("", start("fixer", "Fix the lint errors.")),
      reply("", toolCall("Write", { file_path: "fixed.ts", content: "x" }, "w1")),
      "Could not write.",
      "Done.",
    ]);
    const agent = await create(model);
    try {
      await agent.run("Fix lint.");
      expect(agent.warnings).toEqual([
        expect.stringMatching(
          /^Subagent "fixer" \(.*fixer\.md\) asks for permissionMode bypassPermissions, which would loosen the session's default: an agent file cannot/,
        ),
      ]);
      expect(toolTexts(model.requests[2]?.messages ?? [])[0]).toMatch(/cannot wait for the user's approval/);
      await expect(readFile(join(root, "fixed.ts"), "utf8")).rejects.toThrow(/ENOENT/);
    } finally {
      await agent.close();
    }
  });

  it("permissionMode: dontAsk denies what the session would ask, without asking the person", async () => {
    await agentFiles({ "bot.md": "---\nname: ci-bot\ndescription: Runs unattended.\npermissionMode: dontAsk\n---\nDo the task.\n" });
    const model = new FakeModel([
      reply("", start("ci-bot", "Write the report.")),
      reply("", toolCall("Write", { file_path: "report.md", content: "x" }, "w1")),
      "Could not write.",
      "Done.",
    ]);
    const asked: string[] = [];
    const agent = await create(model, {
      askPerson: ({ toolCall }) => {
        asked.push(toolCall.name);
        return { behavior: "allow" };
      },
    });
    try {
      await agent.run("Report.");
      expect(asked).toEqual([]);
      expect(toolTexts(model.requests[2]?.messages ?? [])[0]).toMatch(/runs in dontAsk mode \(its permissionMode\)/);
      await expect(readFile(join(root, "report.md"), "utf8")).rejects.toThrow(/ENOENT/);
    } finally {
      await agent.close();
    }
  });

  it("maxTurns limits its model calls; Task(type) lets its Agent tool start that type only; WebSearch is one of its tools", async () => {
    await agentFiles({
      "test-runner.md": testRunnerFile.replace("maxTurns: 8", "maxTurns: 1"),
      "researcher.md": researcherFile,
      "reviewer.md": reviewerFile,
    });
    const model = new FakeModel([
      reply("", start("test-runner", "Run the tests.")),
      reply("", toolCall("Read", { file_path: "package.json" }, "r1")),
      reply("", start("web-researcher", "How does yaml parse anchors?")),
      "Anchors are resolved by the parser.",
      "Done.",
    ]);
    const agent = await create(model, { mode: "bypassPermissions" });
    try {
      const result = await agent.run("Test, then research.");
      expect(toolTexts(result.messages)[0]).toMatch(/reached its limit of 1 model calls/);
      const researcherTools = model.requests[3]?.tools ?? [];
      expect(researcherTools.map((tool) => tool.name)).toEqual(["Read", "WebFetch", "WebSearch", "NotebookEdit", "Agent"]);
      const nested = researcherTools.find((tool) => tool.name === "Agent")?.parameters as {
        properties: { subagent_type: { enum: string[] } };
      };
      expect(nested.properties.subagent_type.enum).toEqual(["code-reviewer"]);
      expect(agent.warnings).toEqual([
        expect.stringMatching(/researcher\.md, line 4: the tools entry "Bash\(curl:\*\)" is left out/),
        expect.stringMatching(/test-runner\.md, line 7: `skills` \(a Claude Code key\) is not supported by minagent/),
        expect.stringMatching(/test-runner\.md, line 9: `memory` \(a Claude Code key\) is not supported by minagent/),
        expect.stringMatching(
          /^Subagent "web-researcher" \(.*\) asks for the model "claude-haiku-4-5", which has no equivalent for the session's provider \(fake\)/,
        ),
        expect.stringMatching(/^Subagent "code-reviewer" \(.*\) asks for the model "sonnet", which has no equivalent/),
      ]);
    } finally {
      await agent.close();
    }
  });

  it("its hooks run beside the session's: PreToolUse denies, PostToolUse sees the result, Stop sends it back once", async () => {
    const folder = await makeScriptFolder();
    try {
      const guard = await folder.script(
        "no-publish.sh",
        'input=$(cat)\ncase "$input" in *publish*) echo "Publishing is not part of the checklist." >&2; exit 2;; esac\nexit 0',
      );
      const log = await folder.script(
        "log-command.sh",
        `cat >> ${JSON.stringify(folder.path("log.jsonl"))}\necho >> ${JSON.stringify(folder.path("log.jsonl"))}`,
      );
      const checklist = await folder.script(
        "checklist-done.sh",
        `if [ -f ${JSON.stringify(folder.path("asked"))} ]; then exit 0; fi\ntouch ${JSON.stringify(folder.path("asked"))}\necho "Check the changelog too." >&2\nexit 2`,
      );
      await agentFiles({ "release-checker.md": releaseCheckerFile({ guard, log, checklist }) });
      const model = new FakeModel([
        reply("", start("release-checker", "Is 1.2.0 ready?")),
        reply("", toolCall("Bash", { command: "npm publish" }, "b1")),
        reply("", toolCall("Bash", { command: "echo version 1.2.0" }, "b2")),
        "Ready.",
        "Ready, and the changelog has 1.2.0.",
        "It is ready.",
      ]);
      const seenBySession: string[] = [];
      const agent = await create(model, {
        mode: "bypassPermissions",
        hooks: {
          PreToolUse: [
            {
              hooks: [
                {
                  type: "function",
                  run: ({ toolName, toolInput }) => void seenBySession.push(`${toolName} ${String(toolInput.command ?? "")}`.trim()),
                },
              ],
            },
          ],
        },
      });
      try {
        const result = await agent.run("Check the release.");
        const child = model.requests[4]?.messages ?? [];
        expect(toolTexts(child)[0]).toContain("Publishing is not part of the checklist.");
        expect(toolTexts(child)[1]).toContain("version 1.2.0");
        expect(child.at(-1)).toMatchObject({ role: "user", content: expect.stringContaining("Check the changelog too.") });
        expect(toolTexts(result.messages)).toEqual(["Ready, and the changelog has 1.2.0."]);
        // The session's own hook saw the parent's call and the subagent's allowed one (its file's guard denied the other first).
        expect(seenBySession).toEqual(["Agent", "Bash echo version 1.2.0"]);
        const logged = (await folder.read("log.jsonl"))
          .trim()
          .split("\n")
          .map((line) => JSON.parse(line));
        expect(logged).toEqual([
          expect.objectContaining({ hook_event_name: "PostToolUse", tool_input: { command: "echo version 1.2.0" } }),
        ]);
      } finally {
        await agent.close();
      }
    } finally {
      await folder.remove();
    }
  });
});
