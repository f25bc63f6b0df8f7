import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { computeFileChange, diffHunks, formatFileChange } from "../../src/cli/code/interactive/change-preview.js";
import { contextWindowOf } from "../../src/cli/code/interactive/context-windows.js";
import { KeyDecoder } from "../../src/cli/code/interactive/keys.js";
import { matchSlashCommands } from "../../src/cli/code/interactive/slash-commands.js";
import { formatCost, formatSpending, formatStatus, shortModelName } from "../../src/cli/code/interactive/status-line.js";
import { createStyle } from "../../src/cli/code/interactive/terminal.js";
import { displayWidth, printable, truncateToWidth, wrapToWidth } from "../../src/cli/code/interactive/text-width.js";
import { SessionRules, saveAllowRules } from "../../src/cli/code/session-rules.js";
import { describeToolCall, summarizeToolResult } from "../../src/cli/code/tool-line.js";
import { CodingAgent } from "../../src/code/coding-agent.js";
import { Workspace } from "../../src/code/workspace.js";
import { FakeModel } from "../../src/models/fake-model.js";
import type { Tool } from "../../src/tools/tool.js";

const plain = createStyle(false);

describe("KeyDecoder", () => {
  test("reads text, control keys and escape sequences, also when a sequence is split between reads", () => {
    const decoder = new KeyDecoder();
    expect(decoder.feed("hé世\r")).toEqual([{ name: "text", text: "hé世" }, { name: "enter" }]);
    expect(decoder.feed("\x1b[Z\x03\x04\x7f\t")).toEqual([
      { name: "shift-tab" },
      { name: "ctrl-c" },
      { name: "ctrl-d" },
      { name: "backspace" },
      { name: "tab" },
    ]);
    expect(decoder.feed("\x1b[")).toEqual([]);
    expect(decoder.waiting).toBe(true);
    expect(decoder.feed("A\x1bOD\x1b[3~\x1b[1;5C\x1b\r")).toEqual([
      { name: "up" },
      { name: "left" },
      { name: "delete" },
      { name: "word-right" },
      { name: "newline" },
    ]);
  });

  test("a lone ESC is Escape once no more bytes come (flush); ESC before a letter is Escape then the letter", () => {
    const decoder = new KeyDecoder();
    expect(decoder.feed("\x1b")).toEqual([]);
    expect(decoder.flush()).toEqual([{ name: "escape" }]);
    expect(decoder.feed("\x1bq")).toEqual([{ name: "escape" }, { name: "text", text: "q" }]);
  });

  test("a bracketed paste is one key, line breaks and all, even split across reads", () => {
    const decoder = new KeyDecoder();
    expect(decoder.feed("\x1b[200~line one\r\nline")).toEqual([]);
    expect(decoder.feed(" two\x1b[20")).toEqual([]);
    expect(decoder.feed("1~x")).toEqual([
      { name: "paste", text: "line one\nline two" },
      { name: "text", text: "x" },
    ]);
  });
});

describe("text on a terminal", () => {
  test("widths count wide characters twice and escape sequences not at all; cutting ends in …", () => {
    expect(displayWidth("a世b")).toBe(4);
    expect(displayWidth("\x1b[31mred\x1b[39m")).toBe(3);
    expect(truncateToWidth("abcdefgh", 5)).toBe("abcd…");
    expect(truncateToWidth("abc", 5)).toBe("abc");
    // Wrapped at words, under a hanging indent; a word longer than a line is cut; wide characters count twice.
    expect(wrapToWidth("one two three", 9, { hangingIndent: "  " })).toEqual(["one two", "  three"]);
    expect(wrapToWidth("name  a description", 12, { hangingIndent: "    " })).toEqual(["name  a", "    descript", "    ion"]);
    expect(wrapToWidth("北京 上海 天气", 6)).toEqual(["北京", "上海", "天气"]);
  });

  test("printable removes what could move the cursor (ESC, CR) but keeps line breaks and tabs", () => {
    expect(printable("ok\x1b[2J\rgone\tkept\n")).toBe("ok[2Jgone\tkept\n");
  });
});

