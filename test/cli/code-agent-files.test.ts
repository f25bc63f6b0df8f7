import { chmod, mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { expect, test } from "vitest";
import {
  docsWriterFile,
  plannerFile,
  releaseCheckerFile,
  researcherFile,
  reviewerFile,
  testRunnerFile,
  triagerFile,
} from "../code/subagents/agent-file-fixtures.js";
import { answer, anthropicEnv, callTool, printArgs, requestBody, runCode, useCodeFixture } from "./code-helpers.js";

// A Claude Code user's .claude/agents/ works unchanged under `minagent code -p`: the session starts with every file,
// says once what it leaves out, and runs the subagent the model asks for, on the model its file names.

/** A subagent's reply: its runs do not stream, so the server answers with a whole message. */
function childReply(content: Record<string, unknown>[], stopReason: "end_turn" | "tool_use") {
  return {
    json: {
      id: "msg_child",
      type: "message",
      role: "assistant",
      model: "claude",
      content,
      stop_reason: stopReason,
      usage: { input_tokens: 50, output_tokens: 10 },
    },
  };
}

const fixture = useCodeFixture();

type Body = { model: string; system?: string | { text: string }[]; tools?: { name: string; description: string }[]; messages: unknown[] };

async function writeAgentFiles(): Promise<void> {
  const folder = join(fixture.workspace, ".claude", "agents");
  await mkdir(folder, { recursive: true });
  await mkdir(join(fixture.workspace, "scripts"));
  const guard = join(fixture.workspace, "scripts", "no-publish.sh");
  await writeFile(
    guard,
    '#!/bin/sh\ninput=$(cat)\ncase "$input" in *publish*) echo "Publishing is not part of the checklist." >&2; exit 2;; esac\nexit 0\n',
  );
  await chmod(guard, 0o755);
  const files: Record<string, string> = {
    "code-reviewer.md": reviewerFile,
    "release-checker.md": releaseCheckerFile({ guard: "./scripts/no-publish.sh", log: "exit 0", checklist: "exit 0" }),
    "issue-triager.md": triagerFile,
    "docs-writer.md": docsWriterFile,
    "planner.md": plannerFile,
    "test-runner.md": testRunnerFile,
    "web-researcher.md": researcherFile,
  };
  for (const [name, text] of Object.entries(files)) await writeFile(join(folder, name), text);
}

test("minagent code -p starts with Claude Code's agent files, says once what it leaves out, and runs a subagent on its model", async () => {
  await writeAgentFiles();
  fixture.server.reply(
    callTool("toolu_a", "Agent", { description: "review the change", prompt: "Review notes.txt.", subagent_type: "code-reviewer" }),
    childReply([{ type: "text", text: "notes.txt looks right." }], "end_turn"),
    answer("The reviewer found no problem."),
  );
  const outcome = await runCode(printArgs(fixture, "Review my change"), anthropicEnv(fixture));
  expect(outcome.exit).toBe(0);
  expect(outcome.stdout).toBe("The reviewer found no problem.\n");
  const agents = join(fixture.workspace, ".claude", "agents");
  expect(outcome.stderr.trim().split("\n")).toEqual([
    `minagent code: Subagent definition ${join(agents, "issue-triager.md")}, line 5: the inline MCP server definition "tracker" in \`mcpServers\` is not supported by minagent and is ignored: configure the server in .mcp.json and name it here.`,
    `minagent code: Subagent definition ${join(agents, "test-runner.md")}, line 7: \`skills\` (a Claude Code key) is not supported by minagent, and is ignored.`,
    `minagent code: Subagent definition ${join(agents, "test-runner.md")}, line 9: \`memory\` (a Claude Code key) is not supported by minagent, and is ignored.`,
    `minagent code: Subagent definition ${join(agents, "web-researcher.md")}, line 4: the tools entry "Bash(curl:*)" is left out: a subagent's tools are names (give "Bash" and limit what it may do with permission rules).`,
    `minagent code: Subagent "issue-triager" (${join(agents, "issue-triager.md")}) names MCP tools of servers this session does not have: github; it runs without them (servers: none)`,
  ]);
  const first = requestBody<Body>(fixture, 0);
  const description = first.tools?.find((tool) => tool.name === "Agent")?.description ?? "";
  for (const name of ["code-reviewer", "release-checker", "issue-triager", "docs-writer", "planner", "test-runner", "web-researcher"])
    expect(description).toContain(`- ${name}`);
  // The subagent's request: the file's model alias on the session's provider, its tools, its prompt.
  const child = requestBody<Body>(fixture, 1);
  expect(first.model).toBe("claude-haiku-4-5");
  expect(child.model).toBe("claude-sonnet-4-6");
  expect(child.tools?.map((tool) => tool.name)).toEqual(["Read", "Grep", "Glob"]);
  expect(JSON.stringify(child.system)).toContain("You are a senior reviewer.");
  expect(JSON.stringify(requestBody(fixture, 2))).toContain("notes.txt looks right.");
});

test("an agent file's PreToolUse hook guards its subagent's calls in a -p run", async () => {
  await writeAgentFiles();
  fixture.server.reply(
    callTool("toolu_a", "Agent", { description: "check the release", prompt: "Is 1.2.0 ready?", subagent_type: "release-checker" }),
    childReply([{ type: "tool_use", id: "toolu_b", name: "Bash", input: { command: "npm publish" } }], "tool_use"),
    childReply([{ type: "text", text: "Publishing was refused; the rest is ready." }], "end_turn"),
    answer("Ready, not published."),
  );
  const outcome = await runCode(printArgs(fixture, "Check the release", "--permission-mode", "bypassPermissions"), anthropicEnv(fixture));
  expect(outcome).toMatchObject({ exit: 0, stdout: "Ready, not published.\n" });
  const afterBash = JSON.stringify(requestBody(fixture, 2));
  expect(afterBash).toContain("Publishing is not part of the checklist.");
  expect(afterBash).toContain('"is_error":true');
});
