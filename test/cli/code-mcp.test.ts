// `minagent code` with MCP servers: --mcp-config, the project's .mcp.json and its approval, permission rules on MCP
// tools, and docs/mcp.md's example session — the real CLI, the real filesystem server, the local wire server.
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, test, vi } from "vitest";
import {
  approveProjectServers,
  describeMcpHints,
  describeMcpServers,
  describeProjectServers,
  startCodeMcpServers,
} from "../../src/cli/code/start-mcp-servers.js";
import { parseCodeArguments } from "../../src/cli/commands/code.js";
import type { McpServers } from "../../src/mcp/index.js";
import type { WireRequest } from "../../src/testing/wire-server.js";
import { referenceServers } from "../mcp/reference-servers.js";
import { answer, anthropicEnv, callTool, printArgs, runCode, useCodeFixture } from "./code-helpers.js";

const fixture = useCodeFixture();

/** A .mcp.json with the filesystem server over the workspace, run from node_modules by this Node. */
async function writeFilesystemConfig(path: string, root: string): Promise<void> {
  await writeFile(path, JSON.stringify({ mcpServers: { filesystem: referenceServers.filesystem(root) } }));
}

const toolNames = (request: WireRequest | undefined) =>
  (((request?.body ?? {}) as { tools?: { name: string }[] }).tools ?? []).map(({ name }) => name);

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

