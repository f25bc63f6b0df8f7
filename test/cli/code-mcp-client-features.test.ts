// `minagent code -p` answering server-everything's own requests: sampling on the session's model (allowed by a rule,
// counted in the usage; refused without one), elicitation declined with a note (nobody to ask), and the workspace and
// --add-dir folders as roots. The real CLI, the real server, the local wire server.
import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { describe, expect, test } from "vitest";
import type { WireRequest } from "../../src/testing/wire-server.js";
import { referenceServers } from "../mcp/reference-servers.js";
import { answer, anthropicEnv, callTool, printArgs, runCode, sentMessages, useCodeFixture } from "./code-helpers.js";

const fixture = useCodeFixture();

async function writeEverythingConfig(): Promise<string> {
  const config = join(fixture.home, "servers.json");
  await writeFile(config, JSON.stringify({ mcpServers: { everything: referenceServers.everything() } }));
  return config;
}

/** The last tool result sent in a request, as text. */
function lastToolResult(request: WireRequest | undefined): { content: string; is_error?: boolean } {
  const { messages = [] } = (request?.body ?? {}) as {
    messages?: { content: string | { type: string; content?: unknown; is_error?: boolean }[] }[];
  };
  const content = messages.at(-1)?.content;
  const result = Array.isArray(content) ? content.find((part) => part.type === "tool_result") : undefined;
  return {
    content: typeof result?.content === "string" ? result.content : JSON.stringify(result?.content ?? ""),
    ...(result?.is_error !== undefined && { is_error: result.is_error }),
  };
}

/** A non-streamed Anthropic reply, as the sampling call (which does not stream) gets. */
function sampledAnswer(text: string) {
  return {
    json: {
      id: "msg_sampled",
      type: "message",
      role: "assistant",
      model: "claude-haiku-4-5",
      content: [{ type: "text", text }],
      stop_reason: "end_turn",
      usage: { input_tokens: 30, output_tokens: 7 },
    },
  };
}

describe("minagent code -p and MCP sampling", () => {
  test("runs a server's sampling request on the session's model when a rule allows it, and counts it in the usage", async () => {
    const config = await writeEverythingConfig();
    fixture.server.reply(
      callTool("toolu_1", "mcp__everything__trigger-sampling-request", { prompt: "a haiku about tests" }),
      sampledAnswer("Green checks in a row."),
      answer("The server got its haiku."),
    );
    const { exit, stdout, stderr } = await runCode(
      printArgs(
        fixture,
        "Try sampling",
        "--mcp-config",
        config,
        "--allowedTools",
        "mcp__everything,McpSampling(everything)",
        "--output-format",
        "json",
      ),
      anthropicEnv(fixture),
    );
    expect(exit, stderr).toBe(0);
    // The sampling call: the server's system prompt and message, no tools, on the session's model.
    const sampling = fixture.server.requests[1]?.body as { system?: unknown; tools?: unknown[]; model: string };
    expect(sampling.model).toBe("claude-haiku-4-5");
    expect(sampling.tools ?? []).toEqual([]);
    expect(JSON.stringify(sampling.system)).toContain("You are a helpful test server.");
    expect(sentMessages(sampling)).toEqual([{ role: "user", content: ["Resource trigger-sampling-request context: a haiku about tests"] }]);
    // Its answer went back to the server, which gave it to the model as the tool's result.
    const result = lastToolResult(fixture.server.requests[2]);
    expect(result.content).toContain("Green checks in a row.");
    expect(result.content).toContain('"model": "claude-haiku-4-5"');
    expect(result.content).toContain('"stopReason": "endTurn"');
    const output = JSON.parse(stdout) as { num_turns: number; usage: { input_tokens: number; output_tokens: number } };
    // Three model calls, the server's included: 100 + 30 + 100 tokens in, 20 + 7 + 20 out.
    expect(output.num_turns).toBe(3);
    expect(output.usage).toMatchObject({ input_tokens: 230, output_tokens: 47 });
  }, 60_000);

  test("refuses sampling that no rule allows, since -p has nobody to ask, and says which rule would", async () => {
    const config = await writeEverythingConfig();
    fixture.server.reply(
      callTool("toolu_1", "mcp__everything__trigger-sampling-request", { prompt: "anything" }),
      answer("Sampling was refused."),
    );
    const { exit, stderr } = await runCode(
      printArgs(fixture, "Try sampling", "--mcp-config", config, "--allowedTools", "mcp__everything"),
      anthropicEnv(fixture),
    );
    expect(exit, stderr).toBe(0);
    expect(fixture.server.requests).toHaveLength(2);
    expect(stderr).toContain('✗ McpSampling not approved (-p): MCP server "everything" asks to use the model');
    const result = lastToolResult(fixture.server.requests[1]);
    expect(result.is_error).toBe(true);
    expect(result.content).toContain(`MCP server "everything" may not use the client's model`);
    expect(result.content).toContain("McpSampling(everything)");
  }, 60_000);
});

