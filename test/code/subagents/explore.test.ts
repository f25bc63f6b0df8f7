import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createBashTool,
  createCodePermissions,
  createEditTool,
  createGlobTool,
  createGrepTool,
  createReadTool,
  createWriteTool,
  Workspace,
} from "../../../src/code/index.js";
import { loadBashParser } from "../../../src/code/permissions/index.js";
import {
  asReadOnlyTool,
  builtInSubagents,
  createAgentTool,
  exploreSubagent,
  isReadOnlyBashCommand,
} from "../../../src/code/subagents/index.js";
import { FakeModel, type Message, type Tool, ToolRegistry } from "../../../src/index.js";
import { reply, toolCall } from "../../../src/testing/index.js";

let root: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "minagent-explore-"));
  mkdirSync(join(root, "src"));
  writeFileSync(join(root, "src", "math.js"), "export const add = (a, b) => a + b;\n");
  writeFileSync(join(root, "keep.txt"), "keep me\n");
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("the built-in Explore subagent", () => {
  it("reads with Read, Grep, Glob and read-only Bash; a command that may change things is denied before the permissions ask", async () => {
    const workspace = new Workspace({ root });
    const permissions = await createCodePermissions({ workspace, settingsFiles: [] });
    const tools: Record<string, Tool> = {
      Read: createReadTool(workspace),
      Write: createWriteTool(workspace),
      Edit: createEditTool(workspace),
      Glob: createGlobTool(workspace),
      Grep: createGrepTool(workspace),
      Bash: createBashTool(workspace),
    };
    const asked: string[] = [];
    const childModel = new FakeModel([
      reply(
        "",
        toolCall("Bash", { command: "ls src && wc -l src/math.js" }, "b1"),
        toolCall("Bash", { command: "rm keep.txt" }, "b2"),
        toolCall("Bash", { command: "echo hi > made.txt" }, "b3"),
        toolCall("Grep", { pattern: "add", output_mode: "content" }, "g1"),
        toolCall("Write", { file_path: "made.txt", content: "x" }, "w1"),
      ),
      "add is defined in src/math.js, line 1.",
    ]);
    const parentModel = new FakeModel([
      reply("", toolCall("Agent", { description: "find add", prompt: "Where is add defined?", subagent_type: "Explore" }, "a1")),
      "In src/math.js.",
    ]);
    const agentTool = createAgentTool({
      model: parentModel,
      resolveModel: () => childModel,
      definitions: builtInSubagents.map((definition) => (definition.name === "Explore" ? { ...definition, model: "child" } : definition)),
      toolNames: Object.keys(tools),
      buildTools: (names) => names.map((name) => tools[name] as Tool),
      // The session's check, as CodingAgent composes it with askPerson: here the person would be asked.
      canUseTool: async (call, context) => {
        const decision = await permissions.canUseTool(call, context);
        if (decision.behavior === "ask") asked.push(String(call.arguments.command ?? call.name));
        return decision;
      },
    });
    expect(agentTool.readOnlyCall({ subagent_type: "Explore" })).toBe(true);
    expect(agentTool.readOnlyCall({ subagent_type: "general-purpose" })).toBe(false);
    const answer = await new ToolRegistry({ orderEffects: true })
      .add(agentTool)
      .call(toolCall("Agent", { description: "find add", prompt: "Where is add defined?", subagent_type: "Explore" }), {});
    expect(answer).toBe("add is defined in src/math.js, line 1.");

    // Offered Read, Grep, Glob and Bash only: no Write, no Edit, no Agent.
    expect(childModel.requests[0]?.tools.map((tool) => tool.name)).toEqual(["Read", "Grep", "Glob", "Bash"]);
    const results = new Map(
      (childModel.requests[1]?.messages ?? [])
        .filter((message: Message) => message.role === "tool")
        .map((message) => [message.toolCallId, message]),
    );
    expect(results.get("b1")?.content).toMatch(/math\.js[\s\S]*1 src\/math\.js[\s\S]*Exit code: 0/);
    expect(results.get("b2")).toMatchObject({
      isError: true,
      content: expect.stringMatching(/^The Explore subagent is read-only: .*`rm keep\.txt` may change things/),
    });
    expect(results.get("b3")).toMatchObject({ isError: true, content: expect.stringMatching(/`echo hi > made\.txt` may change things/) });
    expect(results.get("g1")?.content).toContain("src/math.js:1:export const add");
    expect(results.get("w1")).toMatchObject({
      isError: true,
      content: expect.stringMatching(/^Tool "Write" is not available at this step|^Unknown tool "Write"/),
    });
    expect(existsSync(join(root, "keep.txt"))).toBe(true);
    expect(existsSync(join(root, "made.txt"))).toBe(false);
    expect(asked).toEqual([]); // nothing was put to the person
  });

  it("is read-only as its definition says; a read-only type that may start subagents is offered read-only types only", async () => {
    expect(exploreSubagent).toMatchObject({ name: "Explore", tools: ["Read", "Grep", "Glob", "Bash"], readOnly: true, source: "built-in" });
    const workspace = new Workspace({ root });
    const tools: Record<string, Tool> = { Read: createReadTool(workspace), Write: createWriteTool(workspace) };
    const model = new FakeModel(["Nothing to report."]);
    const surveyor = {
      name: "surveyor",
      description: "Surveys.",
      prompt: "Survey.",
      tools: ["Read", "Agent"],
      readOnly: true,
      source: "test",
    };
    const agentTool = createAgentTool({
      model,
      definitions: [...builtInSubagents, surveyor],
      toolNames: Object.keys(tools),
      buildTools: (names) => names.map((name) => tools[name] as Tool),
    });
    expect(agentTool.subagents().map(({ name, tools, readOnly, isDefault }) => ({ name, tools, readOnly, isDefault }))).toEqual([
      { name: "general-purpose", tools: ["Read", "Write", "Agent"], readOnly: false, isDefault: true },
      { name: "Explore", tools: ["Read"], readOnly: true, isDefault: false }, // the tools it names that exist
      { name: "surveyor", tools: ["Read", "Agent"], readOnly: true, isDefault: false },
    ]);
    await new ToolRegistry()
      .add(agentTool)
      .call(toolCall("Agent", { description: "survey", prompt: "Go.", subagent_type: "surveyor" }), {});
    const nested = model.requests[0]?.tools.find((tool) => tool.name === "Agent");
    expect(nested?.parameters.properties).toMatchObject({ subagent_type: { enum: ["Explore", "surveyor"] } });
    expect(nested?.description).toContain("- Explore (default) [read-only]:");
  });
});

