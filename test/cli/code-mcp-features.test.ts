// `minagent code -p` with MCP resources, prompts and log messages: the real CLI, the real server-everything (and a
// logging fixture), the local Anthropic wire server.
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import type { WireRequest } from "../../src/testing/wire-server.js";
import { referenceServers } from "../mcp/reference-servers.js";
import { answer, anthropicEnv, callTool, printArgs, runCode, useCodeFixture } from "./code-helpers.js";

const fixture = useCodeFixture();

async function writeConfig(): Promise<string> {
  const path = join(fixture.home, "servers.json");
  const servers = { everything: referenceServers.everything(), logging: referenceServers.tokenHolding("tok-0123456789abcdef") };
  await writeFile(path, JSON.stringify({ mcpServers: servers }));
  return path;
}

type Body = {
  tools?: { name: string }[];
  messages?: { role: string; content: string | { type: string; text?: string; content?: unknown; is_error?: boolean }[] }[];
};
const bodyOf = (request: WireRequest | undefined) => (request?.body ?? {}) as Body;

/** The text of the first user message the model was sent. */
function firstUserText(request: WireRequest | undefined): string {
  const content = bodyOf(request).messages?.find((message) => message.role === "user")?.content;
  if (typeof content === "string") return content;
  return (content ?? []).map((part) => part.text ?? "").join("");
}

function lastToolResult(request: WireRequest | undefined): { content: string; is_error?: boolean } {
  const content = bodyOf(request).messages?.at(-1)?.content;
  const result = Array.isArray(content) ? content.find((part) => part.type === "tool_result") : undefined;
  return {
    content: typeof result?.content === "string" ? result.content : JSON.stringify(result?.content ?? ""),
    ...(result?.is_error !== undefined && { is_error: result.is_error }),
  };
}

describe("minagent code -p with MCP resources, prompts and logs", () => {
  test("an @server:uri mention sends the resource's text with the prompt", async () => {
    const config = await writeConfig();
    fixture.server.reply(answer("A test server."));
    const { exit, stdout, stderr } = await runCode(
      printArgs(
        fixture,
        "What is @everything:demo://resource/static/document/features.md about? And @everything:demo://resource/dynamic/text/0?",
        "--mcp-config",
        config,
      ),
      anthropicEnv(fixture),
    );
    expect(exit, stderr).toBe(0);
    expect(stdout).toBe("A test server.\n");
    const sent = firstUserText(fixture.server.requests[0]);
    expect(sent).toContain(
      "What is @everything:demo://resource/static/document/features.md about? And @everything:demo://resource/dynamic/text/0?\n\n",
    );
    // One that cannot be read is said, on stderr and in the prompt where it would be.
    expect(stderr).toMatch(
      /minagent code: @everything:demo:\/\/resource\/dynamic\/text\/0 was not attached: MCP server "everything" could not read .*Unknown resource/,
    );
    expect(sent).toMatch(/\[@everything:demo:\/\/resource\/dynamic\/text\/0 was not attached: .*\]/);
    expect(sent).toContain(
      '<mcp-resource server="everything" uri="demo://resource/static/document/features.md">\n# Everything Server - Features',
    );
  }, 60_000);

  test("/mcp__<server>__<prompt> sends the server's prompt as the turn; a missing argument is refused before any model call", async () => {
    const config = await writeConfig();
    fixture.server.reply(answer("Cold."));
    const ran = await runCode(
      printArgs(fixture, "/mcp__everything__args-prompt state=MN Minneapolis", "--mcp-config", config),
      anthropicEnv(fixture),
    );
    expect(ran.exit, ran.stderr).toBe(0);
    expect(firstUserText(fixture.server.requests[0])).toBe("What's weather in Minneapolis, MN?");
    const refused = await runCode(printArgs(fixture, "/mcp__everything__args-prompt", "--mcp-config", config), anthropicEnv(fixture));
    expect(refused.exit).toBe(2);
    expect(refused.stderr).toContain(
      "minagent code: /mcp__everything__args-prompt: /mcp__everything__args-prompt needs city: it takes <city> [state]",
    );
    expect(fixture.server.requests).toHaveLength(1);
  }, 60_000);

  test("the resource tools are offered and, being read-only, run in default mode as Read does; a deny rule refuses them", async () => {
    const config = await writeConfig();
    const read = { server: "everything", uri: "demo://resource/dynamic/text/7" };
    fixture.server.reply(callTool("toolu_1", "ReadMcpResourceTool", read), answer("Read."));
    const allowed = await runCode(printArgs(fixture, "Read it", "--mcp-config", config), anthropicEnv(fixture));
    expect(allowed.exit, allowed.stderr).toBe(0);
    const names = (bodyOf(fixture.server.requests[0]).tools ?? []).map(({ name }) => name);
    expect(names).toEqual(expect.arrayContaining(["ListMcpResourcesTool", "ReadMcpResourceTool"]));
    expect(lastToolResult(fixture.server.requests[1]).content).toMatch(/^Resource 7: This is a plaintext resource created at /);
    fixture.server.reply(callTool("toolu_2", "ReadMcpResourceTool", read), answer("Could not."));
    const denied = await runCode(
      printArgs(fixture, "Read it", "--mcp-config", config, "--disallowedTools", "ReadMcpResourceTool"),
      anthropicEnv(fixture),
    );
    expect(denied.exit, denied.stderr).toBe(0);
    expect(lastToolResult(fixture.server.requests[3])).toMatchObject({ is_error: true });
    expect(lastToolResult(fixture.server.requests[3]).content).not.toContain("Resource 7");
  }, 60_000);

  test("--verbose prints what servers log at info and above, their secrets redacted", async () => {
    const config = await writeConfig();
    fixture.server.reply(callTool("toolu_1", "mcp__logging__work", {}), answer("Worked."));
    const { exit, stderr } = await runCode(
      printArgs(fixture, "Work", "--mcp-config", config, "--allowedTools", "mcp__logging", "--verbose"),
      anthropicEnv(fixture),
    );
    expect(exit, stderr).toBe(0);
    expect(stderr).toContain("[mcp logging/auth] warning: token [redacted] expires soon");
    expect(stderr).not.toContain("tok-0123456789abcdef");
    expect(stderr).not.toContain("a debug detail");
  }, 60_000);
});
