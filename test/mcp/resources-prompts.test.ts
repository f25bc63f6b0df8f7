// Resources, prompts, progress and logging of server-everything (the reference server), through minagent/mcp.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Agent, FakeModel, ToolRegistry } from "../../src/index.js";
import {
  connectMcpServers,
  describePromptMessages,
  type McpLogMessage,
  type McpServers,
  type McpToolProgress,
  parsePromptArguments,
} from "../../src/mcp/index.js";
import { reply, toolCall } from "../../src/testing/index.js";
import { referenceServers, waitFor } from "./reference-servers.js";

let mcp: McpServers;
const logs: McpLogMessage[] = [];

beforeAll(async () => {
  mcp = await connectMcpServers({
    // memory offers resources without subscriptions; the fixture offers tools only.
    mcpServers: {
      everything: referenceServers.everything(),
      memory: referenceServers.memory("/dev/null"),
      tools: referenceServers.changingTools(),
    },
  });
  mcp.onLog((message) => logs.push(message));
}, 60_000);

afterAll(async () => {
  await mcp?.close();
});

/** One scripted turn calling `name`; returns the observation and the tools the model was offered. */
async function callThroughAgent(name: string, args: Record<string, unknown>) {
  const registry = new ToolRegistry();
  const model = new FakeModel([reply("", toolCall(name, args, "call-1")), "done"]);
  const agent = new Agent(model, registry, { prepareTurn: mcp.prepareTurn(registry) });
  const result = await agent.run("go");
  const observation = result.messages.find((message) => message.role === "tool");
  return { observation, offered: (model.requests[0]?.tools ?? []).map((tool) => tool.name) };
}

