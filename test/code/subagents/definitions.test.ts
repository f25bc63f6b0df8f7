import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  builtInSubagents,
  loadSubagentDefinitions,
  mergeSubagentDefinitions,
  parseFrontMatter,
  parseSubagentDefinition,
} from "../../../src/code/subagents/index.js";
import { FakeModel } from "../../../src/index.js";
import { agentToolFor } from "./helpers.js";

describe("front matter (YAML, as Claude Code reads agent files)", () => {
  it("reads plain, quoted, list and block values, and the body", () => {
    const document = parseFrontMatter(
      [
        "---",
        "# a comment",
        "name: reviewer",
        'description: "Reviews code: \\"quality\\" and tests"',
        "quoted: 'it''s fine' # and a comment",
        "plain: some text # a comment",
        "flow: [Read, 'Grep', \"Glob, with a comma\"]",
        "empty: []",
        "block:",
        "  - Read",
        "  - Bash",
        "literal: |",
        "  line one",
        "    indented",
        "",
        "folded: >-",
        "  one",
        "  two",
        "",
        "  three",
        "---",
        "",
        "The body.",
        "",
      ].join("\n"),
    );
    expect(document.data).toEqual({
      name: "reviewer",
      description: 'Reviews code: "quality" and tests',
      quoted: "it's fine",
      plain: "some text",
      flow: ["Read", "Grep", "Glob, with a comma"],
      empty: [],
      block: ["Read", "Bash"],
      literal: "line one\n  indented\n",
      folded: "one two\nthree",
    });
    expect(document.body).toBe("The body.");
  });

  it("reads an agent file as Claude Code's /agents writes it: a multi-line description, a color, a comma list of tools", () => {
    const document = parseFrontMatter(
      [
        "---",
        "name: code-reviewer",
        "description: |",
        "  Use this agent after writing code. Examples:",
        "  <example>",
        '  user: "I added the parser"',
        '  assistant: "Let me use the code-reviewer agent"',
        "  </example>",
        "tools: Read, Grep, Glob   # no Bash",
        "model: sonnet",
        "color: blue",
        "---",
        "You are a senior reviewer.",
      ].join("\r\n"),
    );
    expect(document.data).toEqual({
      name: "code-reviewer",
      description:
        'Use this agent after writing code. Examples:\n<example>\nuser: "I added the parser"\nassistant: "Let me use the code-reviewer agent"\n</example>\n',
      tools: "Read, Grep, Glob",
      model: "sonnet",
      color: "blue",
    });
    expect(document.body).toBe("You are a senior reviewer.");
  });

  it("keeps every value as text (YAML's failsafe schema) and follows YAML where the old subset did not", () => {
    const document = parseFrontMatter(
      [
        "---",
        "readOnly: true",
        "version: 1.10",
        "nothing:",
        "quotedEmpty: ''",
        "wrapped: a plain value",
        "  that goes on",
        "defaults: &read [Read, Grep]",
        "tools: *read",
        "tag: !!int 4",
        "flowQuoted: [\"Read\", 'Grep']",
        "---",
        "",
      ].join("\n"),
    );
    expect(document.data).toEqual({
      readOnly: "true",
      version: "1.10",
      nothing: "",
      quotedEmpty: "",
      wrapped: "a plain value that goes on",
      defaults: ["Read", "Grep"],
      tools: ["Read", "Grep"],
      tag: "4",
      flowQuoted: ["Read", "Grep"],
    });
    expect(parseFrontMatter("---\n---\nonly a body\n").data).toEqual({});
    expect(parseFrontMatter("\uFEFF---\nname: r\n...\nbody").data).toEqual({ name: "r" });
  });

  it("says what is wrong, with the line in the file", () => {
    const attempt = (lines: string[]) => {
      try {
        parseFrontMatter(lines.join("\n"));
      } catch (error) {
        return `${(error as Error).message} @${(error as { line?: number }).line}`;
      }
      return "parsed";
    };
    expect(attempt(["name: x"])).toBe("it does not start with a front matter block (a line `---`) @1");
    expect(attempt(["---", "name: x"])).toBe("its front matter block is not closed (a line `---` after it) @undefined");
    expect(attempt(["---", "name: x", "name: y", "---"])).toBe("the key `name` is given twice @3");
    expect(attempt(["---", "just words", "---"])).toBe("expected `key: value` lines, found `just words` @2");
    expect(attempt(["---", "- Read", "---"])).toBe("expected `key: value` lines, found `- Read` @2");
    expect(attempt(["---", "name: r", "description d", "---"])).toBe(
      "invalid YAML in `description d` (implicit map keys need to be followed by map values) @3",
    );
    expect(attempt(["---", "name: r", "description: Use it when: the tests fail", "---"])).toBe(
      'invalid YAML in `description: Use it when: the tests fail` (nested mappings are not allowed in compact mappings): put a value that holds `: ` in quotes, e.g. description: "Use it when: …" @3',
    );
    expect(attempt(["---", 'name: "open', "---"])).toBe('invalid YAML in `name: "open` (missing closing "quote) @2');
    expect(attempt(["---", "tools: [Read", "---"])).toMatch(/^invalid YAML in `tools: \[Read` \(.*\] ?\) @2$/);
    expect(attempt(["---", "name: r", "\ttools: Read", "---"])).toBe("invalid YAML in `tools: Read`: indent with spaces, not tabs @3");
    expect(attempt(["---", "a: &x [*x]", "---"])).toBe(
      "`a` holds more than 10000 values or is nested more than 16 deep (an alias that refers to itself?) @2",
    );
    expect(attempt(["---", "tools: *defaults", "---"])).toBe("`tools` refers to `*defaults`, but no `&defaults` comes before it @2");
  });
});

