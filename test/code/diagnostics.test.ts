import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { Diagnostics, formatErrors, newErrors } from "../../src/code/diagnostics/index.js";
import { CodingAgent, type CodingAgentOptions, readLanguageServerSettings } from "../../src/code/index.js";
import { FakeModel, type Message } from "../../src/index.js";
import { reply, toolCall } from "../../src/testing/index.js";
import { temporaryFolder } from "../helpers/temporary-folder.js";

// The real typescript-language-server (a devDependency) on a TypeScript project the tests make. The projects have no
// node_modules: the server is found through `searchPath`, as it would be on PATH.
const serverFolder = join(import.meta.dirname, "../../node_modules/.bin");

const pristine = [
  "export const count: number = 1;",
  "export const label: string = 42;", // an error already there: never reported as new
  "",
].join("\n");

function project(files: Record<string, string> = {}): string {
  const root = temporaryFolder("minagent-diagnostics-");
  const all = {
    "tsconfig.json": JSON.stringify({
      compilerOptions: { strict: true, target: "ES2022", module: "NodeNext", noEmit: true },
      include: ["src"],
    }),
    "src/a.ts": pristine,
    ...files,
  };
  for (const [path, content] of Object.entries(all)) {
    mkdirSync(join(root, path, ".."), { recursive: true });
    writeFileSync(join(root, path), content);
  }
  return root;
}

function agentOn(root: string, model: FakeModel, options: Partial<CodingAgentOptions> = {}): Promise<CodingAgent> {
  return CodingAgent.create(model, {
    workspace: root,
    settingsFiles: [],
    mode: "bypassPermissions",
    sandbox: { enabled: false },
    memory: false,
    subagents: false,
    compaction: false,
    diagnostics: { searchPath: serverFolder },
    ...options,
  });
}