describe("minagent code --mcp-config", () => {
  test("parses repeated --mcp-config files and refuses --strict-mcp-config alone", () => {
    const options = parseCodeArguments(
      ["--model", "x:y", "--mcp-config", "a.json", "--mcp-config=b/c.json", "--strict-mcp-config"],
      {},
      "/w",
    );
    expect(options).toMatchObject({ mcpConfigFiles: ["/w/a.json", "/w/b/c.json"], strictMcpConfig: true });
    expect(() => parseCodeArguments(["--model", "x:y", "--strict-mcp-config"], {}, "/w")).toThrow(
      "--strict-mcp-config uses only the servers of --mcp-config files; add --mcp-config <file>",
    );
  });

  test("offers the server's tools from the first turn of a -p run, and an allow rule lets them run", async () => {
    const config = join(fixture.home, "servers.json");
    await writeFilesystemConfig(config, fixture.workspace);
    fixture.server.reply(
      callTool("toolu_1", "mcp__filesystem__read_text_file", { path: join(fixture.workspace, "notes.txt") }),
      answer("It says 42."),
    );
    const { exit, stdout, stderr } = await runCode(
      printArgs(fixture, "What do the notes say?", "--mcp-config", config, "--allowedTools", "mcp__filesystem__read_text_file"),
      anthropicEnv(fixture),
    );
    expect(exit, stderr).toBe(0);
    expect(stdout).toBe("It says 42.\n");
    expect(toolNames(fixture.server.requests[0])).toEqual(
      expect.arrayContaining(["Read", "mcp__filesystem__read_text_file", "mcp__filesystem__write_file"]),
    );
    expect(lastToolResult(fixture.server.requests[1])).toEqual({ content: "The answer is 42.\n" });
  }, 60_000);

  test("asks before an MCP call like any other (and -p has nobody to ask), and a deny rule refuses it", async () => {
    const config = join(fixture.home, "servers.json");
    await writeFilesystemConfig(config, fixture.workspace);
    fixture.server.reply(
      callTool("toolu_1", "mcp__filesystem__list_directory", { path: fixture.workspace }),
      callTool("toolu_2", "mcp__filesystem__write_file", { path: join(fixture.workspace, "x.txt"), content: "x" }),
      answer("Could not."),
    );
    const { exit, stderr } = await runCode(
      printArgs(fixture, "List and write", "--mcp-config", config, "--disallowedTools", "mcp__filesystem__write_file"),
      anthropicEnv(fixture),
    );
    expect(exit, stderr).toBe(0);
    expect(lastToolResult(fixture.server.requests[1])).toMatchObject({ is_error: true, content: expect.stringMatching(/approv/i) });
    expect(lastToolResult(fixture.server.requests[2])).toMatchObject({
      is_error: true,
      content: expect.stringMatching(/mcp__filesystem__write_file/),
    });
    await expect(readFile(join(fixture.workspace, "x.txt"), "utf8")).rejects.toThrow(/ENOENT/);
  }, 60_000);

  test("says which servers are not ready, on stderr and as mcp_servers in the JSON result and stream-json's session-start", async () => {
    const config = join(fixture.home, "servers.json");
    const missing = join(fixture.home, "no-such-server");
    await writeFile(
      config,
      JSON.stringify({
        mcpServers: {
          files: referenceServers.filesystem(fixture.workspace),
          broken: { command: missing },
          silent: { command: process.execPath, args: ["-e", "setInterval(() => {}, 1000)"] },
        },
      }),
    );
    // MCP_TIMEOUT: the silent one fails after a second, not the default 30.
    const env = { ...anthropicEnv(fixture), MCP_TIMEOUT: "1000" };
    const failed = {
      name: "broken",
      status: "failed",
      state: "failed",
      problem: `its command "${missing}" was not found: install it, or fix "command" in ${config}`,
    };
    const connected = { name: "files", status: "connected", state: "ready" };
    const timedOut = {
      name: "silent",
      status: "failed",
      state: "failed",
      problem: expect.stringMatching(/^it did not answer within 1000 ms of starting\. .*MCP_TIMEOUT=<ms> for minagent code/),
    };
    fixture.server.reply(answer("ok"), answer("ok"), answer("ok"));

    const json = await runCode(printArgs(fixture, "hi", "--mcp-config", config, "--output-format", "json"), env);
    expect(json.exit, json.stderr).toBe(0);
    expect(json.stderr.split("\n")).toEqual([
      `minagent code: MCP server "broken" failed: ${failed.problem}. Its tools are not available in this run`,
      expect.stringMatching(
        /^minagent code: MCP server "silent" failed: it did not answer within 1000 ms of starting\. .*Its tools are not available in this run$/,
      ),
      "",
    ]);
    expect(JSON.parse(json.stdout).mcp_servers).toEqual([connected, failed, timedOut]);

    const stream = await runCode(printArgs(fixture, "hi", "--mcp-config", config, "--output-format", "stream-json"), env);
    const lines = stream.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(lines[0]).toMatchObject({ type: "session-start", mcp_servers: [connected, failed, timedOut] });
    expect(lines.at(-1)).toMatchObject({ type: "result", mcp_servers: [connected, failed, timedOut] });
    expect(stream.stderr).toContain('minagent code: MCP server "broken" failed: its command');

    // --verbose says the ready ones too.
    const verbose = await runCode(printArgs(fixture, "hi", "--mcp-config", config, "--verbose"), env);
    expect(verbose.stderr).toMatch(/^minagent code: MCP server "files" ready: \d+ tools$/m);
    expect(verbose.stderr).toMatch(/^minagent code: MCP server "broken" failed: /m);
  }, 60_000);

  test("a missing --mcp-config file is misuse", async () => {
    const { exit, stderr } = await runCode(
      printArgs(fixture, "hi", "--mcp-config", join(fixture.home, "none.json")),
      anthropicEnv(fixture),
    );
    expect(exit).toBe(2);
    expect(stderr).toMatch(/The MCP config .*none\.json does not exist\./);
    expect(fixture.server.requests).toHaveLength(0);
  });
});

