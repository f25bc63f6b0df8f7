import { describe, expect, it } from "vitest";
import { parseSubagentDefinition } from "../../../src/code/subagents/index.js";
import { Agent, defineTool, FakeModel, type Tool, ToolRegistry } from "../../../src/index.js";
import { reply, toolCall } from "../../../src/testing/index.js";
import { agentToolFor } from "./helpers.js";

// An agent file's MCP tools: the servers it names in `mcpServers`, the tools it names in `tools`, read from the
// session's MCP tools at each run (servers come and go), less its `disallowedTools`.

const mcpTool = (name: string): Tool =>
  defineTool({ name, description: `The ${name} tool.`, parameters: { type: "object", properties: {} }, execute: () => `${name} ran` });
const sessionMcpTools = [mcpTool("mcp__github__search_issues"), mcpTool("mcp__github__create_issue"), mcpTool("mcp__slack__post_message")];

async function toolsOfRun(file: string): Promise<{ tools: string[]; warnings: string[] }> {
  const warnings: string[] = [];
  const definition = parseSubagentDefinition(file, "/repo/.claude/agents/agent.md", { onWarning: (warning) => warnings.push(warning) });
  const model = new FakeModel([
    reply("", toolCall("Agent", { description: "triage", prompt: "Triage #12.", subagent_type: definition.name })),
    "Triaged.",
    "Done.",
  ]);
  const agentTool = agentToolFor(model, {
    definitions: [definition],
    sharedTools: () => sessionMcpTools,
    mcpServerNames: () => ["github", "slack"],
    onWarning: (warning) => warnings.push(warning),
  });
  await new Agent(model, new ToolRegistry().add(agentTool)).run("Triage.");
  return { tools: model.requests[1]?.tools.map((tool) => tool.name) ?? [], warnings };
}

const file = (front: string[]) =>
  ["---", "name: issue-triager", "description: Sorts issues.", ...front, "---", "You triage issues."].join("\n");

describe("an agent file's MCP tools", () => {
  it("mcpServers adds the named servers' tools to its tool list", async () => {
    expect(await toolsOfRun(file(["tools: echo", "mcpServers:", "  - github"]))).toEqual({
      tools: ["echo", "mcp__github__search_issues", "mcp__github__create_issue"],
      warnings: [],
    });
  });

  it("tools may name one MCP tool, or a whole server as permission rules do (mcp__slack__*); disallowedTools takes some away", async () => {
    expect((await toolsOfRun(file(["tools: echo, mcp__github__search_issues, mcp__slack__*"]))).tools).toEqual([
      "echo",
      "mcp__github__search_issues",
      "mcp__slack__post_message",
    ]);
    expect((await toolsOfRun(file(["disallowedTools: note, Agent, mcp__github__create_issue"]))).tools).toEqual([
      "echo",
      "mcp__github__search_issues",
      "mcp__slack__post_message",
    ]);
  });

  it("a server the session does not have is a warning naming it; the subagent runs without it", async () => {
    const { tools, warnings } = await toolsOfRun(file(["tools: echo", "mcpServers: [github, jira]"]));
    expect(tools).toEqual(["echo", "mcp__github__search_issues", "mcp__github__create_issue"]);
    expect(warnings).toEqual([
      'Subagent "issue-triager" (/repo/.claude/agents/agent.md) names MCP tools of servers this session does not have: jira; it runs without them (servers: github, slack)',
    ]);
  });
});
