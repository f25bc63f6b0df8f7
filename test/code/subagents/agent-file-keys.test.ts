import { describe, expect, it } from "vitest";
import { parseFrontMatter, parseSubagentDefinition, subagentModelSpec } from "../../../src/code/subagents/index.js";
import {
  docsWriterFile,
  plannerFile,
  releaseCheckerFile,
  researcherFile,
  reviewerFile,
  testRunnerFile,
  triagerFile,
} from "./agent-file-fixtures.js";

// Claude Code's agent files, read unchanged: every key it documents is read or named in a warning, nested maps
// (`hooks:`, `mcpServers:`) included.

function parse(text: string, source = "/repo/.claude/agents/agent.md") {
  const warnings: string[] = [];
  const definition = parseSubagentDefinition(text, source, { onWarning: (warning) => warnings.push(warning) });
  return { definition, warnings };
}

const hookCommands = { guard: "./scripts/no-publish.sh", log: "./scripts/log-command.sh", checklist: "./scripts/checklist-done.sh" };

describe("agent files as Claude Code writes them", () => {
  it("a reviewer: a tool list, a model alias and a colour, with no warning", () => {
    expect(parse(reviewerFile)).toEqual({
      definition: {
        name: "code-reviewer",
        description: expect.stringMatching(/^Reviews the latest change/),
        tools: ["Read", "Grep", "Glob"],
        model: "sonnet",
        color: "blue",
        prompt: expect.stringMatching(/^You are a senior reviewer\.[\s\S]*Do not rewrite the code\.$/),
        source: "/repo/.claude/agents/agent.md",
      },
      warnings: [],
    });
  });

  it("hooks: nested maps and lists of maps, in the settings' JSON shape (a timeout is a number)", () => {
    const { definition, warnings } = parse(releaseCheckerFile(hookCommands));
    expect(warnings).toEqual([]);
    expect(definition.hooks).toEqual({
      PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "./scripts/no-publish.sh", timeout: 10 }] }],
      PostToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "./scripts/log-command.sh" }] }],
      Stop: [{ hooks: [{ type: "command", command: "./scripts/checklist-done.sh" }] }],
    });
    // The text view keeps every scalar as written.
    const { data } = parseFrontMatter(releaseCheckerFile(hookCommands));
    expect(data.hooks).toMatchObject({ PreToolUse: [{ hooks: [{ timeout: "10" }] }] });
  });

  it("hooks that cannot run skip the file, naming the line; an event that never happens in a subagent is a warning", () => {
    const broken = [
      "---",
      "name: guard",
      "description: d",
      "hooks:",
      "  PreToolUse:",
      "    - matcher: Bash",
      "      hooks:",
      "        - type: command",
      "---",
      "Body.",
    ];
    expect(() => parse(broken.join("\n"), "/repo/.claude/agents/guard.md")).toThrow(
      /^Subagent definition \/repo\/\.claude\/agents\/guard\.md, line 4: its hooks cannot run: .*"?hooks\.PreToolUse\[0\]\.hooks\[0\].*command.*\. Fix the file or remove it\.$/,
    );
    const session = [
      "---",
      "name: greeter",
      "description: d",
      "hooks:",
      "  SessionStart:",
      "    - hooks:",
      "        - type: command",
      "          command: echo hi",
      "---",
      "Body.",
    ];
    const { definition, warnings } = parse(session.join("\n"), "/repo/.claude/agents/greeter.md");
    expect(definition.hooks).toBeUndefined();
    expect(warnings).toEqual([
      "Subagent definition /repo/.claude/agents/greeter.md, line 4: `hooks.SessionStart` never runs inside a subagent, and is ignored (an agent file runs PreToolUse, PostToolUse and Stop).",
    ]);
  });

  it("mcpServers: names of the session's servers; an inline definition is a warning naming it", () => {
    const { definition, warnings } = parse(triagerFile, "/repo/.claude/agents/triager.md");
    expect(definition).toMatchObject({ name: "issue-triager", tools: ["Read", "Grep"], mcpServers: ["github"] });
    expect(warnings).toEqual([
      'Subagent definition /repo/.claude/agents/triager.md, line 5: the inline MCP server definition "tracker" in `mcpServers` is not supported by minagent and is ignored: configure the server in .mcp.json and name it here.',
    ]);
  });

  it("disallowedTools: a list of names taken away, with every other tool kept", () => {
    const { definition, warnings } = parse(docsWriterFile);
    expect(definition.tools).toBeUndefined();
    expect(definition.disallowedTools).toEqual(["Bash", "Write"]);
    expect(warnings).toEqual([]);
  });

  it("permissionMode: one of the five modes; auto is a warning, a misspelt mode an error", () => {
    expect(parse(plannerFile).definition.permissionMode).toBe("plan");
    const auto = parse(plannerFile.replace("permissionMode: plan", "permissionMode: auto"), "/repo/.claude/agents/planner.md");
    expect(auto.definition.permissionMode).toBeUndefined();
    expect(auto.warnings).toEqual([
      "Subagent definition /repo/.claude/agents/planner.md, line 5: `permissionMode: auto` (Claude Code's classifier) does not exist in minagent: the session's mode applies.",
    ]);
    expect(() => parse(plannerFile.replace("permissionMode: plan", "permissionMode: readonly"))).toThrow(
      /line 5: `permissionMode` is "readonly"; it must be one of default, acceptEdits, plan, dontAsk, bypassPermissions/,
    );
  });

  it("color and maxTurns are read; Claude Code's skills and memory are one warning each, an unknown key another", () => {
    const typo = testRunnerFile.replace("color: green", "color: green\ncolour: green");
    const { definition, warnings } = parse(typo, "/repo/.claude/agents/test-runner.md");
    expect(definition).toMatchObject({ name: "test-runner", color: "green", maxTurns: 8, tools: ["Bash", "Read"] });
    expect(warnings).toEqual([
      "Subagent definition /repo/.claude/agents/test-runner.md, line 6: unknown key `colour` is ignored (agent files take name, description, tools, disallowedTools, model, permissionMode, maxTurns, hooks, mcpServers, color, readOnly).",
      "Subagent definition /repo/.claude/agents/test-runner.md, line 8: `skills` (a Claude Code key) is not supported by minagent, and is ignored.",
      "Subagent definition /repo/.claude/agents/test-runner.md, line 10: `memory` (a Claude Code key) is not supported by minagent, and is ignored.",
    ]);
  });

  it("tools: Task(type) is the Agent tool limited to those types; a specifier is left out with a warning", () => {
    const { definition, warnings } = parse(researcherFile, "/repo/.claude/agents/web-researcher.md");
    // WebFetch and the others are names: whether minagent has them is known when the Agent tool is made.
    expect(definition.tools).toEqual(["Read", "WebFetch", "WebSearch", "NotebookEdit", "Agent"]);
    expect(definition.agentTypes).toEqual(["code-reviewer"]);
    expect(definition.model).toBe("claude-haiku-4-5");
    expect(warnings).toEqual([
      'Subagent definition /repo/.claude/agents/web-researcher.md, line 4: the tools entry "Bash(curl:*)" is left out: a subagent\'s tools are names (give "Bash" and limit what it may do with permission rules).',
    ]);
  });
});