describe("isReadOnlyBashCommand", () => {
  it("accepts what the permission modes know as read-only, and nothing that writes, runs programs or cannot be judged", async () => {
    const parser = await loadBashParser();
    const readOnly = [
      "ls -la src",
      "cat a.txt | head -5",
      "grep -rn add src 2>/dev/null",
      "wc -l < a.txt",
      "cd src && ls",
      "command -v node",
      "LANG=C ls",
      "printf '%s\\n' x",
      "printf -v LANG %s C",
    ];
    const changing = [
      "rm a.txt",
      "echo hi > b.txt",
      "ls >> log.txt",
      "git status",
      "find . -delete",
      "sed -i s/a/b/ x",
      "npm test",
      "eval ls",
      "bash -c ls",
      "$CMD",
      "ls | xargs rm",
      "PATH=/tmp ls",
      "cat $(rm x)",
      "ls (",
      "printf -v PATH . && cat a.txt",
      "printf -vPATH .",
      "read PATH < a.txt",
      "mapfile -t lines < a.txt",
      "readarray lines",
      "declare PATH=/tmp",
      "typeset -x PATH",
      "export PATH=/tmp",
      "local x=1",
      "let x=1",
    ];
    expect(readOnly.filter((command) => !isReadOnlyBashCommand(parser, command))).toEqual([]);
    expect(changing.filter((command) => isReadOnlyBashCommand(parser, command))).toEqual([]);
  });
});

describe("asReadOnlyTool", () => {
  it("marks a tool read-only and keeps what a wrapper inherits from it (PostToolUse hooks wrap with Object.create)", () => {
    const bash = createBashTool(new Workspace({ root }));
    const wrapped = Object.create(bash, { execute: { value: () => "wrapped", enumerable: true } }) as Tool;
    const readOnly = asReadOnlyTool(wrapped);
    expect(readOnly).toMatchObject({ name: "Bash", readOnly: true, parameters: bash.parameters });
    expect(readOnly.execute({}, {} as never)).toBe("wrapped");
    expect(bash.readOnly).toBeFalsy();
  });
});