describe("minagent code -p and MCP elicitation", () => {
  test("declines a server's form, with a note on stderr naming the server", async () => {
    const config = await writeEverythingConfig();
    fixture.server.reply(callTool("toolu_1", "mcp__everything__trigger-elicitation-request", {}), answer("Declined."));
    const { exit, stderr } = await runCode(
      printArgs(fixture, "Ask me", "--mcp-config", config, "--allowedTools", "mcp__everything"),
      anthropicEnv(fixture),
    );
    expect(exit, stderr).toBe(0);
    expect(stderr).toContain(
      'minagent code: MCP server "everything" asked for input (Please provide inputs for the following fields:); declined: -p has no person to answer it (a rule McpElicitation(everything) accepts a form whose required fields have defaults).',
    );
    expect(lastToolResult(fixture.server.requests[1]).content).toContain("User declined to provide the requested information.");
  }, 60_000);
});

describe("minagent code -p and a rule McpElicitation(<server>)", () => {
  const formServer = join(dirname(fileURLToPath(import.meta.url)), "..", "mcp", "fixtures", "form-server.mjs");
  test.each([
    [
      ["mcp__forms", "McpElicitation(forms)"],
      'booking accept: {"guests":2,"time":"19:00"}',
      "accepted with the form's defaults (McpElicitation(forms))",
    ],
    [["mcp__forms"], "booking decline", "declined: -p has no person to answer it"],
  ])(
    "with %j: the form is answered with its defaults only when the rule allows it",
    async (allowed, result, note) => {
      const config = join(fixture.home, "forms.json");
      await writeFile(config, JSON.stringify({ mcpServers: { forms: { command: process.execPath, args: [formServer] } } }));
      fixture.server.reply(callTool("toolu_1", "mcp__forms__book-table", {}), answer("Done."));
      const { exit, stderr } = await runCode(
        printArgs(fixture, "Book a table", "--mcp-config", config, "--allowedTools", allowed.join(",")),
        anthropicEnv(fixture),
      );
      expect(exit, stderr).toBe(0);
      expect(stderr).toContain(note);
      expect(lastToolResult(fixture.server.requests[1]).content).toContain(result);
    },
    60_000,
  );
});

describe("minagent code -p and MCP roots", () => {
  test("offers the workspace and the --add-dir folders as the roots", async () => {
    const config = await writeEverythingConfig();
    const added = join(fixture.home, "shared-docs");
    await mkdir(added);
    fixture.server.reply(callTool("toolu_1", "mcp__everything__get-roots-list", {}), answer("Two roots."));
    const { exit, stderr } = await runCode(
      printArgs(fixture, "Which roots?", "--mcp-config", config, "--allowedTools", "mcp__everything", "--add-dir", added),
      anthropicEnv(fixture),
    );
    expect(exit, stderr).toBe(0);
    const roots = lastToolResult(fixture.server.requests[1]).content;
    expect(roots).toContain("Current MCP Roots (2 total)");
    expect(roots).toContain(`URI: ${pathToFileURL(fixture.workspace).href}`);
    expect(roots).toContain(`URI: ${pathToFileURL(added).href}`);
  }, 60_000);
});
