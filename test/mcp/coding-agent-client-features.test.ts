// CodingAgent answering an MCP server's own requests: sampling on its model, judged as McpSampling(<server>) and put to
// its askPerson; elicitation through its elicit option; its folders as roots. The real server-everything over stdio.
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type ApprovalRequest, CodingAgent } from "../../src/code/index.js";
import { type AgentEvent, FakeModel } from "../../src/index.js";
import { connectMcpServers, type McpElicitationRequest, type McpServers } from "../../src/mcp/index.js";
import { reply, toolCall } from "../../src/testing/index.js";
import { referenceServers, waitFor } from "./reference-servers.js";

let root: string;
let mcp: McpServers;
beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "minagent-coding-mcp-client-"));
  mkdirSync(join(root, "docs"));
  // As minagent code does: declared at the handshake, answered by whichever agent is made later.
  mcp = await connectMcpServers(
    { mcpServers: { everything: referenceServers.everything() } },
    {
      elicit: async () => ({ action: "decline" }),
      sample: async () => {
        throw new Error("no agent yet");
      },
      roots: [root],
    },
  );
  await waitFor(() => mcp.tools().some((tool) => tool.mcpName === "get-roots-list"), "the capability tools");
}, 60_000);
afterAll(async () => {
  await mcp?.close();
  rmSync(root, { recursive: true, force: true });
});

const lastToolResult = (messages: readonly { role: string; content: string }[]) => messages.filter((m) => m.role === "tool").at(-1);

it("runs a server's sampling on its model once the person allows it, and its events carry the usage", async () => {
  const model = new FakeModel([
    reply("", toolCall("mcp__everything__trigger-sampling-request", { prompt: "name a colour" }, "s1")),
    "Teal.",
    "The server heard teal.",
  ]);
  const asked: ApprovalRequest[] = [];
  const events: AgentEvent[] = [];
  const agent = await CodingAgent.create(model, {
    workspace: root,
    settingsFiles: [],
    mcp,
    rules: { allow: ["mcp__everything"] },
    askPerson: (request) => {
      asked.push(request);
      return { behavior: "allow" };
    },
    onEvent: (event) => events.push(event),
  });
  const result = await agent.run("go");
  expect(result.final).toBe("The server heard teal.");
  expect(asked.map(({ toolCall }) => toolCall)).toEqual([
    {
      id: expect.stringMatching(/^mcp-sampling-/),
      name: "McpSampling",
      arguments: {
        server: "everything",
        message: "Resource trigger-sampling-request context: name a colour",
        systemPrompt: "You are a helpful test server.",
        messages: 1,
      },
    },
  ]);
  expect(model.requests[1]?.messages).toEqual([
    { role: "system", content: "You are a helpful test server." },
    { role: "user", content: "Resource trigger-sampling-request context: name a colour" },
  ]);
  expect(lastToolResult(result.messages)?.content).toContain('"text": "Teal."');
  // Three model calls reached the agent's listener, the server's among them.
  expect(events.filter((event) => event.type === "model-call-end")).toHaveLength(3);
});

it("a deny rule refuses sampling without asking; the server's tool reports why", async () => {
  const model = new FakeModel([reply("", toolCall("mcp__everything__trigger-sampling-request", { prompt: "x" }, "s1")), "ok"]);
  const asked: ApprovalRequest[] = [];
  const agent = await CodingAgent.create(model, {
    workspace: root,
    settingsFiles: [],
    mcp,
    rules: { allow: ["mcp__everything"], deny: ["McpSampling(everything)"] },
    askPerson: (request) => {
      asked.push(request);
      return { behavior: "allow" };
    },
  });
  const result = await agent.run("go");
  expect(asked).toEqual([]);
  expect(model.requests).toHaveLength(2);
  expect(lastToolResult(result.messages)).toMatchObject({
    isError: true,
    content: expect.stringContaining('MCP server "everything" may not use the client\'s model: Permission denied'),
  });
});

it("puts a server's elicitation to its elicit option, and offers its folders as roots", async () => {
  const model = new FakeModel([
    reply("", toolCall("mcp__everything__trigger-elicitation-request", {}, "e1")),
    reply("", toolCall("mcp__everything__get-roots-list", {}, "r1")),
    "done",
  ]);
  const elicited: McpElicitationRequest[] = [];
  const agent = await CodingAgent.create(model, {
    workspace: root,
    additionalDirectories: ["docs"],
    settingsFiles: [],
    mcp,
    rules: { allow: ["mcp__everything"] },
    elicit: async (request) => {
      elicited.push(request);
      return { action: "accept", content: { name: "Grace" } };
    },
  });
  const result = await agent.run("go");
  expect(elicited.map(({ server, mode }) => ({ server, mode }))).toEqual([{ server: "everything", mode: "form" }]);
  const tools = result.messages.filter((message) => message.role === "tool");
  expect(tools[0]?.content).toContain("- Name: Grace");
  // The agent's folders replaced the roots given at connection (the server was told, and asked again while the form ran).
  expect(tools[1]?.content).toContain(`URI: ${pathToFileURL(join(root, "docs")).href}`);
});
