import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { startWireServer, type WireRequest, type WireServer } from "../../src/testing/wire-server.js";
import { anthropicStream } from "../helpers/wire-bodies.js";
import { referenceServers } from "../mcp/reference-servers.js";
import { bin, hasTmux, Pane } from "./tmux-pane.js";

// A server's elicitation form as a person fills it in, and its sampling request asked about: the built bin in a tmux
// pane, the real server-everything asking through its trigger-elicitation-request and trigger-sampling-request tools,
// the model a scripted Anthropic server on 127.0.0.1.

const usage = { input_tokens: 1500, output_tokens: 30 };
const say = (text: string) => ({ sse: anthropicStream([{ type: "text", text }], "end_turn", usage) });
const call = (id: string, name: string, input: Record<string, unknown>) => ({
  sse: anthropicStream([{ type: "tool_use", id, name, input }], "tool_use", usage),
});

/** A non-streamed reply, as a sampling request's model call (which does not stream) gets. */
const sampled = (text: string) => ({
  json: {
    id: "msg_sampled",
    type: "message",
    role: "assistant",
    model: "claude-haiku-4-5",
    content: [{ type: "text", text }],
    stop_reason: "end_turn",
    usage: { input_tokens: 30, output_tokens: 7 },
  },
});

/** The text of the tool result a request sent. */
function toolResult(request: WireRequest | undefined): string {
  const body = request?.body as { messages: { content: { type: string; content?: unknown }[] }[] } | undefined;
  const result = body?.messages.at(-1)?.content.find((block) => block.type === "tool_result");
  return typeof result?.content === "string" ? result.content : JSON.stringify(result?.content ?? "");
}

