// `@server:uri` completion at the prompt, in process: the real server-everything, a scripted model, a fake terminal.
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from "vitest";
import { runInteractiveSession } from "../../src/cli/code/interactive/index.js";
import type { CodeSessionContext } from "../../src/cli/code/session-context.js";
import { CodingAgent } from "../../src/code/coding-agent.js";
import { connectMcpServers, type McpServers } from "../../src/mcp/index.js";
import { FakeModel } from "../../src/models/fake-model.js";
import { createTemporaryWorkspace, removeTemporaryWorkspace, type TemporaryWorkspace } from "../code/helpers/temporary-workspace.js";
import { referenceServers } from "../mcp/reference-servers.js";
import { type FakeTerminal, fakeTerminal, interactiveOptions, memorySessionParts, until } from "./interactive-harness.js";

let mcp: McpServers;
beforeAll(async () => {
  mcp = await connectMcpServers({ mcpServers: { everything: referenceServers.everything() } });
}, 60_000);
afterAll(() => mcp?.close());

let temporary: TemporaryWorkspace;
const agents: CodingAgent[] = [];
beforeEach(async () => {
  temporary = await createTemporaryWorkspace("mentions-interactive");
});
afterEach(async () => {
  await Promise.all(agents.splice(0).map((agent) => agent.close()));
  await removeTemporaryWorkspace(temporary.base);
});

function setUp(script: ConstructorParameters<typeof FakeModel>[0], terminal: FakeTerminal = fakeTerminal({ columns: 120, rows: 40 })) {
  const model = new FakeModel(script);
  const context: CodeSessionContext = {
    io: { stdout: () => {}, stderr: () => {}, readLine: async () => undefined, env: { TERM: "xterm" } },
    terminal,
    model: { spec: "anthropic:claude-haiku-4-5", id: "claude-haiku-4-5", instance: model },
    options: interactiveOptions(temporary.root),
    createAgent: async (overrides) => {
      const agent = await CodingAgent.create(model, {
        workspace: temporary.root,
        settingsFiles: [],
        userDirectory: join(temporary.base, "minagent"),
        claudeDirectory: false,
        sandbox: false,
        subagents: false,
        mcp,
        rules: { allow: ["mcp__everything"] },
        ...overrides,
      });
      agents.push(agent);
      return agent;
    },
    ...memorySessionParts("session-1"),
  };
  return { context, terminal, model };
}

const userTurn = (model: FakeModel, index: number) =>
  model.requests[index]?.messages.filter((message) => message.role === "user").at(-1)?.content;

describe("@server:uri completion", () => {
  test("the hint offers the ready servers' resources that match, Tab puts one in, and the prompt attaches it", async () => {
    const { context, terminal, model } = setUp(["Read it."]);
    const exit = runInteractiveSession(context);
    await until(terminal, "/help for commands", 8000);
    terminal.press("Summarise @everything:features");
    await until(terminal, "@everything:demo://resource/static/document/features.md", 8000);
    terminal.press("\t");
    terminal.press("now\r");
    const screen = await until(terminal, "Read it.", 8000);
    expect(screen).toContain("⎿ attached @everything:demo://resource/static/document/features.md");
    expect(String(userTurn(model, 0)).startsWith("Summarise @everything:demo://resource/static/document/features.md now\n\n")).toBe(true);
    terminal.press("\x04");
    expect(await exit).toBe(0);
  }, 30_000);
});
