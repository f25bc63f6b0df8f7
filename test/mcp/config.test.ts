// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the strings are .mcp.json placeholders, not templates.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { connectMcpServers, describeMcpToolResult, mcpToolName, readMcpConfigFiles, resolveMcpConfig } from "../../src/mcp/index.js";

let folder: string;
beforeEach(() => {
  folder = mkdtempSync(join(tmpdir(), "minagent-mcp-config-"));
});
afterEach(() => rmSync(folder, { recursive: true, force: true }));

describe("resolveMcpConfig", () => {
  it("reads Claude Code's .mcp.json shape, expanding ${VAR} and ${VAR:-default}", () => {
    const servers = resolveMcpConfig(
      {
        mcpServers: {
          github: { type: "http", url: "${API_BASE:-https://api.example.com}/mcp", headers: { Authorization: "Bearer ${GITHUB_TOKEN}" } },
          files: { command: "npx", args: ["-y", "@modelcontextprotocol/server-filesystem", "${HOME}/src"], env: { DEBUG: "${DEBUG:-}" } },
          legacy: { type: "sse", url: "http://127.0.0.1:9/sse" },
        },
      },
      ".mcp.json",
      { GITHUB_TOKEN: "ghp_x", HOME: "/home/ada" },
    );
    expect(servers).toEqual([
      {
        name: "github",
        source: ".mcp.json",
        config: { type: "http", url: "https://api.example.com/mcp", headers: { Authorization: "Bearer ghp_x" } },
      },
      {
        name: "files",
        source: ".mcp.json",
        config: {
          type: "stdio",
          command: "npx",
          args: ["-y", "@modelcontextprotocol/server-filesystem", "/home/ada/src"],
          env: { DEBUG: "" },
        },
      },
      { name: "legacy", source: ".mcp.json", config: { type: "sse", url: "http://127.0.0.1:9/sse" } },
    ]);
  });

  it("gives a server with a problem its message, and keeps the others", () => {
    const servers = resolveMcpConfig(
      {
        mcpServers: {
          unset: { command: "run", args: ["--token", "${MISSING}"] },
          "bad name": { command: "x" },
          noCommand: { args: [] },
          weird: { type: "websocket", url: "ws://x" },
          badArgs: { command: "x", args: "not a list" },
          fine: { command: "x" },
        },
      },
      "/p/.mcp.json",
      {},
    );
    expect(servers.map(({ name, problem }) => [name, problem])).toEqual([
      ["unset", "${MISSING} in args[1] is not set: set MISSING in the environment, or write ${MISSING:-<default>}"],
      ["bad name", 'the server name "bad name" must be 1–64 letters, digits, "_" or "-"'],
      ["noCommand", 'unknown type undefined: use "stdio" (with a command), "http" or "sse" (with a url)'],
      ["weird", 'unknown type "websocket": use "stdio" (with a command), "http" or "sse" (with a url)'],
      ["badArgs", '"args" must be a list of strings'],
      ["fine", undefined],
    ]);
  });

  it("reads minagent's own \"sandbox\" field of a stdio server; a non-boolean, or one on a remote server, is that server's problem", async () => {
    const file = join(folder, ".mcp.json");
    writeFileSync(
      file,
      JSON.stringify({
        mcpServers: {
          confined: { command: "x", sandbox: true },
          open: { command: "x", sandbox: false },
          plain: { command: "x" },
          word: { command: "x", sandbox: "yes" },
          remote: { type: "http", url: "https://mcp.example.com/mcp", sandbox: true },
          remoteOff: { type: "sse", url: "https://mcp.example.com/sse", sandbox: false },
        },
      }),
    );
    const servers = await readMcpConfigFiles([{ path: file }], {});
    expect(servers.map(({ name, config, problem }) => [name, config, problem])).toEqual([
      ["confined", { type: "stdio", command: "x", sandbox: true }, undefined],
      ["open", { type: "stdio", command: "x", sandbox: false }, undefined],
      ["plain", { type: "stdio", command: "x" }, undefined],
      ["word", undefined, '"sandbox" must be true or false, got "yes"'],
      ["remote", undefined, '"sandbox" applies to stdio servers (a command minagent starts), not to a server reached at a url (http)'],
      ["remoteOff", { type: "sse", url: "https://mcp.example.com/sse" }, undefined],
    ]);
    // The server is failed with its name and the file, and nothing is started.
    const mcp = await connectMcpServers(servers.filter(({ name }) => name === "word"));
    expect(mcp.status()).toMatchObject([{ name: "word", state: "failed", problem: `${file}: "sandbox" must be true or false, got "yes"` }]);
    await mcp.close();
  });

  it("refuses a document without mcpServers, naming the file", () => {
    expect(() => resolveMcpConfig({ servers: {} }, "/p/.mcp.json", {})).toThrow(/^\/p\/\.mcp\.json: expected an object with "mcpServers"/);
  });
});