const resultOf = (messages: readonly Message[], id: string) => messages.find((message) => message.toolCallId === id)?.content ?? "";

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe("diagnostics after edits, with typescript-language-server", () => {
  it("appends the errors an edit brings, not those already there, nothing once fixed; one server, stopped on close", async () => {
    const root = project();
    const model = new FakeModel([
      reply("", toolCall("Read", { file_path: "src/a.ts" }, "read")),
      // A new line above the old error: its line moves, and it is still not new.
      reply(
        "",
        toolCall(
          "Edit",
          {
            file_path: "src/a.ts",
            old_string: "export const count",
            new_string: 'export const total: number = "many";\nexport const count',
          },
          "break",
        ),
      ),
      reply("", toolCall("Edit", { file_path: "src/a.ts", old_string: '= "many"', new_string: "= 2" }, "fix")),
      reply(
        "",
        toolCall(
          "Write",
          { file_path: "src/b.ts", content: "export function twice(n: number): number {\n  return n.repeat(2);\n}\n" },
          "write",
        ),
      ),
      "Done.",
    ]);
    const agent = await agentOn(root, model);
    expect(agent.warnings).toEqual([]);
    const result = await agent.run("Change a.ts.");
    const broken = resultOf(result.messages, "break");
    expect(broken).toContain("New errors in src/a.ts (typescript language server):");
    expect(broken).toContain("src/a.ts:1:14 error TS2322: Type 'string' is not assignable to type 'number'.");
    expect(broken).not.toContain("src/a.ts:3:");
    expect(broken.match(/error TS/g)).toHaveLength(1);
    const fixed = resultOf(result.messages, "fix");
    expect(fixed).not.toContain("error");
    expect(fixed).not.toContain("diagnostics");
    expect(resultOf(result.messages, "write")).toContain("src/b.ts:2:12 error TS2339: Property 'repeat' does not exist on type 'number'.");
    expect(readFileSync(join(root, "src/a.ts"), "utf8")).toContain("total: number = 2");
    const running = await agent.diagnostics?.running();
    expect(running).toHaveLength(1);
    const pid = running?.[0]?.pid ?? 0;
    expect(isAlive(pid)).toBe(true);
    await agent.close();
    expect(isAlive(pid)).toBe(false);
  }, 60_000);

  it("a Read starts the server in the background; no Read, no server", async () => {
    const root = project();
    const agent = await agentOn(root, new FakeModel([]));
    const context = { signal: new AbortController().signal, toolCallId: "read", run: undefined as never };
    expect(await agent.diagnostics?.running()).toEqual([]);
    await agent.registry.get("Read")?.execute({ file_path: "src/a.ts" }, context);
    // Started after the Read's result, in the background.
    await vi.waitFor(async () => expect(await agent.diagnostics?.running()).toEqual([{ name: "typescript", pid: expect.any(Number) }]));
    await agent.close();
  }, 60_000);

  it("a configured server that is not installed is one warning; edits still work, with nothing appended", async () => {
    const root = project({
      ".minagent/settings.json": JSON.stringify({
        lsp: { mine: { command: ["no-such-language-server", "--stdio"], extensions: [".ts"] } },
      }),
    });
    const model = new FakeModel([
      reply("", toolCall("Read", { file_path: "src/a.ts" }, "read")),
      reply("", toolCall("Edit", { file_path: "src/a.ts", old_string: "= 1;", new_string: '= "one";' }, "edit")),
      "Done.",
    ]);
    const agent = await agentOn(root, model, { settingsFiles: [join(root, ".minagent/settings.json")], diagnostics: { searchPath: "" } });
    expect(agent.warnings).toHaveLength(1);
    expect(agent.warnings[0]).toContain(
      '"mine" language server\'s command "no-such-language-server" is not in node_modules/.bin or on PATH',
    );
    const result = await agent.run("Edit.");
    expect(resultOf(result.messages, "edit")).not.toContain("error");
    expect(readFileSync(join(root, "src/a.ts"), "utf8")).toContain('count: number = "one"');
    expect(await agent.diagnostics?.running()).toEqual([]);
    await agent.close();
  });

  it("no configuration and no server installed: silent", async () => {
    const root = project();
    const model = new FakeModel([
      reply("", toolCall("Read", { file_path: "src/a.ts" }, "read")),
      reply("", toolCall("Edit", { file_path: "src/a.ts", old_string: "= 1;", new_string: '= "one";' }, "edit")),
      "Done.",
    ]);
    const agent = await agentOn(root, model, { diagnostics: { searchPath: "" } });
    expect(agent.warnings).toEqual([]);
    const result = await agent.run("Edit.");
    expect(resultOf(result.messages, "edit")).toMatch(/^Edited src\/a\.ts: replaced 1 occurrence/);
    expect(resultOf(result.messages, "edit")).not.toContain("error");
    await agent.close();
  });
});