describe.skipIf(!hasTmux)("an MCP server's elicitation and sampling in minagent code (tmux)", () => {
  let server: WireServer;
  let workspace: string;
  let home: string;
  let pane: Pane;

  beforeEach(async () => {
    if (!existsSync(bin)) throw new Error(`${bin} is missing: npm test builds it first (or set MINAGENT_TEST_BIN)`);
    server = await startWireServer();
    workspace = await mkdtemp(join(tmpdir(), "minagent-tmux-workspace-"));
    home = await mkdtemp(join(tmpdir(), "minagent-tmux-home-"));
    await writeFile(join(home, "servers.json"), JSON.stringify({ mcpServers: { everything: referenceServers.everything() } }));
    pane = new Pane({ columns: 110, rows: 40 });
  });

  afterEach(async () => {
    await pane.kill();
    await server.close();
    await rm(workspace, { recursive: true, force: true });
    await rm(home, { recursive: true, force: true });
  });

  const ask = async (prompt: string) => {
    await pane.type(prompt);
    await pane.keys("Enter");
  };
  const start = async () => {
    const env = { ANTHROPIC_API_KEY: "sk-ant-test", ANTHROPIC_BASE_URL: server.url, MINAGENT_HOME: home, HOME: home };
    const args = ["--model", "anthropic:claude-haiku-4-5", "--mcp-config", join(home, "servers.json"), "--allowedTools", "mcp__everything"];
    await pane.start(workspace, env, args);
    await pane.waitFor(/^>/m);
    // Servers start in the background: /mcp until the server lists the tools it adds once it knows what the client does.
    for (let attempt = 0; ; attempt++) {
      await ask("/mcp");
      const screen = await pane.waitFor(/everything {2}\w+/);
      if (screen.includes("simulate-research-query")) break;
      if (attempt === 40) throw new Error(`server-everything did not offer trigger-elicitation-request:\n${screen}`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  };
  test("a form: defaults filled in, required fields and formats checked, choices single and multiple, then sent", async () => {
    server.reply(call("t1", "mcp__everything__trigger-elicitation-request", {}), say("Thanks for the details."));
    await start();
    await ask("Ask me for my details");

    const opened = await pane.waitFor("Fill in the form (13 fields)", 20_000);
    expect(opened).toContain('MCP server "everything" asks for information:');
    expect(opened).toContain("Please provide inputs for the following fields:");
    await pane.keys("Enter");

    // A required text field: empty is refused, with why, and asked again.
    await pane.waitFor("String * ›");
    await pane.keys("Enter");
    await pane.waitFor("String is required");
    await ask("Ada Lovelace");
    // A boolean, answered by its key.
    await pane.waitFor("Agree to the terms and conditions");
    await pane.type("y");
    // A default stands unless changed.
    await pane.waitFor("String with default › It was a dark and stormy night.");
    await pane.keys("Enter");
    // A format: a slip is caught, and the text kept to mend.
    await ask("ada@example");
    await pane.waitFor("must be an email address");
    await ask(".org");
    await pane.waitFor("String with uri format ›");
    await pane.keys("Enter");
    await pane.waitFor("String with date format ›");
    await pane.keys("Enter");
    await pane.waitFor("Integer (integer) › 42");
    await pane.keys("Enter");
    await pane.waitFor("Number in range 1-1000 (number) › 3.14");
    await pane.keys("Enter");
    // A single choice, by number; then a multiple one, its default (Guitar) kept and Piano added.
    await pane.waitFor("Chandler");
    await pane.type("3");
    await pane.waitFor("Untitled Multiple Select Enum (numbers, e.g. 1,3) › 1");
    await ask(",2");
    // Titled choices show their titles; Enter keeps the defaults.
    await pane.waitFor("Green Lantern");
    await pane.keys("Enter");
    await pane.waitFor("Titled Multiple Select Enum (numbers, e.g. 1,3) › 1");
    await pane.keys("Enter");
    // The legacy enumNames are the labels.
    await pane.waitFor("Reptiles");
    await pane.type("2");

    const review = await pane.waitFor("Send these answers to everything?");
    expect(review).toContain("Untitled Single Select Enum › Joey");
    expect(review).toContain("Legacy Titled Single Select Enum › Dogs");
    await pane.type("y");
    await pane.waitFor("Thanks for the details.", 20_000);

    const result = toolResult(server.requests[1]);
    expect(result).toContain("User provided the requested information!");
    expect(result).toContain("- Name: Ada Lovelace");
    expect(result).toContain("- Agreed to terms: true");
    expect(result).toContain("- Email: ada@example.org");
    expect(result).toContain("- Favorite Integer: 42");
    const raw = JSON.parse(result.slice(result.indexOf("Raw result: ") + "Raw result: ".length));
    expect(raw.content).toMatchObject({
      firstLine: "It was a dark and stormy night.",
      untitledSingleSelectEnum: "Joey",
      untitledMultipleSelectEnum: ["Guitar", "Piano"],
      titledSingleSelectEnum: "hero-1",
      titledMultipleSelectEnum: ["fish-1"],
      legacyTitledEnum: "pet-2",
    });
    expect(raw.content).not.toHaveProperty("homepage");
  }, 60_000);

  test("the person may decline the form, or cancel it with Escape, and the session goes on", async () => {
    server.reply(
      call("t1", "mcp__everything__trigger-elicitation-request", {}),
      say("You declined."),
      call("t2", "mcp__everything__trigger-elicitation-request", {}),
      say("You cancelled."),
    );
    await start();
    await ask("Ask me");
    await pane.waitFor("Fill in the form (13 fields)", 20_000);
    await pane.type("n");
    await pane.waitFor("You declined.", 20_000);
    expect(toolResult(server.requests[1])).toContain("User declined to provide the requested information.");

    await ask("Ask me again");
    await pane.waitFor((screen) => screen.split("Ask me again")[1]?.includes("Fill in the form") === true, 20_000);
    await pane.keys("Enter");
    await pane.waitFor("String * ›");
    await pane.keys("Escape");
    await pane.waitFor("You cancelled.", 20_000);
    expect(toolResult(server.requests[3])).toContain("User cancelled the elicitation dialog.");
  }, 60_000);

  test("a URL elicitation: the link is printed and stays on screen, and the person's yes is sent", async () => {
    const url = "https://example.com/authorize?state=abc";
    server.reply(call("t1", "mcp__everything__trigger-url-elicitation", { url, message: "Authorize the example app" }), say("Authorized."));
    await start();
    await ask("Authorize");
    const shown = await pane.waitFor("Open it in the browser", 20_000);
    expect(shown).toContain('MCP server "everything" asks you to open a link:');
    expect(shown).toContain("Authorize the example app");
    expect(shown).toContain(url);
    expect(shown).toContain("2. I will open it myself");
    await pane.type("2");
    const after = await pane.waitFor("Authorized.", 20_000);
    expect(after).toContain(url);
    expect(toolResult(server.requests[1])).toContain("User completed the URL elicitation flow.");
  }, 60_000);

  test("a server's sampling request is asked like a call, with what it would send; allowed for the session, it is not asked again", async () => {
    server.reply(
      call("t1", "mcp__everything__trigger-sampling-request", { prompt: "a haiku about tests" }),
      sampled("Green checks in a row."),
      say("The server has its haiku."),
      call("t2", "mcp__everything__trigger-sampling-request", { prompt: "another" }),
      sampled("Red, then green again."),
      say("And another."),
    );
    await start();
    await ask("Let the server sample");
    const prompt = await pane.waitFor("Allow McpSampling(everything)?", 20_000);
    expect(prompt).toContain("system: You are a helpful test server.");
    expect(prompt).toContain("Resource trigger-sampling-request context: a haiku about tests");
    expect(prompt).toContain('MCP server "everything" asks to use the model (claude-haiku-4-5)');
    expect(prompt).toContain("2. Yes, and don't ask again this session for McpSampling(everything)");
    await pane.type("2");
    await pane.waitFor("The server has its haiku.", 20_000);
    expect(toolResult(server.requests[2])).toContain("Green checks in a row.");
    // The sampling call is the session's: its tokens are in the status line (1,530 + 37 + 1,530).
    expect(await pane.statusLine()).toContain("3,097 tokens");

    await ask("Again");
    await pane.waitFor("And another.", 20_000);
    expect(toolResult(server.requests[5])).toContain("Red, then green again.");
    expect((await pane.screen()).split("Again")[1]).not.toContain("Allow McpSampling");
  }, 60_000);
});
