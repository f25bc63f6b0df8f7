// Elicitation, sampling and roots against the real server-everything, which registers the tools that use them only
// when the client declares the capability.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FakeModel } from "../../src/index.js";
import {
  connectMcpServers,
  convertMcpSamplingMessages,
  createMcpSampler,
  type McpElicitationRequest,
  type McpElicitationResult,
  type McpServers,
  type McpToolResult,
} from "../../src/mcp/index.js";
import { referenceServers, waitFor } from "./reference-servers.js";

let folder: string;
let mcp: McpServers;
let answer: (request: McpElicitationRequest) => McpElicitationResult = () => ({ action: "decline" });
const asked: McpElicitationRequest[] = [];
const sampler = new FakeModel(["Roses are red.", "Violets are blue."]);

const hasTool = (name: string) => mcp.tools().some((tool) => tool.mcpName === name);
const textOf = (result: McpToolResult) => (result.content ?? []).map((block) => ("text" in block ? block.text : "")).join("\n");

beforeAll(async () => {
  folder = mkdtempSync(join(tmpdir(), "minagent-mcp-client-"));
  mcp = await connectMcpServers(
    { mcpServers: { everything: referenceServers.everything() } },
    {
      elicit: async (request) => {
        asked.push(request);
        return answer(request);
      },
      sample: createMcpSampler(sampler),
      roots: [folder],
    },
  );
  // The server adds these tools once it has read the client's capabilities, after the handshake.
  await waitFor(() => hasTool("trigger-elicitation-request") && hasTool("get-roots-list"), "the capability tools");
}, 60_000);

afterAll(async () => {
  await mcp?.close();
  rmSync(folder, { recursive: true, force: true });
});

describe("elicitation", () => {
  it("brings the server's form to the handler, and sends back the person's values with the schema's defaults filled in", async () => {
    answer = () => ({ action: "accept", content: { name: "Ada Lovelace", check: true } });
    const result = await mcp.callTool("everything", "trigger-elicitation-request");
    const request = asked.at(-1);
    expect(request).toMatchObject({ server: "everything", mode: "form", message: "Please provide inputs for the following fields:" });
    expect(request?.mode === "form" && request.requestedSchema.required).toEqual(["name"]);
    const text = textOf(result);
    expect(text).toContain("- Name: Ada Lovelace");
    expect(text).toContain("- Agreed to terms: true");
    // Left alone by the person, given by the schema: the SDK applied the default because minagent declared applyDefaults.
    expect(text).toContain("- Favorite Integer: 42");
  });

  it("tells the server when the person declines or cancels", async () => {
    answer = () => ({ action: "decline" });
    expect(textOf(await mcp.callTool("everything", "trigger-elicitation-request"))).toContain("User declined");
    answer = () => ({ action: "cancel" });
    expect(textOf(await mcp.callTool("everything", "trigger-elicitation-request"))).toContain("User cancelled");
  });

  it("brings a URL elicitation to the handler with its URL", async () => {
    answer = () => ({ action: "accept" });
    const result = await mcp.callTool("everything", "trigger-url-elicitation", {
      url: "https://example.com/sign-in",
      message: "Sign in to continue",
    });
    expect(asked.at(-1)).toMatchObject({
      server: "everything",
      mode: "url",
      url: "https://example.com/sign-in",
      message: "Sign in to continue",
    });
    expect(textOf(result)).toContain("User completed the URL elicitation flow");
  });

  it("declines once the handler is taken away", async () => {
    mcp.setElicitationHandler(undefined);
    try {
      expect(textOf(await mcp.callTool("everything", "trigger-elicitation-request"))).toContain("User declined");
    } finally {
      mcp.setElicitationHandler(async (request) => answer(request));
    }
  });
});