describe("line diff", () => {
  test("aligns the lines that stay; removals before additions; numbers in the old and new file", () => {
    const lines = diffHunks("a\nb\nc\nd\n", "a\nB\nc\nd\ne\n").flat();
    expect(lines.map((line) => `${line.kind}${line.oldNumber ?? "-"}:${line.newNumber ?? "-"} ${line.text}`)).toEqual([
      " 1:1 a",
      "-2:- b",
      "+-:2 B",
      " 3:3 c",
      " 4:4 d",
      "+-:5 e",
    ]);
  });

  test("hunks keep three lines around each change and merge changes that are close", () => {
    const before = Array.from({ length: 30 }, (_, index) => `line ${index + 1}`).join("\n");
    const after = before.replace("line 5\n", "line five\n").replace("line 8\n", "line eight\n").replace("line 25\n", "");
    const hunks = diffHunks(before, after);
    expect(hunks).toHaveLength(2);
    expect(hunks[0]?.map((line) => line.text)).toEqual([
      "line 2",
      "line 3",
      "line 4",
      "line 5",
      "line five",
      "line 6",
      "line 7",
      "line 8",
      "line eight",
      "line 9",
      "line 10",
      "line 11",
    ]);
    expect(hunks[1]?.filter((line) => line.kind !== " ").map((line) => `${line.kind}${line.text}`)).toEqual(["-line 25"]);
  });
});

describe("change previews for Edit and Write", () => {
  let root: string;
  let workspace: Workspace;
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), "minagent-preview-"));
    workspace = new Workspace({ root });
    await writeFile(join(root, "math.js"), "export function add(a, b) {\n  return a - b;\n}\n");
  });
  afterEach(() => rm(root, { recursive: true, force: true }));

  test("an Edit is shown as the diff it makes to the file as it is now", async () => {
    const change = await computeFileChange(
      { name: "Edit", arguments: { file_path: "math.js", old_string: "a - b", new_string: "a + b" } },
      workspace,
    );
    expect(formatFileChange(change as never, plain, 80)).toEqual([
      "  1   export function add(a, b) {",
      "  2 -   return a - b;",
      "  2 +   return a + b;",
      "  3   }",
    ]);
  });

  test("an Edit of a CRLF file that the tool will make is previewed as the change it makes, not as failing", async () => {
    await writeFile(join(root, "win.js"), "export function add(a, b) {\r\n  return a - b;\r\n}\r\n");
    // The model sends LF; the Edit tool matches it against the file's CRLF lines.
    const change = await computeFileChange(
      { name: "Edit", arguments: { file_path: "win.js", old_string: "  return a - b;\n}", new_string: "  return a + b;\n}" } },
      workspace,
    );
    expect(change?.note).toBeUndefined();
    expect(formatFileChange(change as never, plain, 80)).toEqual([
      "  1   export function add(a, b) {",
      "  2 -   return a - b;",
      "  2 +   return a + b;",
      "  3   }",
    ]);
  });

  test("an Edit the tool would refuse says why: old_string found more than once without replace_all", async () => {
    await writeFile(join(root, "twice.txt"), "x = 1\nx = 1\n");
    const edit = { file_path: "twice.txt", old_string: "x = 1", new_string: "x = 2" };
    const ambiguous = await computeFileChange({ name: "Edit", arguments: edit }, workspace);
    expect(ambiguous?.failure).toBe("the text to replace (old_string) occurs more than once in twice.txt, and replace_all is not set");
    expect(ambiguous?.hunks).toBeUndefined();
    const all = await computeFileChange({ name: "Edit", arguments: { ...edit, replace_all: true } }, workspace);
    expect(all?.note).toBeUndefined();
    expect(all?.hunks?.flat().filter((line) => line.kind === "+")).toHaveLength(2);
  });

  test("a Write of a new file, an Edit that will not apply, a Write over a file", async () => {
    const created = await computeFileChange({ name: "Write", arguments: { file_path: "new.txt", content: "one\ntwo\n" } }, workspace);
    expect(formatFileChange(created as never, plain, 80)).toEqual(["  (new file, 2 lines)", "  1 + one", "  2 + two"]);
    const missed = await computeFileChange(
      { name: "Edit", arguments: { file_path: "math.js", old_string: "a * b", new_string: "a + b" } },
      workspace,
    );
    // No diff of a change that cannot happen: the failure instead.
    expect(formatFileChange(missed as never, plain, 80)).toEqual(["  Will fail: the text to replace (old_string) is not found in math.js"]);
    const overwritten = await computeFileChange(
      { name: "Write", arguments: { file_path: join(root, "math.js"), content: "export const add = (a, b) => a + b;\n" } },
      workspace,
    );
    expect(overwritten?.hunks?.flat().filter((line) => line.kind === "-")).toHaveLength(3);
    expect(await computeFileChange({ name: "Bash", arguments: { command: "ls" } }, workspace)).toBeUndefined();
  });
});

