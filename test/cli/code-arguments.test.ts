import { realpath } from "node:fs/promises";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { afterEach, describe, expect, test, vi } from "vitest";
import type { CodeSessionContext } from "../../src/cli/code/session-context.js";
import { parseCodeArguments, splitRules } from "../../src/cli/commands/code.js";
import { anthropicEnv, haiku, printArgs, runCode, useCodeFixture } from "./code-helpers.js";

const fixture = useCodeFixture();

const env = { MINAGENT_MODEL: haiku };

describe("minagent code: arguments", () => {
  test("defaults: text, no limits, the current folder, a new session; the model from MINAGENT_MODEL", () => {
    expect(parseCodeArguments(["-p", "fix", "the", "test"], env, "/work/project")).toEqual({
      prompt: "fix the test",
      print: true,
      outputFormat: "text",
      model: haiku,
      permissionMode: undefined,
      allowedTools: [],
      disallowedTools: [],
      maxTurns: undefined,
      maxBudgetUsd: undefined,
      cwd: "/work/project",
      additionalDirectories: [],
      timeoutMs: undefined,
      continue: false,
      resume: undefined,
      forkSession: false,
      verbose: false,
      mcpConfigFiles: [],
      strictMcpConfig: false,
    });
  });

  test("every flag, in both spellings where there are two", () => {
    const options = parseCodeArguments(
      [
        "--print",
        "--output-format=stream-json",
        "-m",
        "openai:gpt-4.1",
        "--permission-mode",
        "acceptEdits",
        "--allowedTools",
        "Bash(npm run test, lint) Edit",
        "Read",
        "--disallowed-tools=WebFetch",
        "--max-turns",
        "7",
        "--max-budget-usd",
        "0.5",
        "--cwd",
        "sub",
        "--add-dir",
        "../shared",
        "--add-dir=/opt/data",
        "--timeout",
        "1.5",
        "-r",
        "1b9d6bcd-bbfd-4b2d-9b5d-ab8dfbbd4bed",
        "--fork-session",
        "--verbose",
        "go",
      ],
      env,
      "/work/project",
    );
    expect(options).toEqual({
      prompt: "go",
      print: true,
      outputFormat: "stream-json",
      model: "openai:gpt-4.1",
      permissionMode: "acceptEdits",
      allowedTools: ["Bash(npm run test, lint)", "Edit", "Read"],
      disallowedTools: ["WebFetch"],
      maxTurns: 7,
      maxBudgetUsd: 0.5,
      cwd: "/work/project/sub",
      additionalDirectories: ["/work/shared", "/opt/data"],
      timeoutMs: 1500,
      continue: false,
      resume: "1b9d6bcd-bbfd-4b2d-9b5d-ab8dfbbd4bed",
      forkSession: true,
      verbose: true,
      mcpConfigFiles: [],
      strictMcpConfig: false,
    });
  });

  test("--resume takes the next argument only when it is a session id; -c continues", () => {
    expect(parseCodeArguments(["--resume", "fix it"], env, "/p")).toMatchObject({ resume: true, prompt: "fix it" });
    expect(parseCodeArguments(["--resume=abc", "fix it"], env, "/p")).toMatchObject({ resume: "abc", prompt: "fix it" });
    expect(parseCodeArguments(["-c", "-p", "go on"], env, "/p")).toMatchObject({ continue: true, prompt: "go on" });
  });

  test("rule lists split on commas and spaces outside parentheses; arguments after -- are the prompt", () => {
    expect(splitRules("Bash(git log:*),Edit  Read(./src/**)")).toEqual(["Bash(git log:*)", "Edit", "Read(./src/**)"]);
    expect(splitRules("Bash(npm run test, lint)")).toEqual(["Bash(npm run test, lint)"]);
    expect(parseCodeArguments(["--allowedTools", "Edit", "--", "--help me"], env, "/p")).toMatchObject({
      allowedTools: ["Edit"],
      prompt: "--help me",
    });
    expect(parseCodeArguments(["--allowedTools", "Edit", "fix the bug"], env, "/p")).toMatchObject({
      allowedTools: ["Edit"],
      prompt: "fix the bug",
    });
  });

  test("--help prints the options and exits 0", async () => {
    const outcome = await runCode(["--help"], {});
    expect(outcome.exit).toBe(0);
    expect(outcome.stdout).toMatch(/^Usage: minagent code/);
    for (const flag of ["--output-format", "--permission-mode", "--allowedTools", "--max-budget-usd", "--fork-session", "130 interrupted"])
      expect(outcome.stdout).toContain(flag);
  });

  test("minagent --help lists the command", async () => {
    const outcome = await runCode([], {});
    expect(outcome.stdout).toBe("");
    const { main } = await import("../../src/cli/main.js");
    const out: string[] = [];
    await main(["--help"], { stdout: (text) => void out.push(text), stderr: () => {}, readLine: async () => undefined, env: {} });
    expect(out.join("")).toMatch(/minagent code \[-p "<prompt>"\] +a coding agent in this folder/);
  });
});