describe("sampling", () => {
  it("runs the server's request on the model and sends back its answer, model and stop reason", async () => {
    const result = await mcp.callTool("everything", "trigger-sampling-request", { prompt: "Write a poem", maxTokens: 50 });
    const sent = sampler.requests[0]?.messages;
    expect(sent).toEqual([
      { role: "system", content: "You are a helpful test server." },
      { role: "user", content: "Resource trigger-sampling-request context: Write a poem" },
    ]);
    expect(sampler.requests[0]?.tools).toEqual([]);
    const text = textOf(result);
    expect(text).toContain('"text": "Roses are red."');
    expect(text).toContain('"model": "fake-model"');
    expect(text).toContain('"stopReason": "endTurn"');
    expect(text).toContain('"role": "assistant"');
  });

  it("refuses a request its approval turns down, with the reason as the server's error", async () => {
    const refusing = await connectMcpServers(
      { mcpServers: { everything: referenceServers.everything() } },
      { sample: createMcpSampler(sampler, { approve: async ({ server }) => `The user did not let ${server} use the model.` }) },
    );
    try {
      await waitFor(() => refusing.tools().some((tool) => tool.mcpName === "trigger-sampling-request"), "the sampling tool");
      const result = await refusing.callTool("everything", "trigger-sampling-request", { prompt: "Write a poem" });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toContain("The user did not let everything use the model.");
    } finally {
      await refusing.close();
    }
  });

  it("tells its listener of the model call (for a session's usage), and a prepareTurn that throws stops it (a budget)", async () => {
    const events: string[] = [];
    let allowed = true;
    const guarded = await connectMcpServers(
      { mcpServers: { everything: referenceServers.everything() } },
      {
        sample: createMcpSampler(new FakeModel(["Counted."]), {
          onEvent: (event) => {
            if (event.type === "model-call-end") events.push(`${event.response.usage?.outputTokens ?? 0} tokens out`);
          },
          prepareTurn: () => {
            if (!allowed) throw new Error("the next model call would take the spending past the budget");
          },
        }),
      },
    );
    try {
      await waitFor(() => guarded.tools().some((tool) => tool.mcpName === "trigger-sampling-request"), "the sampling tool");
      expect(textOf(await guarded.callTool("everything", "trigger-sampling-request", { prompt: "one" }))).toContain("Counted.");
      expect(events).toHaveLength(1);
      allowed = false;
      const stopped = await guarded.callTool("everything", "trigger-sampling-request", { prompt: "two" });
      expect(stopped.isError).toBe(true);
      expect(textOf(stopped)).toContain("past the budget");
      expect(events).toHaveLength(1);
    } finally {
      await guarded.close();
    }
  });

  it("describes images in words, and keeps the conversation's order", () => {
    const converted = convertMcpSamplingMessages(
      [
        { role: "user", content: { type: "image", data: "AAAA", mimeType: "image/png" } },
        { role: "assistant", content: { type: "text", text: "A red square." } },
        { role: "user", content: [{ type: "text", text: "And this one?" }] },
      ],
      "Describe pictures.",
    );
    expect(converted).toEqual({
      history: [
        { role: "system", content: "Describe pictures." },
        { role: "user", content: "[image: image/png, 3 bytes, not shown: this model reads text only]" },
        { role: "assistant", content: "A red square." },
      ],
      input: "And this one?",
    });
  });
});

describe("roots", () => {
  it("lists the folders as file:// roots, and tells the server when they change", async () => {
    const first = textOf(await mcp.callTool("everything", "get-roots-list"));
    expect(first).toContain(`URI: ${pathToFileURL(folder).href}`);
    const other = join(folder, "other");
    await mcp.setRoots([folder, other]);
    // The server asks for the roots again when told they changed; its tool shows what it has.
    let latest = "";
    for (let attempt = 0; attempt < 50 && !latest.includes(pathToFileURL(other).href); attempt++) {
      latest = textOf(await mcp.callTool("everything", "get-roots-list"));
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(latest).toContain("Current MCP Roots (2 total)");
    expect(latest).toContain(`URI: ${pathToFileURL(other).href}`);
  });
});

describe("without handlers", () => {
  it("declares nothing, so the server offers none of the tools that need them", async () => {
    const plain = await connectMcpServers({ mcpServers: { everything: referenceServers.everything() } });
    try {
      await new Promise((resolve) => setTimeout(resolve, 500));
      const names = plain.tools().map((tool) => tool.mcpName);
      expect(names).toContain("echo");
      expect(names).not.toContain("trigger-elicitation-request");
      expect(names).not.toContain("trigger-sampling-request");
      expect(names).not.toContain("get-roots-list");
    } finally {
      await plain.close();
    }
  });
});