describe("tool lines", () => {
  test("each tool is named by its key argument; absolute paths in the workspace are shown relative", () => {
    const root = "/work/project";
    expect(describeToolCall({ name: "Read", arguments: { file_path: "/work/project/src/a.ts", offset: 10, limit: 5 } }, root)).toBe(
      "Read(src/a.ts:10-14)",
    );
    expect(describeToolCall({ name: "Bash", arguments: { command: "npm   test\n  -- --watch=false" } }, root)).toBe(
      "Bash(npm test -- --watch=false)",
    );
    expect(describeToolCall({ name: "Grep", arguments: { pattern: "TODO", path: "src" } }, root)).toBe('Grep("TODO" in src)');
    expect(describeToolCall({ name: "Glob", arguments: { pattern: "**/*.ts" } }, root)).toBe("Glob(**/*.ts)");
    expect(describeToolCall({ name: "TodoWrite", arguments: { todos: [{}, {}] } }, root)).toBe("TodoWrite(2 tasks)");
    expect(describeToolCall({ name: "EnterPlanMode", arguments: {} }, root)).toBe("EnterPlanMode");
    const notebook = { notebook_path: "/work/project/nb.ipynb", new_source: "x" };
    expect(describeToolCall({ name: "NotebookEdit", arguments: { ...notebook, cell_id: "load" } }, root)).toBe(
      "NotebookEdit(nb.ipynb load)",
    );
    expect(describeToolCall({ name: "NotebookEdit", arguments: { ...notebook, cell_id: "load", edit_mode: "insert" } }, root)).toBe(
      "NotebookEdit(nb.ipynb after load)",
    );
  });

  test("outcomes in a few words: lines read, exit status and output size, files found, the first line of an error", () => {
    const read = { name: "Read", arguments: {} };
    expect(summarizeToolResult(read, { content: "     1\tone\n     2\ttwo" })).toBe("2 lines");
    const notebook = "nb.ipynb is a Jupyter notebook (nbformat 4.5, kernel Python 3) with 3 cells. Each cell's id…\n\n<cell";
    expect(summarizeToolResult(read, { content: notebook })).toBe("3 cells");
    const bash = { name: "Bash", arguments: {} };
    expect(summarizeToolResult(bash, { content: "a\nb\n\nExit code: 1" })).toBe("exit 1 · 2 lines of output");
    expect(summarizeToolResult(bash, { content: "(no output)\n\nExit code: 0\n[Working directory: src]" })).toBe("exit 0 · no output");
    expect(summarizeToolResult({ name: "Glob", arguments: {} }, { content: "a.ts\nb.ts" })).toBe("2 files");
    const search =
      'Web search results for query: "node"\n\n1. Node.js — https://nodejs.org/\n2. Blog — https://nodejs.org/blog\n\nSummary:\n3. not a result';
    expect(summarizeToolResult({ name: "WebSearch", arguments: {} }, { content: search })).toBe("2 results");
    expect(summarizeToolResult(bash, { content: "Error: The command timed out\nmore", isError: true })).toBe("The command timed out");
    const edit = { name: "Edit", arguments: {} };
    expect(summarizeToolResult(edit, { content: "Edited a.js: replaced 1 occurrence (line 2). It now reads:\n 2\tx" })).toBe(
      "Edited a.js: replaced 1 occurrence (line 2).",
    );
  });
});