describe("minagent code: misuse exits 2 with a clear message, and calls no model", () => {
  const cases: [string, string[], Record<string, string | undefined>, RegExp][] = [
    [
      "no model",
      ["-p", "hi"],
      { MINAGENT_HOME: "/nonexistent/minagent-home", CLAUDE_CONFIG_DIR: "/nonexistent/claude" },
      /choose a model with --model <model> \(or set MINAGENT_MODEL, or "model" in a settings file\)[\s\S]*anthropic:<model>/,
    ],
    ["an unknown option", ["-p", "hi", "--frobnicate"], env, /unknown option --frobnicate/],
    [
      "a bad output format",
      ["-p", "hi", "--output-format", "xml"],
      env,
      /--output-format must be one of text, json, stream-json, got "xml"/,
    ],
    ["--output-format without -p", ["hi", "--output-format", "json"], env, /--output-format applies to -p runs only; add -p/],
    [
      "a bad permission mode",
      ["-p", "hi", "--permission-mode", "yolo"],
      env,
      /--permission-mode must be one of default, acceptEdits, plan, dontAsk, bypassPermissions, got "yolo"/,
    ],
    ["--max-turns 0", ["-p", "hi", "--max-turns", "0"], env, /--max-turns must be a whole number ≥ 1, got "0"/],
    [
      "a budget that is not an amount",
      ["-p", "hi", "--max-budget-usd", "lots"],
      env,
      /--max-budget-usd must be an amount of dollars > 0, got "lots"/,
    ],
    ["a flag without its value", ["-p", "hi", "--model"], env, /--model needs a value/],
    ["--timeout 0", ["-p", "hi", "--timeout", "0"], env, /--timeout must be a number of seconds > 0/],
    ["--continue with --resume", ["-p", "hi", "-c", "--resume", "abc"], env, /--continue and --resume cannot be used together/],
    ["--fork-session alone", ["-p", "hi", "--fork-session"], env, /--fork-session copies the session that --continue or --resume names/],
    ["a switch given a value", ["-p", "hi", "--verbose=yes"], env, /--verbose takes no value/],
    ["an unknown provider", ["-p", "hi", "--model", "acme:x"], env, /Model "acme:x": unknown provider "acme"/],
    [
      "a missing key",
      ["-p", "hi"],
      { MINAGENT_MODEL: haiku },
      /anthropic:claude-haiku-4-5 needs an API key\. Set the ANTHROPIC_API_KEY environment variable/,
    ],
    [
      "a malformed rule",
      ["-p", "hi", "--allowedTools", "Bash("],
      { MINAGENT_MODEL: haiku, ANTHROPIC_API_KEY: "k" },
      /Invalid permission rule "Bash\("/,
    ],
    [
      "a budget for a model without a price",
      ["-p", "hi", "--max-budget-usd", "1", "--model", "anthropic:claude-future-9"],
      { ANTHROPIC_API_KEY: "k" },
      /--max-budget-usd: no price is known for claude-future-9/,
    ],
  ];
  test.each(cases)("%s", async (_, args, extraEnv, message) => {
    const outcome = await runCode([...args, "--cwd", fixture.workspace], {
      ...extraEnv,
      ANTHROPIC_BASE_URL: fixture.server.url,
      MINAGENT_HOME: fixture.home,
    });
    expect(outcome.exit).toBe(2);
    expect(outcome.stdout).toBe("");
    expect(outcome.stderr).toMatch(/^minagent code: /);
    expect(outcome.stderr).toMatch(message);
    expect(fixture.server.requests).toHaveLength(0);
  });

  test("a --cwd or --add-dir that is not a folder", async () => {
    const missing = await runCode(["-p", "hi", "--model", haiku, "--cwd", join(fixture.workspace, "nope")], anthropicEnv(fixture));
    expect(missing).toMatchObject({ exit: 2, stderr: expect.stringMatching(/--cwd .*nope: no such folder/) });
    const file = await runCode(printArgs(fixture, "hi", "--add-dir", join(fixture.workspace, "notes.txt")), anthropicEnv(fixture));
    expect(file).toMatchObject({ exit: 2, stderr: expect.stringMatching(/--add-dir .*notes\.txt: not a folder/) });
  });

  test("-p without a prompt, and standard input empty", async () => {
    const outcome = await runCode(["-p", "--model", haiku, "--cwd", fixture.workspace], anthropicEnv(fixture));
    expect(outcome).toMatchObject({ exit: 2, stderr: expect.stringMatching(/-p needs a prompt, and standard input was empty/) });
  });

  test("-p without a prompt on a terminal", async () => {
    const outcome = await runCode(["-p", "--model", haiku, "--cwd", fixture.workspace], anthropicEnv(fixture), { stdinIsTerminal: true });
    expect(outcome).toMatchObject({ exit: 2, stderr: expect.stringMatching(/-p needs a prompt: give the prompt as an argument/) });
  });

  test("without -p when standard input is not a terminal", async () => {
    const outcome = await runCode(["fix it", "--model", haiku, "--cwd", fixture.workspace], anthropicEnv(fixture));
    expect(outcome).toMatchObject({
      exit: 2,
      stderr: expect.stringMatching(/standard input is not a terminal: run a prompt to the end with -p/),
    });
  });
});

