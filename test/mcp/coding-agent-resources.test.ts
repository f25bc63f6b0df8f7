// CodingAgent with server-everything's resources: the two resource tools go through PreToolUse and PostToolUse
// hooks as any tool does, and a prompt's @server:uri mention is attached after UserPromptSubmit hooks saw it as typed.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { FakeModel } from "../../src/index.js";
import { connectMcpServers, type McpServers } from "../../src/mcp/index.js";
import { reply, toolCall } from "../../src/testing/index.js";
import { createHookAgent } from "../code/helpers/hook-agent.js";
import { referenceServers } from "./reference-servers.js";

let root: string;
let mcp: McpServers;
beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "minagent-coding-resources-"));
  mcp = await connectMcpServers({ mcpServers: { everything: referenceServers.everything() } });
}, 60_000);
afterAll(async () => {
  await mcp?.close();
  rmSync(root, { recursive: true, force: true });
});

it("runs PreToolUse and PostToolUse hooks on the resource tools, and UserPromptSubmit hooks on the prompt as typed", async () => {
  const typed: string[] = [];
  const model = new FakeModel([
    reply("", toolCall("ReadMcpResourceTool", { server: "everything", uri: "demo://resource/dynamic/text/1" }, "r1")),
    reply("", toolCall("ListMcpResourcesTool", {}, "l1")),
    "done",
  ]);
  const agent = await createHookAgent(
    model,
    root,
    {
      UserPromptSubmit: [{ hooks: [{ type: "function", run: ({ prompt }) => void typed.push(String(prompt)) }] }],
      PreToolUse: [
        { matcher: "ReadMcpResourceTool", hooks: [{ type: "function", run: () => ({ decision: "deny", reason: "no reading today" }) }] },
      ],
      PostToolUse: [
        {
          matcher: "ListMcpResourcesTool",
          hooks: [{ type: "function", run: () => ({ additionalContext: "Listed." }) }],
        },
      ],
    },
    { mcp },
  );
  try {
    const result = await agent.run("Look at @everything:demo://resource/dynamic/text/2");
    expect(result.final).toBe("done");
    expect(typed).toEqual(["Look at @everything:demo://resource/dynamic/text/2"]);
    expect(String(model.requests[0]?.messages.at(-1)?.content)).toContain(
      '<mcp-resource server="everything" uri="demo://resource/dynamic/text/2">\nResource 2: This is a plaintext resource',
    );
    const observations = result.messages.filter((message) => message.role === "tool");
    expect(observations[0]).toMatchObject({ isError: true, content: expect.stringContaining("no reading today") });
    expect(observations[1]?.content).toContain('"uri": "demo://resource/static/document/features.md"');
    expect(observations[1]?.content).toContain("Listed.");
  } finally {
    await agent.close();
  }
}, 30_000);
