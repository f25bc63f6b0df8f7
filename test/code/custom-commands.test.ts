import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { splitCommandParts } from "../../src/code/commands/command-parts.js";
import { type CommandExpansionTools, describeProjectCommandRules } from "../../src/code/commands/index.js";
import {
  CodingAgent,
  customCommandSet,
  expandCustomCommand,
  loadCustomCommands,
  parseCustomCommand,
  parseSlashInput,
  splitCommandArguments,
  substituteArguments,
} from "../../src/code/index.js";
import { type AgentEvent, FakeModel, type Model } from "../../src/index.js";
import { reply, toolCall } from "../../src/testing/index.js";
import { writeCommandProject, writeFiles } from "./custom-commands-fixtures.js";
import { createTemporaryWorkspace, removeTemporaryWorkspace, type TemporaryWorkspace } from "./helpers/temporary-workspace.js";

let temporary: TemporaryWorkspace;
let root: string;
let claude: string;
let user: string;
beforeEach(async () => {
  temporary = await createTemporaryWorkspace("custom-commands");
  root = temporary.root;
  claude = join(temporary.base, "claude-home");
  user = join(temporary.base, "minagent-home");
  await writeCommandProject(root, claude);
});
const agents: CodingAgent[] = [];
afterEach(async () => {
  await Promise.all(agents.splice(0).map((agent) => agent.close()));
  await removeTemporaryWorkspace(temporary.base);
});

const bases = () => ({ root, home: temporary.base });
const location = (name: string, source = `${root}/.claude/commands/${name}.md`) =>
  ({ name, scope: "project", source, bases: bases() }) as const;

async function createAgent(model: Model, options: Partial<Parameters<typeof CodingAgent.create>[1]> = {}): Promise<CodingAgent> {
  const agent = await CodingAgent.create(model, {
    workspace: root,
    settingsFiles: [],
    userDirectory: user,
    claudeDirectory: claude,
    home: temporary.base,
    sandbox: false,
    subagents: false,
    ...options,
  });
  agents.push(agent);
  return agent;
}