describe("diagnostics with other servers", () => {
  it("says so when the server gives no diagnostics in time, and stops it on close", async () => {
    // A server that answers initialize and shutdown but never publishes.
    const root = project({
      "silent-server.mjs": [
        `import { createMessageConnection, StreamMessageReader, StreamMessageWriter } from ${JSON.stringify(join(import.meta.dirname, "../../node_modules/vscode-jsonrpc/lib/node/main.js"))};`,
        "const connection = createMessageConnection(new StreamMessageReader(process.stdin), new StreamMessageWriter(process.stdout));",
        'connection.onRequest("initialize", () => ({ capabilities: {} }));',
        'connection.onRequest("shutdown", () => null);',
        'connection.onNotification("exit", () => process.exit(0));',
        "connection.listen();",
      ].join("\n"),
    });
    const model = new FakeModel([
      reply("", toolCall("Read", { file_path: "src/a.ts" }, "read")),
      reply("", toolCall("Edit", { file_path: "src/a.ts", old_string: "= 1;", new_string: "= 2;" }, "edit")),
      "Done.",
    ]);
    const agent = await agentOn(root, model, {
      diagnostics: {
        searchPath: "",
        timeoutMs: 300,
        startTimeoutMs: 2_000,
        servers: [{ name: "silent", command: [process.execPath, join(root, "silent-server.mjs")], extensions: { ".ts": "typescript" } }],
      },
    });
    const result = await agent.run("Edit.");
    expect(resultOf(result.messages, "edit")).toContain(
      "[diagnostics: the silent language server gave none for src/a.ts within 0.3 s; errors are not shown]",
    );
    const pid = (await agent.diagnostics?.running())?.[0]?.pid ?? 0;
    expect(isAlive(pid)).toBe(true);
    await agent.close();
    expect(isAlive(pid)).toBe(false);
  });

  /** A server that publishes an open file's errors in two steps `stepMs` apart: none at once, then a line's `"bad"`. */
  const steppedServer = (stepMs: number) =>
    [
      `import { createMessageConnection, StreamMessageReader, StreamMessageWriter } from ${JSON.stringify(join(import.meta.dirname, "../../node_modules/vscode-jsonrpc/lib/node/main.js"))};`,
      "const connection = createMessageConnection(new StreamMessageReader(process.stdin), new StreamMessageWriter(process.stdout));",
      'connection.onRequest("initialize", () => ({ capabilities: {} }));',
      'connection.onRequest("shutdown", () => null);',
      'connection.onNotification("exit", () => process.exit(0));',
      'const publish = (uri, diagnostics) => connection.sendNotification("textDocument/publishDiagnostics", { uri, diagnostics });',
      'connection.onNotification("textDocument/didOpen", ({ textDocument: { uri, text } }) => {',
      "  publish(uri, []);",
      "  const errors = text.split('\\n').flatMap((line, index) => line.includes('\"bad\"')",
      "    ? [{ range: { start: { line: index, character: 13 }, end: { line: index, character: 16 } }, severity: 1, code: 1, message: 'Bad.' }] : []);",
      `  setTimeout(() => publish(uri, errors), ${stepMs});`,
      "});",
      'connection.onNotification("textDocument/didClose", ({ textDocument: { uri } }) => publish(uri, []));',
      "connection.listen();",
    ].join("\n");

  /** Reads src/a.ts (its first diagnosis), then adds a line with an error above the old one; the Edit's result. */
  async function editWithSteppedServer(stepMs: number, settleMs: number): Promise<string> {
    const root = project({ "src/a.ts": 'export const old = "bad";\n', "stepped-server.mjs": steppedServer(stepMs) });
    const model = new FakeModel([
      reply("", toolCall("Read", { file_path: "src/a.ts" }, "read")),
      reply(
        "",
        toolCall(
          "Edit",
          { file_path: "src/a.ts", old_string: "export const old", new_string: 'export const added = "bad";\nexport const old' },
          "edit",
        ),
      ),
      "Done.",
    ]);
    const agent = await agentOn(root, model, {
      diagnostics: {
        searchPath: "",
        settleMs,
        servers: [{ name: "stepped", command: [process.execPath, join(root, "stepped-server.mjs")], extensions: { ".ts": "typescript" } }],
      },
    });
    try {
      return resultOf((await agent.run("Edit.")).messages, "edit");
    } finally {
      await agent.close();
    }
  }

  it("takes a server's last publish for a file, not its first: servers publish in steps", async () => {
    // As typescript-language-server does on a busy machine: the syntax errors at once (none here), the type errors
    // later. A wait that took the first publish would see no errors before or after the edit. The settle time is far
    // above the step so that a loaded machine cannot stretch one past the other.
    const edited = await editWithSteppedServer(100, 1_000);
    expect(edited).toContain("New errors in src/a.ts (stepped language server):\nsrc/a.ts:1:14 error 1: Bad.");
    expect(edited).not.toContain("src/a.ts:2:");
  });

  it("waits longer for a server seen to take longer between its steps than the settle time", async () => {
    // Steps 300 ms apart, a settle time of 200 ms: the first diagnosis (after the Read) waits four times as long and
    // sees the step, so the Edit's diagnosis waits twice the step (600 ms) and gets the error, where 200 ms would not.
    const edited = await editWithSteppedServer(300, 200);
    expect(edited).toContain("New errors in src/a.ts (stepped language server):\nsrc/a.ts:1:14 error 1: Bad.");
    expect(edited).not.toContain("src/a.ts:2:");
  });

  it("leaves the workspace's node_modules/.bin alone with workspaceBin: false (a folder not trusted)", async () => {
    const root = project({ "node_modules/.bin/typescript-language-server": "#!/bin/sh\necho pwned > pwned.txt\n" });
    chmodSync(join(root, "node_modules/.bin/typescript-language-server"), 0o755);
    const servers = readLanguageServerSettings({ files: [], locations: [] }).servers;
    const untrusted = await Diagnostics.create({ root, servers, searchPath: "", workspaceBin: false });
    expect(untrusted.serves(join(root, "src/a.ts"))).toBe(false);
    const trusted = await Diagnostics.create({ root, servers, searchPath: "" });
    expect(trusted.serves(join(root, "src/a.ts"))).toBe(true);
  });
});

