// MCP prompts, resource mentions and progress in the interactive session, in process: the real server-everything,
// a scripted model, a fake terminal the test types into.
import { join } from "node:path";
import { PassThrough, Writable } from "node:stream";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from "vitest";
import { runInteractiveSession } from "../../src/cli/code/interactive/index.js";
import { stripAnsi } from "../../src/cli/code/interactive/text-width.js";
import type { CodeSessionContext } from "../../src/cli/code/session-context.js";
import { CodingAgent } from "../../src/code/coding-agent.js";
import { connectMcpServers, type McpServers } from "../../src/mcp/index.js";
import { FakeModel } from "../../src/models/fake-model.js";
import { reply, toolCall } from "../../src/testing/index.js";
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
  temporary = await createTemporaryWorkspace("mcp-features-interactive");
});
afterEach(async () => {
  await Promise.all(agents.splice(0).map((agent) => agent.close()));
  await removeTemporaryWorkspace(temporary.base);
});

/** The harness's fake terminal, but a live one (a TTY): tool lines are redrawn in place there. */
function liveTerminal(): FakeTerminal {
  const input = Object.assign(new PassThrough(), { isTTY: true, setRawMode: () => input });
  let written = "";
  const output = Object.assign(
    new Writable({
      write(chunk, _encoding, done) {
        written += String(chunk);
        done();
      },
    }),
    { isTTY: true, columns: 120, rows: 40 },
  );
  return { input, output, text: () => stripAnsi(written).replace(/\r/g, ""), press: (keys) => input.write(keys) };
}

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

describe("MCP in the interactive session", () => {
  test("/help lists the servers' prompts with their arguments; /mcp__everything__args-prompt Paris sends the prompt's text", async () => {
    const { context, terminal, model } = setUp(["It is sunny."]);
    const exit = runInteractiveSession(context);
    await until(terminal, "/help for commands", 8000);
    terminal.press("/help\r");
    const help = await until(terminal, "MCP prompts", 8000);
    const section = help.slice(help.indexOf("MCP prompts"));
    expect(section).toMatch(
      /\n {2}\/mcp__everything__args-prompt <city> \[state\] A prompt with two arguments, one required and one optional \(MCP: everything\)\n/,
    );
    expect(section).toMatch(/\n {2}\/mcp__everything__simple-prompt +A prompt with no arguments \(MCP: everything\)\n/);
    // The hint offers a prompt's command, and Tab completes it, as for a custom command.
    terminal.press("/mcp__everything__arg");
    await until(terminal, "/mcp__everything__args-prompt  A prompt with two arguments, one required and one optional", 8000);
    terminal.press("\t");
    terminal.press("Paris\r");
    await until(terminal, "It is sunny.", 8000);
    expect(userTurn(model, 0)).toBe("What's weather in Paris?");
    // A required argument left out is said, and nothing is sent.
    terminal.press("/mcp__everything__args-prompt\r");
    await until(terminal, "/mcp__everything__args-prompt: /mcp__everything__args-prompt needs city: it takes <city> [state]", 8000);
    expect(model.requests).toHaveLength(1);
    terminal.press("\x04");
    expect(await exit).toBe(0);
  }, 30_000);

  test("an @server:uri mention attaches the resource's text to the prompt", async () => {
    const { context, terminal, model } = setUp(["Read it."]);
    const exit = runInteractiveSession(context);
    await until(terminal, "/help for commands", 8000);
    terminal.press("Summarise @everything:demo://resource/static/document/features.md please\r");
    const screen = await until(terminal, "Read it.", 8000);
    expect(screen).toContain("⎿ attached @everything:demo://resource/static/document/features.md");
    const sent = String(userTurn(model, 0));
    expect(sent.startsWith("Summarise @everything:demo://resource/static/document/features.md please\n\n")).toBe(true);
    expect(sent).toContain(
      '<mcp-resource server="everything" uri="demo://resource/static/document/features.md">\n# Everything Server - Features',
    );
    terminal.press("\x04");
    expect(await exit).toBe(0);
  }, 30_000);

  test("a long call's progress is drawn on its tool line while it runs", async () => {
    const { context, terminal } = setUp(
      [reply("", toolCall("mcp__everything__trigger-long-running-operation", { duration: 1.5, steps: 3 }, "long-1")), "Done."],
      liveTerminal(),
    );
    const exit = runInteractiveSession(context);
    await until(terminal, "/help for commands", 8000);
    terminal.press("go\r");
    const screen = await until(terminal, "Done.", 15_000);
    expect(screen).toMatch(/⋯ mcp__everything__trigger-long-running-operation · 1\/3 \(33%\)/);
    expect(screen).toMatch(/⋯ mcp__everything__trigger-long-running-operation · 2\/3 \(67%\)/);
    expect(screen).toMatch(/✓ mcp__everything__trigger-long-running-operation · Long running operation completed/);
    terminal.press("\x04");
    expect(await exit).toBe(0);
  }, 30_000);
});