describe("the status line", () => {
  test("mode and keys on the left, tokens, cost and context use on the right", () => {
    const facts = {
      mode: "acceptEdits" as const,
      activity: "running" as const,
      usage: { inputTokens: 12_000, outputTokens: 345 },
      costUsd: 0.0123,
      contextTokens: 30_000,
      contextWindow: contextWindowOf("claude-sonnet-4-5-20250929"),
    };
    const line = formatStatus(facts, plain, 120);
    expect(line).toMatch(
      /^⏵⏵ accept edits on \(shift\+tab to cycle\) · working \(esc to interrupt\) +12,345 tokens · \$0\.0123 · context 15% of 200k$/,
    );
    expect(line.length).toBe(119);
    expect(
      formatSpending({ usage: { inputTokens: 10, outputTokens: 5 }, costUsd: undefined, contextTokens: 12_345, contextWindow: undefined }),
    ).toBe("15 tokens · context 12k");
    expect(contextWindowOf("nosuch-model")).toBeUndefined();
  });

  test("the model's short name on the right; a narrow screen drops the key hint, then the context use, then the model", () => {
    const facts = {
      mode: "default" as const,
      activity: "idle" as const,
      usage: { inputTokens: 12_000, outputTokens: 345 },
      costUsd: 0.0123,
      contextTokens: 30_000,
      contextWindow: 200_000,
      modelId: "claude-sonnet-4-5-20250929",
    };
    const right = "claude-sonnet-4-5 · 12,345 tokens · $0.0123 · context 15% of 200k";
    expect(formatStatus(facts, plain, 120)).toMatch(new RegExp(`^default mode \\(shift\\+tab to cycle\\) +${escapeRegExp(right)}$`));
    expect(formatStatus(facts, plain, 85)).toMatch(new RegExp(`^default mode +${escapeRegExp(right)}$`));
    expect(formatStatus(facts, plain, 60)).toMatch(/^default mode +claude-sonnet-4-5 · 12,345 tokens · \$0\.0123$/);
    expect(formatStatus(facts, plain, 40)).toBe("default mode · 12,345 tokens · $0.0123");
    for (const columns of [120, 85, 60]) expect(formatStatus(facts, plain, columns).length).toBe(columns - 1);
  });

  test("model names are cut to what tells them apart", () => {
    expect(shortModelName("claude-haiku-4-5-20251001")).toBe("claude-haiku-4-5");
    expect(shortModelName("gpt-5")).toBe("gpt-5");
    expect(shortModelName("qwen3:8b")).toBe("qwen3:8b");
    expect(shortModelName("us.anthropic.claude-sonnet-4-5-20250929-v1:0")).toBe("claude-sonnet-4-5");
    expect(shortModelName("meta-llama/Llama-3.1-8B-Instruct")).toBe("Llama-3.1-8B-Instruct");
    expect(shortModelName("a-very-long-fine-tuned-model-name-of-ours")).toBe("a-very-long-fine-tuned-…");
  });

  test("the cost keeps four decimals from a hundredth of a cent to tens of dollars: the line never changes precision", () => {
    const amounts = [0, 0.0001, 0.00042, 0.0075, 0.0099, 0.01, 0.0123, 0.1, 0.99999, 1, 1.2345, 9.99, 10, 12.34567, 1234.5];
    expect(amounts.map(formatCost)).toEqual([
      "$0.0000",
      "$0.0001",
      "$0.0004",
      "$0.0075",
      "$0.0099",
      "$0.0100",
      "$0.0123",
      "$0.1000",
      "$1.0000",
      "$1.0000",
      "$1.2345",
      "$9.9900",
      "$10.0000",
      "$12.3457",
      "$1,234.5000",
    ]);
    // Below $10 every amount has the same width, so the status line does not shift as the cost grows.
    expect(new Set(amounts.filter((amount) => amount < 9.99995).map((amount) => formatCost(amount).length))).toEqual(new Set([7]));
    const spending = (costUsd: number) =>
      formatSpending({ usage: { inputTokens: 1, outputTokens: 1 }, costUsd, contextTokens: undefined, contextWindow: undefined });
    expect(spending(0.0099)).toBe("2 tokens · $0.0099");
    expect(spending(0.01)).toBe("2 tokens · $0.0100");
  });

  test("context windows come from the compactor's table, Gemini's included", () => {
    expect(contextWindowOf("gemini-2.5-pro")).toBe(1_048_576);
    expect(contextWindowOf("gemini-3-pro-preview")).toBe(1_048_576);
    expect(contextWindowOf("gpt-5")).toBe(272_000);
    expect(contextWindowOf("claude-haiku-4-5")).toBe(200_000);
    expect(contextWindowOf("qwen3")).toBe(40_960);
  });
});

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\$]/g, "\\$&");
}

test("slash commands match what was typed so far", () => {
  expect(matchSlashCommands("/c").map((command) => command.name)).toEqual(["clear", "cost", "compact"]);
  expect(matchSlashCommands("/cost now")).toEqual([]);
  expect(matchSlashCommands("cost")).toEqual([]);
});

