// minagent's own tools set `compileOnFirstCall`, so that a session's start compiles no schema it may never use. Their
// schemas are then checked nowhere else before a call: this suite compiles every one, as `ToolRegistry.add` would.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { CodingAgent } from "../../../src/code/index.js";
import { checkToolParameters, FakeModel, type Tool, ToolRegistry } from "../../../src/index.js";
import { ToolDeferral } from "../../../src/mcp/defer-tools.js";
import { createResourceTools } from "../../../src/mcp/resource-tools.js";

let project: string;
beforeEach(() => {
  project = mkdtempSync(join(tmpdir(), "minagent-shipped-schemas-"));
  // A skill the model may invoke, so that the Skill tool is offered too.
  mkdirSync(join(project, ".claude", "skills", "release-notes"), { recursive: true });
  writeFileSync(
    join(project, ".claude", "skills", "release-notes", "SKILL.md"),
    "---\nname: release-notes\ndescription: Write release notes.\n---\nList the changes.\n",
  );
});
afterEach(() => rmSync(project, { recursive: true, force: true }));

it("every tool a coding session offers has parameters that compile (each waits for its first call to do so)", async () => {
  const model = new FakeModel(["Done."]);
  const agent = await CodingAgent.create(model, { workspace: project, settingsFiles: [], userDirectory: join(project, "home") });
  await agent.run("Hello.");
  const offered = model.requests[0]?.tools ?? [];
  expect(offered.map((tool) => tool.name)).toEqual(expect.arrayContaining(["Read", "Bash", "Agent", "Skill", "EnterPlanMode"]));
  for (const tool of offered) expect(() => checkToolParameters(tool.name, tool.parameters), tool.name).not.toThrow();
});

it("so do the MCP resource tools and ToolSearch", () => {
  const resourceTools = createResourceTools({ listResources: async () => [], readResource: async () => [] } as never);
  const registry = new ToolRegistry();
  const serverTool: Tool = {
    name: "mcp__docs__search",
    description: "Search.",
    parameters: { type: "object", properties: {} },
    execute: () => "",
  };
  registry.add(serverTool);
  new ToolDeferral(true).plan(registry, [serverTool], []);
  const shipped = [...resourceTools, registry.get("ToolSearch") as Tool];
  expect(shipped.map((tool) => tool.name)).toEqual(["ListMcpResourcesTool", "ReadMcpResourceTool", "ToolSearch"]);
  for (const tool of shipped) {
    expect(tool.compileOnFirstCall).toBe(true);
    expect(() => checkToolParameters(tool.name, tool.parameters), tool.name).not.toThrow();
  }
});