describe("readMcpConfigFiles", () => {
  it("reads the user's, the project's and the named files in order, a later server replacing an earlier one", async () => {
    const user = join(folder, "user.json");
    const project = join(folder, ".mcp.json");
    writeFileSync(user, JSON.stringify({ mcpServers: { a: { command: "user-a" }, b: { command: "user-b" } } }));
    writeFileSync(project, JSON.stringify({ mcpServers: { b: { command: "project-b" } } }));
    const servers = await readMcpConfigFiles([{ path: user }, { path: project }, { path: join(folder, "absent.json") }], {});
    expect(servers.map(({ name, source, config }) => [name, source, config?.type === "stdio" && config.command])).toEqual([
      ["a", user, "user-a"],
      ["b", project, "project-b"],
    ]);
  });

  it("says which file is not valid JSON, and that a named file is missing", async () => {
    const broken = join(folder, "broken.json");
    writeFileSync(broken, "{ mcpServers: ");
    await expect(readMcpConfigFiles([{ path: broken }], {})).rejects.toThrow(
      new RegExp(`^${broken} is not valid JSON \\(.+\\); fix it or remove it\\.$`),
    );
    await expect(readMcpConfigFiles([{ path: join(folder, "named.json"), required: true }], {})).rejects.toThrow(
      /named\.json does not exist/,
    );
  });

  it("refuses two servers of one name given in code", async () => {
    await expect(
      connectMcpServers([
        { name: "x", source: "a", config: { command: "a" } },
        { name: "x", source: "b", config: { command: "b" } },
      ]),
    ).rejects.toThrow('Two MCP servers are named "x"');
  });
});

describe("mcpToolName", () => {
  it("is Claude Code's mcp__server__tool, with characters APIs refuse made _ and long names cut with a hash", () => {
    expect(mcpToolName("github", "create_issue")).toBe("mcp__github__create_issue");
    expect(mcpToolName("files", "read.file v2")).toBe("mcp__files__read_file_v2");
    const long = mcpToolName("server", "x".repeat(80));
    const other = mcpToolName("server", `${"x".repeat(79)}y`);
    expect(long).toHaveLength(64);
    expect(long).toMatch(/^mcp__server__x+_[0-9a-f]{8}$/);
    expect(other).not.toBe(long);
  });
});

describe("describeMcpToolResult", () => {
  it("turns every kind of content into text the model can read", () => {
    const text = describeMcpToolResult({
      content: [
        { type: "text", text: "hello" },
        { type: "audio", data: "AAAA", mimeType: "audio/wav" },
        { type: "resource_link", uri: "file:///a.txt", name: "a.txt", description: "the notes" },
        { type: "resource", resource: { uri: "file:///b.bin", mimeType: "application/octet-stream", blob: "AAAAAAAA" } },
        { type: "hologram", data: 1 },
      ],
    });
    expect(text.split("\n")).toEqual([
      "hello",
      "[audio audio/wav, 3 bytes: not shown, this agent's tool results are text]",
      "[resource link: file:///a.txt (a.txt) — the notes]",
      "[resource file:///b.bin, application/octet-stream] 6 bytes of binary data: not shown",
      "[hologram content: not shown]",
    ]);
  });

  it("sends structured content as JSON only when there is nothing else", () => {
    expect(describeMcpToolResult({ content: [], structuredContent: { temperature: 21 } })).toBe('{"temperature":21}');
    expect(describeMcpToolResult({ content: [{ type: "text", text: "21°C" }], structuredContent: { temperature: 21 } })).toBe("21°C");
  });
});

describe("secrets", () => {
  it("cuts a server's environment values out of what it printed before it failed", async () => {
    const mcp = await connectMcpServers({
      mcpServers: {
        leaky: {
          command: process.execPath,
          args: ["-e", "console.error('starting with token ' + process.env.API_TOKEN); process.exit(3)"],
          env: { API_TOKEN: "sk-live-5550123" },
        },
      },
    });
    try {
      const [status] = mcp.status();
      expect(status?.state).toBe("failed");
      expect(status?.problem).toContain("starting with token [redacted]");
      expect(JSON.stringify(status)).not.toContain("sk-live-5550123");
    } finally {
      await mcp.close();
    }
  }, 30_000);
});