describe("subagent definitions", () => {
  const file = (front: string[], body = "You review code.") => ["---", ...front, "---", body].join("\n");

  it("reads name, description, tools (a comma list or a YAML list), model, color and readOnly", () => {
    expect(
      parseSubagentDefinition(
        file([
          "name: reviewer",
          "description: Reviews code.",
          "tools: Read, Grep,Glob",
          "model: anthropic:claude-haiku-4-5",
          "color: blue",
        ]),
        "/p/reviewer.md",
      ),
    ).toEqual({
      name: "reviewer",
      description: "Reviews code.",
      tools: ["Read", "Grep", "Glob"],
      model: "anthropic:claude-haiku-4-5",
      color: "blue",
      prompt: "You review code.",
      source: "/p/reviewer.md",
    });
    expect(
      parseSubagentDefinition(
        file(["name: r", "description: d", "tools:", "  - Read", "  - Bash", "model: inherit", "readOnly: true"]),
        "f",
      ),
    ).toEqual({ name: "r", description: "d", tools: ["Read", "Bash"], readOnly: true, prompt: "You review code.", source: "f" });
  });

  it("throws a clear error naming the file (and the line) for a malformed definition", () => {
    const problem = (text: string) => () => parseSubagentDefinition(text, "/p/.minagent/agents/bad.md");
    expect(problem(file(["description: d"]))).toThrow(
      "Subagent definition /p/.minagent/agents/bad.md: the front matter has no `name`. Fix the file or remove it.",
    );
    expect(problem(file(["name: r"]))).toThrow(/bad\.md: the front matter has no `description`/);
    expect(problem(file(["name: has space", "description: d"]))).toThrow(/bad\.md, line 2: the name "has space" is invalid/);
    expect(problem(file(["name: r", "description: d"], ""))).toThrow(/bad\.md: the body, the subagent's system prompt, is empty/);
    expect(problem(file(["name: r", "description: d", "tools: {Read: yes}"]))).toThrow(
      /bad\.md, line 4: `tools` must be a comma-separated list of tool names or a YAML list, not a map/,
    );
    expect(problem(file(["name: r", "description: d", "permissionMode: Plan"]))).toThrow(
      /bad\.md, line 4: `permissionMode` is "Plan"; it must be one of default, acceptEdits, plan, dontAsk, bypassPermissions/,
    );
    expect(problem(file(["name: r", "description: d", "readOnly: yes"]))).toThrow(
      /bad\.md, line 4: `readOnly` must be true or false, not "yes"/,
    );
    expect(problem(file(["name: [r]", "description: d"]))).toThrow(/bad\.md, line 2: `name` must be text, not a list/);
    expect(problem(["---", "name: r", "description d", "---", "x"].join("\n"))).toThrow(
      "Subagent definition /p/.minagent/agents/bad.md, line 3: invalid YAML in `description d` (implicit map keys need to be followed by map values). Fix the file or remove it.",
    );
  });

  describe("files", () => {
    let base: string;
    let user: string;
    let root: string;
    beforeEach(() => {
      base = mkdtempSync(join(tmpdir(), "minagent-subagents-"));
      user = join(base, "home", ".minagent");
      root = join(base, "project");
      mkdirSync(join(user, "agents"), { recursive: true });
      mkdirSync(join(root, ".minagent", "agents"), { recursive: true });
    });
    afterEach(() => rmSync(base, { recursive: true, force: true }));
    const write = (directory: string, name: string, text: string) =>
      writeFileSync(join(directory === user ? user : join(directory, ".minagent"), "agents", name), text);

    it("reads the user's then the project's .minagent/agents/*.md; a project's definition replaces the user's and a built-in", async () => {
      write(user, "b.md", file(["name: tester", "description: user's tester"]));
      write(user, "a.md", file(["name: helper", "description: user's helper"]));
      write(user, "notes.txt", "not a definition");
      write(root, "tester.md", file(["name: tester", "description: project's tester"]));
      write(root, "explore.md", file(["name: Explore", "description: the project's explorer", "tools: Read"]));
      const loaded = await loadSubagentDefinitions({ root, userDirectory: user });
      expect(loaded.map((definition) => `${definition.name}: ${definition.description}`)).toEqual([
        "helper: user's helper",
        "tester: user's tester",
        "Explore: the project's explorer",
        "tester: project's tester",
      ]);
      const merged = mergeSubagentDefinitions(builtInSubagents, loaded);
      expect(merged.map((definition) => `${definition.name} (${definition.source})`)).toEqual([
        "general-purpose (built-in)",
        `helper (${join(user, "agents", "a.md")})`,
        `Explore (${join(root, ".minagent", "agents", "explore.md")})`,
        `tester (${join(root, ".minagent", "agents", "tester.md")})`,
      ]);
      expect(await loadSubagentDefinitions({ root: join(base, "nowhere"), userDirectory: join(base, "nobody") })).toEqual([]);
    });

    it("names the file that is malformed, and both files when one directory defines a name twice", async () => {
      write(root, "broken.md", "no front matter here");
      await expect(loadSubagentDefinitions({ root, userDirectory: user })).rejects.toThrow(
        `Subagent definition ${join(root, ".minagent", "agents", "broken.md")}, line 1: it does not start with a front matter block`,
      );
      rmSync(join(root, ".minagent", "agents", "broken.md"));
      write(root, "one.md", file(["name: twin", "description: d"]));
      write(root, "two.md", file(["name: twin", "description: d"]));
      await expect(loadSubagentDefinitions({ root, userDirectory: user })).rejects.toThrow(
        `Subagent definitions ${join(root, ".minagent", "agents", "one.md")} and ${join(root, ".minagent", "agents", "two.md")} both define "twin"`,
      );
    });

    it("names the unknown tools of a definition when the Agent tool is made", async () => {
      write(root, "r.md", file(["name: r", "description: d", "tools: echo, WebFetch, Search"]));
      const definitions = await loadSubagentDefinitions({ root, userDirectory: user });
      expect(() => agentToolFor(new FakeModel([]), { definitions })).toThrow(
        `Subagent "r" (${join(root, ".minagent", "agents", "r.md")}) names tools that do not exist: WebFetch, Search. Tools a subagent may have: echo, note, Agent.`,
      );
    });
  });

  it("refuses at creation a read-only definition given a tool that writes, and a model without resolveModel", () => {
    const model = new FakeModel([]);
    const base = { description: "d", prompt: "p", source: "f.md" };
    expect(() => agentToolFor(model, { definitions: [{ ...base, name: "r", tools: ["echo", "note"], readOnly: true }] })).toThrow(
      'Subagent "r" (f.md) is read-only, but these of its tools are not: note.',
    );
    expect(() => agentToolFor(model, { definitions: [{ ...base, name: "m", model: "anthropic:claude-haiku-4-5" }] })).toThrow(
      'Subagent "m" (f.md) asks for the model "anthropic:claude-haiku-4-5", but no resolveModel was given to make it.',
    );
  });
});