describe("model aliases (subagentModelSpec)", () => {
  const anthropic = { provider: "anthropic", modelId: "claude-opus-4-6" };
  const openai = { provider: "openai", modelId: "gpt-4.1" };
  const ollama = { provider: "ollama", modelId: "qwen3:8b" };

  it("maps sonnet, opus, haiku and Claude ids to the session's provider through the table", () => {
    expect(subagentModelSpec("sonnet", anthropic)).toEqual({ kind: "resolve", spec: "anthropic:claude-sonnet-4-6" });
    expect(subagentModelSpec("haiku", anthropic)).toEqual({ kind: "resolve", spec: "anthropic:claude-haiku-4-5" });
    // The session's own model is used as it is, not made a second time.
    expect(subagentModelSpec("opus", anthropic)).toEqual({ kind: "session" });
    // An Anthropic session runs a Claude id as written; another provider maps its family.
    expect(subagentModelSpec("claude-sonnet-4-5", anthropic)).toEqual({ kind: "resolve", spec: "anthropic:claude-sonnet-4-5" });
    expect(subagentModelSpec("claude-3-5-haiku-20241022", openai)).toEqual({ kind: "resolve", spec: "openai:gpt-5-mini" });
    expect(subagentModelSpec("opus", openai)).toEqual({ kind: "resolve", spec: "openai:gpt-5" });
  });

  it("runs a provider with no match on the session's model, with a note; inherit and provider:model need none", () => {
    expect(subagentModelSpec("sonnet", ollama)).toEqual({
      kind: "session",
      note: `the model "sonnet", which has no equivalent for the session's provider (ollama): the session's model (qwen3:8b) runs it`,
    });
    expect(subagentModelSpec("inherit", ollama)).toEqual({ kind: "session" });
    expect(subagentModelSpec("anthropic:claude-haiku-4-5", ollama)).toEqual({ kind: "resolve", spec: "anthropic:claude-haiku-4-5" });
  });

  it("never lets a file choose a server: a model with a URL runs on the session's model, with a note", () => {
    expect(subagentModelSpec("openai-compatible:gpt-x@https://llm.example.com/v1", anthropic)).toEqual({
      kind: "session",
      note: `the model "openai-compatible:gpt-x@https://llm.example.com/v1" names a server, which an agent or command file may not choose (pass it with --model): the session's model (claude-opus-4-6) runs it`,
    });
    expect(subagentModelSpec("ollama:qwen3@http://10.0.0.5:11434", ollama).kind).toBe("session");
  });
});