describe("loading command files", () => {
  test("the project's files, a namespaced one and the user's, with Claude Code's descriptions, hints and rules", async () => {
    const commands = await loadCustomCommands({ root, claudeDirectory: claude, userDirectory: user, home: temporary.base });
    expect(commands.list.map((command) => `${command.name} ${command.scope}:${command.namespace}`)).toEqual([
      "explain project:",
      "frontend:component project:frontend",
      "help project:",
      "review project:",
      "standup user:",
    ]);
    const review = commands.find("review");
    expect(review).toMatchObject({
      description: "Review a file's uncommitted changes before they are committed",
      // Unquoted, `[file]` is a YAML list; the hint is text to show, as Claude Code shows it.
      argumentHint: "[file]",
      allowedTools: ["Bash(git diff:*)"],
      source: join(root, ".claude/commands/review.md"),
    });
    // A namespaced command answers to its last part too, while no other command has it.
    expect(commands.find("component")?.name).toBe("frontend:component");
    expect(commands.find("frontend:component")?.argumentHint).toBe("<Name> <kind>");
    expect(commands.find("standup")?.source).toBe(join(claude, "commands/standup.md"));
  });

  test("a file whose front matter is not YAML is left out with a warning naming it and the line; the session starts", async () => {
    const commands = await loadCustomCommands({ root, claudeDirectory: claude, userDirectory: user });
    expect(commands.find("deploy")).toBeUndefined();
    expect(commands.warnings).toEqual([
      expect.stringMatching(
        new RegExp(
          `^Custom command file ${join(root, ".claude/commands/deploy.md")}, line 2: invalid YAML .*put a value that holds \`: \` in quotes.*\\(skipped: fix its front matter to use it\\)$`,
        ),
      ),
    ]);
    const agent = await createAgent(new FakeModel([]));
    expect(agent.warnings).toContain(commands.warnings[0]);
    expect(agent.commands.find("review")).toBeDefined();
  });

  test("keys minagent does not act on and a rule that does not parse are warnings naming the file and key; the rest applies", () => {
    const text = `---
description: Fix a GitHub issue
allowedTools: Bash(gh issue view:*), Bash(npm test, Read
model: haiku
context: fork
descripton: typo
argument_hint: <issue>
---
Fix issue $0.`;
    const { command, warnings } = parseCustomCommand(text, location("fix-issue"));
    expect(command).toMatchObject({
      description: "Fix a GitHub issue",
      argumentHint: "<issue>",
      allowedTools: ["Bash(gh issue view:*)"],
      // Kept for the agent, which maps it to the session's provider (no warning here: that depends on the session).
      model: "haiku",
    });
    const file = `${root}/.claude/commands/fix-issue.md`;
    expect(warnings).toEqual([
      `Custom command /fix-issue (${file}): context: minagent does not support a forked context for commands yet; the command runs without it`,
      expect.stringMatching(
        /^Custom command \/fix-issue \(.*\): descripton: an unknown front matter key, ignored \(the keys used: description, argument-hint/,
      ),
      expect.stringMatching(/: allowed-tools: Invalid permission rule "Bash\(npm test, Read" .* This rule is left out/),
    ]);
  });

  test("a user's command replaces the project's of the same name (with a warning); at one level minagent's replaces Claude Code's", async () => {
    await writeFiles(root, { ".minagent/commands/explain.md": "Explain it the minagent way." });
    await writeFiles(user, { "commands/review.md": "---\ndescription: My own review\n---\nReview $ARGUMENTS my way." });
    const commands = await loadCustomCommands({ root, claudeDirectory: claude, userDirectory: user });
    expect(commands.find("explain")).toMatchObject({ description: "Explain it the minagent way.", scope: "project" });
    expect(commands.find("review")).toMatchObject({ description: "My own review", scope: "user" });
    expect(commands.warnings).toContain(
      `Custom command /review: ${join(user, "commands/review.md")} replaces the project's ${join(root, ".claude/commands/review.md")} (a user's command wins over a project's of the same name, as in Claude Code); rename one of them to keep both.`,
    );
    // Without claudeDirectory (CodingAgent's `claudeDirectory: false`), Claude Code's folders are not read.
    const ours = await loadCustomCommands({ root, userDirectory: user });
    expect(ours.list.map((command) => command.name)).toEqual(["explain", "review"]);
  });

  test("a last part two namespaces share finds neither; a full name always finds its command", () => {
    const parsed = (name: string) => parseCustomCommand("Build it.", location(name)).command;
    const commands = customCommandSet([parsed("frontend:build"), parsed("backend:build"), parsed("test")]);
    expect(commands.find("build")).toBeUndefined();
    expect(commands.find("backend:build")?.name).toBe("backend:build");
    expect(commands.find("test")?.description).toBe("Build it.");
  });
});

describe("arguments", () => {
  test("$ARGUMENTS is the text as typed; $0, $1 count from 0 and take quoted words whole; a missing one stays", () => {
    const body = "Migrate $0 from $1 to $2 ($ARGUMENTS), then tell $3.";
    expect(substituteArguments(body, `SearchBar "React 18" Vue`)).toBe(
      `Migrate SearchBar from React 18 to Vue (SearchBar "React 18" Vue), then tell $3.`,
    );
    expect(substituteArguments("Issue #$ARGUMENTS[0], priority $ARGUMENTS[1]", "123 high")).toBe("Issue #123, priority high");
    expect(splitCommandArguments(`a 'b c' "d \\"e\\"" f\\ g`)).toEqual(["a", "b c", 'd "e"', "f g"]);
  });

  test("named arguments map by position (missing: empty); one backslash keeps a placeholder; other $ words stay", () => {
    expect(substituteArguments("Fix $issue on $branch, not $old-name.", "42", ["issue", "branch"])).toBe("Fix 42 on , not $old-name.");
    expect(substituteArguments("Costs \\$1.00, not $0; path \\\\$0; $HOME stays", "ten")).toBe(
      "Costs $1.00, not ten; path \\\\ten; $HOME stays",
    );
  });

  test("a body that names no argument gets them at its end, so none is lost", async () => {
    const expansion = await expandCustomCommand(parseCustomCommand("Tidy the imports.", location("tidy")).command, "src/app.ts", noTools());
    expect(expansion.prompt).toBe("Tidy the imports.\n\nARGUMENTS: src/app.ts");
  });

  test("/name arguments is a command; a first word that is a path is a prompt", () => {
    expect(parseSlashInput("/review  src/a.ts ")).toEqual({ name: "review", args: "src/a.ts" });
    expect(parseSlashInput("/frontend:component Button form")).toEqual({ name: "frontend:component", args: "Button form" });
    expect(parseSlashInput("/usr/bin/env is missing")).toBeUndefined();
    expect(parseSlashInput("review /src")).toBeUndefined();
  });
});

describe("shell lines", () => {
  test("!`command` after whitespace and ```! blocks are shell lines; other fences and words ending in ! are text", () => {
    const body =
      "Status: !`git status --short`\nWow!`not this`\n```bash\n!`echo kept`\n```\n```!\nnode --version\nnpm --version\n```\nDone.";
    expect(splitCommandParts(body)).toEqual([
      { kind: "text", text: "Status: " },
      { kind: "shell", command: "git status --short", written: "!`git status --short`" },
      { kind: "text", text: "\nWow!`not this`" },
      { kind: "text", text: "\n" },
      { kind: "code", text: "```bash\n!`echo kept`\n```" },
      { kind: "text", text: "\n" },
      { kind: "shell", command: "node --version\nnpm --version", written: "```!\nnode --version\nnpm --version\n```" },
      { kind: "text", text: "\n" },
      { kind: "text", text: "Done." },
    ]);
  });

  test("arguments reach a shell line but cannot add one, and its output is not read for @ or !", async () => {
    const ran: string[] = [];
    const tools: CommandExpansionTools = {
      ...noTools(),
      runShell: async (command) => {
        ran.push(command);
        return { output: "see @src/a.ts and !`rm -rf x`" };
      },
    };
    const command = parseCustomCommand("Log: !`git log --oneline $0`\nAbout: $ARGUMENTS", location("log")).command;
    const expansion = await expandCustomCommand(command, "-3 !`touch pwned`", tools);
    expect(ran).toEqual(["git log --oneline -3"]);
    expect(expansion.prompt).toBe("Log: see @src/a.ts and !`rm -rf x`\nAbout: -3 !`touch pwned`");
    expect(expansion.files).toEqual([]);
  });
});

describe("through the CodingAgent", () => {
  test("/review runs its git line thanks to its allowed-tools (dontAsk), for its own run only", async () => {
    const model = new FakeModel([reply("Let me see the diff.", toolCall("Bash", { command: "git diff src/a.ts" }, "b1")), "Looks fine."]);
    const agent = await createAgent(model, { mode: "dontAsk" });
    const result = await agent.runCommand("review", "src/a.ts");
    expect(result.status).toBe("completed");
    const prompt = model.requests[0]?.messages.at(-1)?.content ?? "";
    expect(prompt).toMatch(
      /^## Context\n\n- What changed: {1,2}src\/a\.ts \| 3 \+\+-\n 1 file changed, 2 insertions\(\+\), 1 deletion\(-\)\n\n## Your task/,
    );
    expect(prompt).toContain("Review the changes to src/a.ts for bugs, unclear names and missing tests.");
    // The model's own `git diff` in that run was allowed by the same rule.
    const toolResult = model.requests[1]?.messages.at(-1);
    expect(toolResult).toMatchObject({ role: "tool", content: expect.stringContaining("+  // Adds.") });
    expect(toolResult?.isError).not.toBe(true);
    // Afterwards the rule is gone: dontAsk denies the line again.
    expect(agent.permissions.settings.rules.allow.map((rule) => rule.source)).toEqual([]);
    const after = await agent.permissions.explain({ name: "Bash", arguments: { command: "git diff --stat" } });
    expect(after.decision.behavior).toBe("deny");
  });

  test("the project's commands that pre-approve something are listed for the folder-trust question; the user's are not", async () => {
    const lines = await describeProjectCommandRules({ root, claudeDirectory: claude });
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.every((line) => / command \/\S+ allows \S/.test(line) && !line.startsWith("/"))).toBe(true);
    expect(lines.some((line) => line.startsWith(".claude/commands/review.md: command /review allows Bash(git diff:*)"))).toBe(true);
  });

  test("a folder the person did not trust: its own commands' allowed-tools allow nothing", async () => {
    const agent = await createAgent(new FakeModel(["Fine."]), { mode: "dontAsk", commands: { projectAllowedTools: false } });
    const expansion = await agent.expandCommand("review", "src/a.ts");
    // The git line of /review is not pre-approved: dontAsk denies it, and the prompt says so.
    expect(expansion.prompt).toContain("did not run: Permission denied");
    expect(expansion.prompt).not.toContain("1 file changed");
  });

  test("a shell line the permissions refuse leaves a note; one that needs approval is put to the person", async () => {
    await writeFiles(root, { ".minagent/commands/scaffold.md": "Prepared: !`touch made-by-command.txt`\nNow fill it in." });
    const refused = await createAgent(new FakeModel([]), { mode: "dontAsk" });
    const denied = await refused.expandCommand("scaffold");
    expect(denied.prompt).toMatch(/^Prepared: \[!`touch made-by-command\.txt` did not run: Permission denied: .*dontAsk mode denies/);
    expect(denied.notes).toHaveLength(1);

    const asked: unknown[] = [];
    const agent = await createAgent(new FakeModel([]), {
      askPerson: (request) => {
        asked.push(request.toolCall);
        return { behavior: "deny", message: "Not now." };
      },
    });
    const expansion = await agent.expandCommand("scaffold");
    expect(asked).toEqual([
      expect.objectContaining({
        name: "Bash",
        arguments: { command: "touch made-by-command.txt", description: "a shell line of /scaffold, run before its prompt is sent" },
      }),
    ]);
    expect(expansion.prompt).toBe("Prepared: [!`touch made-by-command.txt` did not run: Not now.]\nNow fill it in.");
    expect(existsSync(join(root, "made-by-command.txt"))).toBe(false);

    // A library agent without askPerson cannot ask anyone: the line does not run.
    const alone = await createAgent(new FakeModel([]));
    expect((await alone.expandCommand("scaffold")).notes).toEqual([
      expect.stringMatching(/^!`touch made-by-command\.txt` did not run: it needs approval .*and there is nobody to ask here$/),
    ]);
  });

  test("@file includes the file as Read shows it (and counts as read for Edit); what is denied, outside or missing is a note", async () => {
    await writeFiles(temporary.outside, { "notes.txt": "outside" });
    await writeFiles(root, {
      "secrets/key.txt": "sk-live-123",
      ".minagent/commands/audit.md": "Audit @src/a.ts, @secrets/key.txt, @../outside/notes.txt and @src/missing.ts; mind @types/node.",
    });
    const model = new FakeModel([
      reply("", toolCall("Edit", { file_path: "src/a.ts", old_string: "b + a", new_string: "a + b" }, "e1")),
      "Fixed the order.",
    ]);
    const agent = await createAgent(model, { mode: "acceptEdits", rules: { deny: ["Read(./secrets/**)"] } });
    const notes: string[][] = [];
    const result = await agent.runCommand("audit", "", { onExpanded: (expansion) => notes.push([...expansion.notes]) });
    const prompt = model.requests[0]?.messages.at(-1)?.content ?? "";
    expect(prompt).toContain('<file path="src/a.ts">\n     1\texport function add(a: number, b: number): number {\n     2\t  // Adds.\n');
    expect(prompt).not.toContain("sk-live-123");
    expect(prompt).not.toContain("outside\n");
    expect(notes[0]).toEqual([
      expect.stringMatching(/^@secrets\/key\.txt was not included: Permission denied: .*Read\(\.\/secrets\/\*\*\)/),
      expect.stringMatching(/^@\.\.\/outside\/notes\.txt was not included: .*outside the workspace/),
      "@src/missing.ts was not included: there is no such file.",
    ]);
    expect(prompt).toContain("[@src/missing.ts was not included: there is no such file.]");
    // Edit needs the file read first: the include was that read.
    expect(model.requests[1]?.messages.at(-1)).toMatchObject({ role: "tool", content: expect.stringMatching(/^Edited src\/a\.ts/) });
    expect(result.final).toBe("Fixed the order.");
  });

  test("/component finds frontend:component and counts its arguments from 0; /explain includes its file and gets its arguments appended", async () => {
    const agent = await createAgent(new FakeModel([]));
    const component = await agent.expandCommand("component", `Button "form control"`);
    expect(component.prompt).toBe(
      "Create a React form control component named Button in src/components/Button.tsx, with a test in src/components/Button.test.tsx.\nKeep to the patterns of the existing components.",
    );
    const explain = await agent.expandCommand("/explain", "briefly");
    expect(explain.prompt).toMatch(
      /^Explain what @src\/a\.ts does and who calls it, in a few sentences\.\n\nARGUMENTS: briefly\n\n<file path="src\/a\.ts">\n {5}1\texport function add/,
    );
    expect(explain.files).toEqual(["src/a.ts"]);
  });

  test("an unknown name is a UsageError naming the commands there are; commands: false reads none", async () => {
    const agent = await createAgent(new FakeModel([]));
    await expect(agent.runCommand("reveiw")).rejects.toThrow(
      "No custom command /reveiw: the custom commands are /explain, /frontend:component, /help, /review, /standup.",
    );
    const none = await createAgent(new FakeModel([]), { commands: false });
    expect(none.commands.list).toEqual([]);
    expect(none.warnings.join("\n")).not.toContain("deploy.md");
  });
});

describe("a command's model", () => {
  const fixCommand = "---\nmodel: haiku\n---\nFix issue #$0.";
  /** A scripted model that says it is `modelId` of Anthropic, as the session's or a command's would. */
  const named = (modelId: string, fake: FakeModel): Model => ({
    provider: "anthropic",
    modelId,
    complete: (messages, tools, options) => fake.complete(messages, tools, options),
  });
  const lastPrompt = (fake: FakeModel, call: number) => fake.requests[call]?.messages.at(-1)?.content;

  test("answers the command's run; the session's model answers the next prompt, also after a command whose run threw", async () => {
    await writeFiles(root, { ".minagent/commands/fix.md": fixCommand });
    const sonnet = new FakeModel(["Anything else?", "Still here."]);
    const haiku = new FakeModel([
      reply("Looking.", toolCall("Read", { file_path: "src/a.ts" }, "r1")),
      "Fixed #42.",
      () => {
        throw new Error("overloaded");
      },
    ]);
    const made: string[] = [];
    const models: unknown[] = [];
    const agent = await createAgent(named("claude-sonnet-4-6", sonnet), {
      subagents: {
        resolveModel: (spec) => {
          made.push(spec);
          return named("claude-haiku-4-5", haiku);
        },
      },
    });
    const onEvent = (event: AgentEvent) => {
      if (event.type === "run-start") models.push(event.model.modelId);
    };

    const fixed = await agent.runCommand("fix", "42", { onEvent });
    expect(fixed.final).toBe("Fixed #42.");
    // Both of the command's model calls (its tool call's turn too) were Haiku's.
    expect(haiku.requests).toHaveLength(2);
    expect(lastPrompt(haiku, 0)).toBe("Fix issue #42.");
    expect(sonnet.requests).toHaveLength(0);

    const next = await agent.run("Thanks.", { history: fixed.messages, onEvent });
    expect(next.final).toBe("Anything else?");
    // The session's model reads the whole conversation, the command's turn included.
    expect(sonnet.requests[0]?.messages.map((message) => message.role)).toEqual([
      "system",
      "user",
      "assistant",
      "tool",
      "assistant",
      "user",
    ]);

    await expect(agent.runCommand("fix", "43")).rejects.toThrow("overloaded");
    expect(lastPrompt(haiku, 2)).toBe("Fix issue #43.");
    expect((await agent.run("Are you there?", { onEvent })).final).toBe("Still here.");
    expect(sonnet.requests).toHaveLength(2);
    // Made once, mapped to the session's provider; each run said which model answered it.
    expect(made).toEqual(["anthropic:claude-haiku-4-5"]);
    expect(models).toEqual(["claude-haiku-4-5", "claude-sonnet-4-6", "claude-sonnet-4-6"]);
    expect(agent.agent.model.modelId).toBe("claude-sonnet-4-6");
  });

  test("a provider with no match runs it on the session's model with one warning; the session's own model needs no other", async () => {
    await writeFiles(root, { ".minagent/commands/fix.md": fixCommand });
    const made: string[] = [];
    const resolveModel = (spec: string) => {
      made.push(spec);
      return new FakeModel([]);
    };
    const local = new FakeModel(["Fixed locally."]);
    const agent = await createAgent(local, { subagents: { resolveModel } });
    expect(agent.warnings).toContain(
      `Custom command /fix (${join(root, ".minagent/commands/fix.md")}): asks for the model "haiku", which has no equivalent for the session's provider (fake): the session's model (fake-model) runs it`,
    );
    expect((await agent.runCommand("fix", "42")).final).toBe("Fixed locally.");
    expect(lastPrompt(local, 0)).toBe("Fix issue #42.");

    const haiku = new FakeModel(["Fixed on the session's Haiku."]);
    const same = await createAgent(named("claude-haiku-4-5", haiku), { subagents: { resolveModel } });
    expect(same.warnings.join("\n")).not.toContain("/fix");
    expect((await same.runCommand("fix", "42")).final).toBe("Fixed on the session's Haiku.");
    expect(made).toEqual([]);
  });

  test("a model that cannot be made is a UsageError naming the command, before its shell lines run or anything is sent", async () => {
    await writeFiles(root, { ".minagent/commands/fix.md": "---\nmodel: openai:gpt-5\n---\n!`touch ran.txt`\nFix issue #$0." });
    const session = new FakeModel([]);
    const agent = await createAgent(session, {
      mode: "bypassPermissions",
      subagents: {
        resolveModel: () => {
          throw new Error("openai:gpt-5 needs an API key. Set the OPENAI_API_KEY environment variable");
        },
      },
    });
    await expect(agent.runCommand("fix", "42")).rejects.toThrow(
      `Custom command /fix (${join(root, ".minagent/commands/fix.md")}) asks for the model "openai:gpt-5", which could not be made: openai:gpt-5 needs an API key. Set the OPENAI_API_KEY environment variable. Fix its model line, or remove it to run on the session's model.`,
    );
    expect(existsSync(join(root, "ran.txt"))).toBe(false);
    expect(session.requests).toHaveLength(0);
  });
});

function noTools(): CommandExpansionTools {
  return {
    readFile: async () => undefined,
    runShell: async () => ({ note: "no shell here" }),
  };
}