describe("the project's .mcp.json", () => {
  test("is not started until approved in settings the repository does not carry", async () => {
    await writeFilesystemConfig(join(fixture.workspace, ".mcp.json"), fixture.workspace);
    fixture.server.reply(answer("ok"));
    const first = await runCode(printArgs(fixture, "hi"), anthropicEnv(fixture));
    expect(first.exit, first.stderr).toBe(0);
    expect(first.stderr).toContain(
      "minagent code: The project's .mcp.json has MCP servers that were not started: filesystem. They run programs of the project's choosing; to start them, list them in \"enabledMcpjsonServers\" in .minagent/settings.local.json (or pass --mcp-config .mcp.json).",
    );
    expect(toolNames(fixture.server.requests[0]).some((name) => name.startsWith("mcp__"))).toBe(false);

    // A project's own shared settings cannot approve its servers; the local (untracked) settings can.
    await mkdir(join(fixture.workspace, ".minagent"));
    await writeFile(join(fixture.workspace, ".minagent", "settings.json"), JSON.stringify({ enableAllProjectMcpServers: true }));
    fixture.server.reply(answer("ok"));
    const shared = await runCode(printArgs(fixture, "hi"), anthropicEnv(fixture));
    expect(shared.stderr).toContain("were not started: filesystem");
    await writeFile(join(fixture.workspace, ".minagent", "settings.local.json"), JSON.stringify({ enabledMcpjsonServers: ["filesystem"] }));
    fixture.server.reply(answer("ok"));
    const approved = await runCode(printArgs(fixture, "hi"), anthropicEnv(fixture));
    expect(approved.stderr).not.toContain("not started");
    expect(toolNames(fixture.server.requests[2])).toContain("mcp__filesystem__read_text_file");
  }, 60_000);
});

describe("approving the project's servers", () => {
  test("starts them in the running session and, when remembered, in settings.local.json for the next", async () => {
    await writeFilesystemConfig(join(fixture.workspace, ".mcp.json"), fixture.workspace);
    await mkdir(join(fixture.workspace, ".minagent"));
    await writeFile(
      join(fixture.workspace, ".minagent", "settings.local.json"),
      JSON.stringify({ permissions: { allow: ["Bash(npm test)"] } }),
    );
    const setup = await startCodeMcpServers({ cwd: fixture.workspace, home: fixture.home, env: {}, configFiles: [], strict: false });
    try {
      expect(setup.unapproved.map(({ name }) => name)).toEqual(["filesystem"]);
      expect(describeProjectServers(setup.unapproved)).toEqual([
        expect.stringMatching(/^filesystem: .*node.* .*server-filesystem.*index\.js /),
      ]);
      expect(setup.mcp?.status()).toEqual([]);
      await approveProjectServers(setup.mcp as McpServers, setup.unapproved, fixture.workspace, true, fixture.home);
      await setup.mcp?.ready();
      expect(setup.mcp?.status()[0]).toMatchObject({ name: "filesystem", state: "ready" });
      expect(JSON.parse(await readFile(join(fixture.workspace, ".minagent", "settings.local.json"), "utf8"))).toEqual({
        permissions: { allow: ["Bash(npm test)"] },
        enabledMcpjsonServers: ["filesystem"],
      });
    } finally {
      await setup.mcp?.close();
    }
    const next = await startCodeMcpServers({ cwd: fixture.workspace, home: fixture.home, env: {}, configFiles: [], strict: false });
    try {
      expect(next.unapproved).toEqual([]);
      expect(next.mcp?.status().map(({ name }) => name)).toEqual(["filesystem"]);
    } finally {
      await next.mcp?.close();
    }
  }, 60_000);
});

// docs/mcp.md's example session, kept true by this test. After a deliberate change, rewrite it with
//   MINAGENT_UPDATE_EXAMPLES=1 npx vitest run test/cli/code-mcp.test.ts
const docs = fileURLToPath(new URL("../../docs/mcp.md", import.meta.url));
const marker = "<!-- mcp-example-session -->";
const block = new RegExp(`${marker}\\n\`\`\`console\\n([\\s\\S]*?)\`\`\`\\n`);