describe("minagent code on a terminal without -p", () => {
  const interactive = "../../src/cli/code/interactive/index.js";
  afterEach(() => {
    vi.doUnmock(interactive);
  });
  const terminal = { input: new PassThrough(), output: new PassThrough() };

  test("hands runInteractiveSession the context: flags, the model, an agent factory with the flags applied, the session", async () => {
    const seen: CodeSessionContext[] = [];
    vi.doMock(interactive, () => ({
      runInteractiveSession: async (context: CodeSessionContext) => {
        seen.push(context);
        return 0;
      },
    }));
    const args = ["start here", "--model", haiku, "--cwd", fixture.workspace, "--max-turns", "3", "--permission-mode", "acceptEdits"];
    const outcome = await runCode(args, anthropicEnv(fixture), { stdinIsTerminal: true, terminal });
    expect(outcome).toEqual({ exit: 0, stdout: "", stderr: "" });
    const [context] = seen;
    expect(context?.terminal).toBe(terminal);
    expect(context?.model).toMatchObject({ spec: haiku, id: "claude-haiku-4-5" });
    expect(context?.options).toMatchObject({ prompt: "start here", print: false, maxTurns: 3, cwd: fixture.workspace });
    expect(context?.session.history).toEqual([]);
    expect(context?.session.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(await context?.sessions.list()).toEqual([]);
    expect(context?.spending.usage).toEqual({ inputTokens: 0, outputTokens: 0 });
    const agent = await context?.createAgent();
    expect(agent?.permissions.mode).toBe("acceptEdits");
    expect(agent?.workspace.root).toBe(await realpath(fixture.workspace));
  });
});