describe("language server settings", () => {
  const settingsWith = (lsp: unknown) => ({
    files: [{ path: "/p/.minagent/settings.json", level: "project" as const, settings: { lsp } }],
    locations: [],
  });

  it("reads opencode's shape and Claude Code's .lsp.json shape, over the built-in TypeScript server", () => {
    const read = readLanguageServerSettings(
      settingsWith({
        go: { command: "gopls", args: ["serve"], extensionToLanguage: { ".go": "go" } },
        python: { command: ["pyright-langserver", "--stdio"], extensions: [".py"], env: { A: "1" }, initialization: { x: 1 } },
      }),
    );
    expect(read.warnings).toEqual([]);
    expect(read.servers.map((server) => [server.name, server.command, server.extensions])).toEqual([
      ["typescript", ["typescript-language-server", "--stdio"], expect.objectContaining({ ".ts": "typescript" })],
      ["go", ["gopls", "serve"], { ".go": "go" }],
      ["python", ["pyright-langserver", "--stdio"], { ".py": "python" }],
    ]);
    expect(read.servers[2]).toMatchObject({ env: { A: "1" }, initializationOptions: { x: 1 } });
  });

  it("turns servers off, and says what is wrong with an entry", () => {
    expect(readLanguageServerSettings(settingsWith(false)).servers).toEqual([]);
    expect(readLanguageServerSettings(settingsWith({ typescript: { disabled: true } })).servers).toEqual([]);
    const read = readLanguageServerSettings(settingsWith({ bad: { command: [] }, none: { command: "x" } }));
    expect(read.servers.map((server) => server.name)).toEqual(["typescript"]);
    expect(read.warnings).toEqual([
      '/p/.minagent/settings.json: "lsp.bad" needs "command": ["server", "--stdio"] (or a string with "args"); it is left out.',
      '/p/.minagent/settings.json: "lsp.none" names no file types ("extensions": [".go"] or "extensionToLanguage"); it is left out.',
    ]);
  });
});

describe("new errors", () => {
  const at = (line: number, character: number, length: number) => ({
    start: { line, character },
    end: { line, character: character + length },
  });
  const error = (line: number, character: number, length: number, message = "Type 'string' is not assignable to type 'number'.") => ({
    range: at(line, character, length),
    message,
    severity: 1 as const,
    code: 2322,
    source: "typescript",
  });

  it("knows an old error on a moved line by its text, and counts identical ones", () => {
    const before = { text: 'const a: number = "x";\n', diagnostics: [error(0, 6, 1)] };
    const after = {
      text: 'const b: number = "y";\nconst a: number = "x";\nconst a: number = "x";\n',
      diagnostics: [error(0, 6, 1), error(1, 6, 1), error(2, 6, 1)],
    };
    expect(newErrors(before, after).map((found) => found.range.start.line)).toEqual([0, 2]);
    const warning = { ...error(0, 6, 1), severity: 2 as const };
    expect(newErrors(undefined, { text: after.text, diagnostics: [warning] })).toEqual([]);
  });

  it("formats errors as a compiler does, within the caps", () => {
    const errors = Array.from({ length: 12 }, (_, index) => error(index, 0, 1));
    const text = formatErrors("src/a.ts", errors, { maxErrors: 10, maxCharacters: 2_000 });
    expect(text.split("\n")).toHaveLength(11);
    expect(text.split("\n")[0]).toBe("src/a.ts:1:1 error TS2322: Type 'string' is not assignable to type 'number'.");
    expect(text.split("\n")[10]).toBe("… and 2 more errors");
    expect(formatErrors("src/a.ts", errors, { maxErrors: 10, maxCharacters: 200 }).split("\n")).toHaveLength(3);
  });
});