describe("session rules", () => {
  let root: string;
  let agent: CodingAgent;
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), "minagent-rules-"));
    // Without the sandbox, whose auto-allow would run the Bash lines these rules are about.
    agent = await CodingAgent.create(new FakeModel([]), {
      workspace: root,
      settingsFiles: [],
      rules: { ask: ["Bash(git push:*)"] },
      sandbox: false,
    });
  });
  afterEach(() => rm(root, { recursive: true, force: true }));

  test("suggests a rule per part of a command line, the folder for a file, and allows what they cover from then on", async () => {
    const rules = new SessionRules(agent);
    const install = { name: "Bash", arguments: { command: "npm install && npm test -- *.ts" } };
    expect(await rules.allows(install)).toBe(false);
    const suggested = await rules.suggest(install);
    expect(suggested).toEqual(["Bash(npm install)", "Bash(npm test -- \\*.ts)"]);
    rules.add(suggested ?? []);
    expect(await rules.allows(install)).toBe(true);
    expect(await rules.allows({ name: "Bash", arguments: { command: "npm test -- a.ts" } })).toBe(false);

    const edit = { name: "Edit", arguments: { file_path: "src/app/main.ts", old_string: "a", new_string: "b" } };
    expect(await rules.suggest(edit)).toEqual(["Edit(/src/app/**)"]);
    expect(await rules.suggest({ name: "Write", arguments: { file_path: "notes.md", content: "" } })).toEqual(["Edit(/notes.md)"]);
    rules.add(["Edit(/src/app/**)"]);
    expect(await rules.allows({ name: "Write", arguments: { file_path: join(root, "src/app/other.ts"), content: "" } })).toBe(true);
    expect(await rules.allows({ name: "Write", arguments: { file_path: "src/other.ts", content: "" } })).toBe(false);

    const docsPage = { name: "WebFetch", arguments: { url: "https://docs.python.org/3/library/json.html", prompt: "How?" } };
    expect(await rules.allows(docsPage)).toBe(false);
    expect(await rules.suggest(docsPage)).toEqual(["WebFetch(domain:docs.python.org)"]);
    rules.add(["WebFetch(domain:docs.python.org)"]);
    expect(await rules.allows({ name: "WebFetch", arguments: { url: "https://docs.python.org/3/", prompt: "?" } })).toBe(true);
    expect(await rules.allows({ name: "WebFetch", arguments: { url: "https://python.org/", prompt: "?" } })).toBe(false);

    // WebSearch takes no specifier: "don't ask again" allows every search of the session.
    const search = { name: "WebSearch", arguments: { query: "python json" } };
    expect(await rules.allows(search)).toBe(false);
    expect(await rules.suggest(search)).toEqual(["WebSearch"]);
    rules.add(["WebSearch"]);
    expect(await rules.allows({ name: "WebSearch", arguments: { query: "anything else" } })).toBe(true);
  });

  test("an ask rule of the settings keeps asking: no suggestion, and no session rule overrides it", async () => {
    const rules = new SessionRules(agent);
    const push = { name: "Bash", arguments: { command: "git push origin main" } };
    expect(await rules.suggest(push)).toBeUndefined();
    rules.add(["Bash(git push origin main)"]);
    expect(await rules.allows(push)).toBe(false);
    expect(await rules.suggest({ name: "ExitPlanMode", arguments: { plan: "x" } })).toBeUndefined();
  });

  test("the rules are the agent's own permissions: its canUseTool allows what they cover, its settings list them", async () => {
    const rules = new SessionRules(agent);
    const call = { id: "t1", name: "Bash", arguments: { command: "npm test" } };
    const context = { runId: "run", tool: agent.registry.get("Bash") as Tool, signal: new AbortController().signal, needsApproval: false };
    expect(await agent.permissions.canUseTool(call, context)).toMatchObject({ behavior: "ask" });
    rules.add(["Bash(npm test)"]);
    expect(await agent.permissions.canUseTool(call, context)).toEqual({ behavior: "allow" });
    expect(agent.permissions.settings.rules.allow.map((rule) => [rule.text, rule.source])).toEqual([["Bash(npm test)", "this session"]]);
    expect(rules.rules).toEqual(["Bash(npm test)"]);
  });

  test("saved rules are added to settings.local.json, keeping what else it holds; a file that is not settings is left alone", async () => {
    const file = join(root, ".minagent", "settings.local.json");
    await saveAllowRules(file, ["Bash(npm test)"]);
    expect(JSON.parse(await readFile(file, "utf8"))).toEqual({ permissions: { allow: ["Bash(npm test)"] } });
    await writeFile(file, JSON.stringify({ model: "x", permissions: { allow: ["Read"], deny: ["Bash(rm:*)"] } }));
    await saveAllowRules(file, ["Read", "Edit(/src/**)"]);
    expect(JSON.parse(await readFile(file, "utf8"))).toEqual({
      model: "x",
      permissions: { allow: ["Read", "Edit(/src/**)"], deny: ["Bash(rm:*)"] },
    });
    await writeFile(file, "{ not json");
    await expect(saveAllowRules(file, ["Read"])).rejects.toThrow(/Cannot add the rule to .*settings\.local\.json/);
    expect(await readFile(file, "utf8")).toBe("{ not json");
  });
});