test("docs/mcp.md shows what minagent code prints with the filesystem server", async () => {
  // The session's id, so that the transcript holds one (the first UUID the command asks for is its session's).
  vi.spyOn(globalThis.crypto, "randomUUID").mockReturnValueOnce("5f0c2a9e-3b71-4d8e-a6c4-91e2b7d05f38");
  await writeFile(join(fixture.workspace, "todo.md"), "- ship MCP\n- write the docs\n");
  await writeFilesystemConfig(join(fixture.home, "mcp.json"), fixture.workspace);
  fixture.server.reply(
    callTool("toolu_01", "mcp__filesystem__list_directory", { path: fixture.workspace }, { input_tokens: 4210, output_tokens: 48 }),
    callTool(
      "toolu_02",
      "mcp__filesystem__read_text_file",
      { path: join(fixture.workspace, "todo.md") },
      { input_tokens: 4301, output_tokens: 52 },
    ),
    answer("There are two notes files. todo.md lists: ship MCP, and write the docs.", { input_tokens: 4388, output_tokens: 30 }),
  );
  const command = ["-p", "What is in this folder's notes?", "--mcp-config", "mcp.json", "--allowedTools", "mcp__filesystem", "--verbose"];
  const { exit, stdout, stderr } = await runCode(
    [
      ...command.map((argument) => (argument === "mcp.json" ? join(fixture.home, "mcp.json") : argument)),
      "--model",
      "anthropic:claude-haiku-4-5",
      "--cwd",
      fixture.workspace,
    ],
    anthropicEnv(fixture),
  );
  vi.restoreAllMocks();
  expect(exit, stderr).toBe(0);
  expect(lastToolResult(fixture.server.requests[1]).content).toBe("[FILE] notes.txt\n[FILE] todo.md");
  const quote = (argument: string) => (/^[\w:./@-]+$/.test(argument) ? argument : `"${argument}"`);
  const printed = `$ minagent code ${command.map(quote).join(" ")} --model anthropic:claude-haiku-4-5\n${stderr}${stdout}`.replaceAll(
    fixture.workspace,
    "/home/ada/notes",
  );
  const text = await readFile(docs, "utf8");
  if (process.env.MINAGENT_UPDATE_EXAMPLES) {
    await writeFile(
      docs,
      text.replace(block, () => `${marker}\n\`\`\`console\n${printed}\`\`\`\n`),
    );
    return;
  }
  expect(block.exec(text)?.[1], "docs/mcp.md's example session differs from what minagent code prints").toBe(printed);
}, 60_000);

describe("what the terminal shows of MCP servers", () => {
  test("/mcp lists each server's state, tools and problems", () => {
    const lines = describeMcpServers([
      {
        name: "files",
        source: "/p/.mcp.json",
        transport: "stdio",
        state: "ready",
        tools: ["mcp__files__read_text_file", "mcp__files__list_directory"],
        restarts: 1,
        pid: 42,
        skippedTools: ["bad: its schema is unsafe"],
      },
      {
        name: "github",
        source: "/home/ada/.minagent/mcp.json",
        transport: "http",
        state: "failed",
        tools: [],
        restarts: 0,
        problem: "fetch failed",
        skippedTools: [],
      },
    ]);
    expect(lines).toEqual([
      "files  ready  stdio  restarted 1×  (/p/.mcp.json)",
      "  2 tools: read_text_file, list_directory",
      "  left out: bad: its schema is unsafe",
      "github  failed  http  (/home/ada/.minagent/mcp.json)",
      "  fetch failed",
    ]);
  });

  test("a permission prompt says what the server claims of its tool", () => {
    expect(describeMcpHints({ server: "files", annotations: { readOnlyHint: true, openWorldHint: false } })).toBe(
      'MCP server "files" says: read-only',
    );
    expect(describeMcpHints({ server: "files", annotations: {} })).toBe(
      'MCP server "files" says: may change or destroy data, reaches outside systems',
    );
    expect(describeMcpHints({ name: "Bash" })).toBeUndefined();
  });
});