describe("resources", () => {
  it("lists a server's resources and templates, and every server's that offers them", async () => {
    const resources = await mcp.listResources("everything");
    expect(resources).toContainEqual(
      expect.objectContaining({ server: "everything", uri: "demo://resource/static/document/features.md", mimeType: "text/markdown" }),
    );
    const templates = await mcp.listResourceTemplates();
    expect(templates.map(({ uriTemplate }) => uriTemplate)).toEqual(
      expect.arrayContaining(["demo://resource/dynamic/text/{resourceId}", "demo://resource/dynamic/blob/{resourceId}"]),
    );
    // /mcp says what each offers.
    expect(mcp.status().map(({ name, offers }) => [name, offers])).toEqual([
      ["everything", ["resources", "prompts", "logging"]],
      ["memory", ["resources"]],
      ["tools", undefined],
    ]);
    // A server that offers no resources is left out of "every server", and refused when named.
    expect(new Set((await mcp.listResources()).map(({ server }) => server))).toEqual(new Set(["everything", "memory"]));
    await expect(mcp.listResources("tools")).rejects.toThrow(
      'MCP server "tools" does not offer resources (it declares no "resources" capability).',
    );
    await expect(mcp.listResources("nope")).rejects.toThrow('There is no MCP server named "nope" (servers: everything, memory, tools).');
  });

  it("reads a resource, and says why one cannot be read", async () => {
    const [contents] = await mcp.readResource("everything", "demo://resource/dynamic/text/3");
    expect(contents).toMatchObject({ uri: "demo://resource/dynamic/text/3", mimeType: "text/plain" });
    expect(contents?.text).toMatch(/^Resource 3: This is a plaintext resource created at /);
    await expect(mcp.readResource("everything", "demo://resource/dynamic/text/0")).rejects.toThrow(
      /^MCP server "everything" could not read demo:\/\/resource\/dynamic\/text\/0: .*Unknown resource/,
    );
  });

  it("offers the model ListMcpResourcesTool and ReadMcpResourceTool, which read text and describe binary data", async () => {
    const listed = await callThroughAgent("ListMcpResourcesTool", { server: "everything" });
    expect(listed.offered).toEqual(expect.arrayContaining(["ListMcpResourcesTool", "ReadMcpResourceTool", "mcp__everything__echo"]));
    expect(listed.observation?.content).toContain('"uri": "demo://resource/static/document/features.md"');
    expect(listed.observation?.content).toContain('"uriTemplate": "demo://resource/dynamic/blob/{resourceId}"');
    const text = await callThroughAgent("ReadMcpResourceTool", {
      server: "everything",
      uri: "demo://resource/static/document/features.md",
    });
    expect(text.observation?.content).toMatch(/^# Everything Server - Features/);
    const blob = await callThroughAgent("ReadMcpResourceTool", { server: "everything", uri: "demo://resource/dynamic/blob/2" });
    expect(blob.observation?.content).toMatch(
      /^\[resource demo:\/\/resource\/dynamic\/blob\/2, text\/plain\] \d+ bytes of binary data: not shown$/,
    );
    const refused = await callThroughAgent("ReadMcpResourceTool", { server: "tools", uri: "demo://x" });
    expect(refused.observation).toMatchObject({ isError: true });
    expect(refused.observation?.content).toContain('MCP server "tools" does not offer resources');
  });

  it("tells a subscriber of a resource's updates, and stops when it unsubscribes", async () => {
    const uri = "demo://resource/static/document/features.md";
    const updates: string[] = [];
    const unsubscribe = await mcp.subscribeResource("everything", uri, (updated) => updates.push(updated));
    await mcp.callTool("everything", "toggle-subscriber-updates");
    try {
      await waitFor(() => updates.length > 0, "a resource update");
      expect(updates[0]).toBe(uri);
    } finally {
      await mcp.callTool("everything", "toggle-subscriber-updates");
      await unsubscribe();
    }
    await expect(mcp.subscribeResource("tools", uri, () => {})).rejects.toThrow(
      'MCP server "tools" does not offer resource subscriptions (its "resources" capability has no "subscribe").',
    );
  });
});

describe("prompts", () => {
  it("lists prompts as mcp__<server>__<prompt> commands with their arguments in order", async () => {
    const prompts = await mcp.listPrompts();
    const args = prompts.find((prompt) => prompt.name === "args-prompt");
    expect(args).toMatchObject({
      server: "everything",
      command: "mcp__everything__args-prompt",
      arguments: [
        { name: "city", required: true },
        { name: "state", required: false },
      ],
    });
    if (!args) throw new Error("no args-prompt");
    expect(parsePromptArguments(args, '"San Francisco" CA')).toEqual({ city: "San Francisco", state: "CA" });
    expect(parsePromptArguments(args, "state=CA Sacramento")).toEqual({ city: "Sacramento", state: "CA" });
    expect(() => parsePromptArguments(args, "state=CA")).toThrow("/mcp__everything__args-prompt needs city: it takes <city> [state]");
    const messages = await mcp.getPrompt("everything", "args-prompt", parsePromptArguments(args, "Paris"));
    expect(describePromptMessages(messages)).toBe("What's weather in Paris?");
  });

  it("puts a prompt's embedded resource in its text", async () => {
    const messages = await mcp.getPrompt("everything", "resource-prompt", { resourceType: "Text", resourceId: "2" });
    expect(describePromptMessages(messages)).toContain(
      "[resource demo://resource/dynamic/text/2, text/plain]\nResource 2: This is a plaintext resource",
    );
  });
});

describe("progress and logging", () => {
  it("reports a long call's progress, with the model's tool call id", async () => {
    const progress: McpToolProgress[] = [];
    const stop = mcp.onProgress((event) => progress.push(event));
    try {
      const { observation } = await callThroughAgent("mcp__everything__trigger-long-running-operation", { duration: 0.6, steps: 3 });
      expect(observation?.content).toBe("Long running operation completed. Duration: 0.6 seconds, Steps: 3.");
    } finally {
      stop();
    }
    // The last notice comes with the result, and the SDK may drop it once the call has its answer.
    expect(progress.map(({ progress, total }) => `${progress}/${total}`).slice(0, 2)).toEqual(["1/3", "2/3"]);
    expect(progress[0]).toMatchObject({ server: "everything", tool: "trigger-long-running-operation", toolCallId: "call-1" });
  });

  it("asks for info and above, and hears the server's log messages", async () => {
    // The server logs each subscription at info level.
    const unsubscribe = await mcp.subscribeResource("everything", "demo://resource/dynamic/text/1", () => {});
    await unsubscribe();
    await waitFor(() => logs.some(({ text }) => text.includes("Subscribe Resource request")), "a log message");
    expect(logs.find(({ text }) => text.includes("Subscribe Resource request"))).toMatchObject({ server: "everything", level: "info" });
  });

  it("subscribes a restarted server again", async () => {
    const own = await connectMcpServers({ mcpServers: { everything: referenceServers.everything() } });
    try {
      const uri = "demo://resource/dynamic/text/5";
      const updates: string[] = [];
      await own.subscribeResource("everything", uri, (updated) => updates.push(updated));
      const pid = own.status()[0]?.pid;
      if (pid === undefined) throw new Error("no pid");
      process.kill(pid, "SIGKILL");
      await waitFor(() => own.status()[0]?.state === "crashed", "the crash");
      // The call restarts the server; the new process is subscribed before it starts sending updates.
      await own.callTool("everything", "toggle-subscriber-updates");
      await waitFor(() => updates.length > 0, "an update from the restarted server");
      expect(own.status()[0]).toMatchObject({ state: "ready", restarts: 1 });
      expect(updates[0]).toBe(uri);
    } finally {
      await own.close();
    }
  }, 30_000);
});

describe("secrets", () => {
  it("redacts the config's secrets in resources, prompts, log messages and the resource tool's result", async () => {
    const token = "tok-0123456789abcdef";
    const own = await connectMcpServers({ mcpServers: { holder: referenceServers.tokenHolding(token) } });
    const heard: McpLogMessage[] = [];
    own.onLog((message) => heard.push(message));
    try {
      expect(await own.readResourceText("holder", "token://current")).toBe("the token is [redacted]");
      expect(await own.getPromptText("holder", "whoami")).toBe("I act with the token [redacted].");
      await own.callTool("holder", "work");
      await waitFor(() => heard.length > 0, "a log message");
      // At the default level, info: the debug message is not sent.
      expect(heard).toEqual([{ server: "holder", level: "warning", logger: "auth", text: "token [redacted] expires soon" }]);
      const registry = new ToolRegistry();
      own.syncTools(registry);
      const read = await registry.execute({
        id: "r1",
        name: "ReadMcpResourceTool",
        arguments: { server: "holder", uri: "token://current" },
      });
      expect(read).toMatchObject({ content: "the token is [redacted]", isError: false });
    } finally {
      await own.close();
    }
  }, 30_000);
});
