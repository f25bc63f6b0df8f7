import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { printModeDenial } from "../../src/cli/code/print-mode.js";
import { openAIStream } from "../helpers/wire-bodies.js";
import {
  answer,
  anthropicEnv,
  callTool,
  printArgs,
  requestBody,
  runCode,
  sentMessages,
  sessionFiles,
  sessionMessages,
  useCodeFixture,
} from "./code-helpers.js";

const fixture = useCodeFixture();

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The model reads notes.txt, then answers. */
function readThenAnswer() {
  fixture.server.reply(
    callTool("toolu_1", "Read", { file_path: "notes.txt" }, { input_tokens: 1000, output_tokens: 30 }),
    answer("The notes say the answer is 42.", { input_tokens: 1100, output_tokens: 10 }),
  );
}

describe("minagent code -p: output formats", () => {
  test("text: the final answer alone on stdout, nothing on stderr, exit 0; the run streams with Claude Code's tools", async () => {
    readThenAnswer();
    const outcome = await runCode(printArgs(fixture, "What do the notes say?"), anthropicEnv(fixture));
    expect(outcome).toEqual({ exit: 0, stdout: "The notes say the answer is 42.\n", stderr: "" });
    const [first, second] = fixture.server.requests;
    const tools = requestBody<{ tools: { name: string }[] }>(fixture, 0).tools.map((tool) => tool.name);
    expect(tools).toEqual(expect.arrayContaining(["Read", "Write", "Edit", "Glob", "Grep", "Bash", "TodoWrite"]));
    expect(first?.body).toMatchObject({ model: "claude-haiku-4-5", stream: true });
    expect(sentMessages(first?.body)).toEqual([{ role: "user", content: ["What do the notes say?"] }]);
    expect(sentMessages(second?.body).at(-1)?.content[0]).toMatch(/^tool_result: .*The answer is 42\./);
  });

  test("json: one result object with the answer, status, usage, cost, turns, session id, denials", async () => {
    readThenAnswer();
    const outcome = await runCode(printArgs(fixture, "What do the notes say?", "--output-format", "json"), anthropicEnv(fixture));
    expect(outcome.exit).toBe(0);
    expect(outcome.stderr).toBe("");
    expect(outcome.stdout.endsWith("}\n")).toBe(true);
    expect(outcome.stdout.trim().split("\n")).toHaveLength(1);
    const result = JSON.parse(outcome.stdout);
    expect(result).toEqual({
      type: "result",
      subtype: "success",
      status: "completed",
      is_error: false,
      result: "The notes say the answer is 42.",
      session_id: expect.stringMatching(uuid),
      num_turns: 2,
      duration_ms: expect.any(Number),
      // claude-haiku-4-5: $1 in, $5 out per million tokens
      total_cost_usd: 0.0023,
      usage: { input_tokens: 2100, output_tokens: 40 },
      permission_denials: [],
      // Bash commands ran confined: the sandbox is on by default where bubblewrap runs (CI installs it).
      sandbox: {
        enabled: true,
        requested: true,
        mechanism: "bubblewrap",
        problem: null,
        writable: [expect.any(String)],
        allowed_domains: [],
      },
      mcp_servers: [],
    });
    expect(Object.keys(await sessionFiles(fixture))).toEqual([result.session_id]);
  });

  test("stream-json: one JSON object per line — session-start, every engine event, then the result", async () => {
    readThenAnswer();
    const outcome = await runCode(printArgs(fixture, "What do the notes say?", "--output-format", "stream-json"), anthropicEnv(fixture));
    expect(outcome.exit).toBe(0);
    expect(outcome.stdout.endsWith("\n")).toBe(true);
    const lines = outcome.stdout
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown> & { type: string });
    const deltas = new Set(["text-delta", "tool-input-start", "tool-input-delta", "tool-input-end", "usage"]);
    expect(lines.map((line) => line.type).filter((type) => !deltas.has(type))).toEqual([
      "session-start",
      "run-start",
      "model-call-start",
      "model-call-end",
      "tool-call-start",
      "tool-call-end",
      "model-call-start",
      "model-call-end",
      "run-end",
      "result",
    ]);
    const [start] = lines;
    const result = lines.at(-1);
    expect(start).toEqual({
      type: "session-start",
      session_id: result?.session_id,
      model: "anthropic:claude-haiku-4-5",
      cwd: fixture.workspace,
      permission_mode: "default",
      tools: expect.arrayContaining(["Read", "Write", "Bash"]),
      mcp_servers: [],
    });
    expect(new Set(lines.map((line) => line.session_id))).toEqual(new Set([result?.session_id]));
    const streamed = lines.filter((line) => line.type === "text-delta").map((line) => line.text);
    expect(streamed.join("")).toBe("The notes say the answer is 42.");
    expect(lines.find((line) => line.type === "run-start")).toMatchObject({ input: "What do the notes say?", messageCount: 2 });
    expect(lines.find((line) => line.type === "run-start")).not.toHaveProperty("messages");
    expect(lines.find((line) => line.type === "model-call-start")).not.toHaveProperty("tools");
    expect(lines.find((line) => line.type === "tool-call-end")).toMatchObject({
      toolCall: { id: "toolu_1", name: "Read", arguments: { file_path: "notes.txt" } },
      result: { isError: false, content: expect.stringContaining("The answer is 42.") },
    });
    const ends = lines.filter((line) => line.type === "model-call-end") as unknown as { response: { message: object } }[];
    for (const end of ends) expect(end.response.message).not.toHaveProperty("providerMetadata");
    expect(result).toMatchObject({ type: "result", status: "completed", result: "The notes say the answer is 42.", num_turns: 2 });
  });

  test("--verbose: tool calls, results, usage and the session on stderr; the answer alone on stdout", async () => {
    readThenAnswer();
    const outcome = await runCode(printArgs(fixture, "What do the notes say?", "--verbose"), anthropicEnv(fixture));
    expect(outcome.exit).toBe(0);
    expect(outcome.stdout).toBe("The notes say the answer is 42.\n");
    expect(outcome.stderr).toMatch(
      /^minagent code: configuration files read: none \(settings, memory, agents, commands, skills\)\n→ Read\(\{"file_path":"notes.txt"\}\)\n← Read: .*The answer is 42\.\ntokens: 2,100 in · 40 out · ≈ \$0\.00230 at list prices\nsession: [0-9a-f-]{36}\n$/,
    );
  });

  test("the prompt may come on standard input", async () => {
    fixture.server.reply(answer("Brief."));
    const outcome = await runCode(["-p", "--model", "anthropic:claude-haiku-4-5", "--cwd", fixture.workspace], anthropicEnv(fixture), {
      answers: ["Summarise the notes.", "Be brief."],
    });
    expect(outcome).toMatchObject({ exit: 0, stdout: "Brief.\n" });
    expect(sentMessages(fixture.server.requests[0]?.body)).toEqual([{ role: "user", content: ["Summarise the notes.\nBe brief."] }]);
  });

  test("the OpenAI Chat Completions wire format works the same: a tool round trip, the answer on stdout", async () => {
    fixture.server.reply(
      { sse: openAIStream("", [{ name: "Read", arguments: { file_path: "notes.txt" } }], "tool_calls") },
      { sse: openAIStream("It says 42.", [], "stop") },
    );
    const env = { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: `${fixture.server.url}/v1`, MINAGENT_HOME: fixture.home };
    const outcome = await runCode(["-p", "What do the notes say?", "--model", "openai-chat:gpt-4.1-mini", "--cwd", fixture.workspace], env);
    expect(outcome).toEqual({ exit: 0, stdout: "It says 42.\n", stderr: "" });
    expect(fixture.server.requests.map((request) => request.path)).toEqual(["/v1/chat/completions", "/v1/chat/completions"]);
    const sent = requestBody<{ messages: { role: string; content: string }[] }>(fixture, 1).messages;
    expect(sent.at(-1)).toMatchObject({ role: "tool", content: expect.stringContaining("The answer is 42.") });
  });
});

describe("minagent code -p: permissions", () => {
  const writeThenAnswer = () =>
    fixture.server.reply(callTool("toolu_w", "Write", { file_path: "out.txt", content: "hello\n" }), answer("Done."));

  test("a call that needs approval is denied: the model is told nobody could approve it, the denial is reported", async () => {
    writeThenAnswer();
    const outcome = await runCode(printArgs(fixture, "Write hello to out.txt", "--output-format", "json"), anthropicEnv(fixture));
    expect(outcome.exit).toBe(0);
    const result = JSON.parse(outcome.stdout);
    expect(result.permission_denials).toEqual([
      { tool_name: "Write", tool_use_id: "toolu_w", tool_input: { file_path: "out.txt", content: "hello\n" } },
    ]);
    expect(existsSync(join(fixture.workspace, "out.txt"))).toBe(false);
    const sent = fixture.server.requests[1]?.body as { messages: { content: { type: string; content: string; is_error?: boolean }[] }[] };
    const toolResult = sent.messages.at(-1)?.content[0];
    expect(toolResult).toMatchObject({ type: "tool_result", is_error: true });
    expect(JSON.stringify(toolResult?.content)).toContain("Not approved: this Write call needs a person's approval");
    expect(JSON.stringify(toolResult?.content)).toContain("running non-interactively (-p)");
  });

  test("in text mode the denial is a line on stderr", async () => {
    writeThenAnswer();
    const outcome = await runCode(printArgs(fixture, "Write hello to out.txt"), anthropicEnv(fixture));
    expect(outcome.exit).toBe(0);
    expect(outcome.stdout).toBe("Done.\n");
    expect(outcome.stderr).toMatch(/^✗ Write not approved \(-p\): .+\n$/);
  });

  test("the denial's text says what happened and what to do", () => {
    expect(printModeDenial({ toolCall: { id: "1", name: "Bash", arguments: {} }, reason: "rm changes files." })).toBe(
      "Not approved: this Bash call needs a person's approval (rm changes files), and minagent is running non-interactively (-p), so nobody could approve it. It did not run. Do not retry it; finish what you can without it, and say in your answer what was not done and which permission it needs (--allowedTools or --permission-mode).",
    );
  });

  test.each([
    ["--permission-mode acceptEdits", ["--permission-mode", "acceptEdits"]],
    ["--permission-mode bypassPermissions", ["--permission-mode", "bypassPermissions"]],
    ["--dangerously-skip-permissions", ["--dangerously-skip-permissions"]],
    ["--allowedTools Write", ["--allowedTools", "Write"]],
    ['--allowedTools "Bash(ls:*),Write"', ["--allowedTools", "Bash(ls:*),Write"]],
    ["--allowedTools Read Write (rules as separate arguments)", ["--allowedTools", "Read", "Write"]],
    ["--allowed-tools=Write", ["--allowed-tools=Write"]],
  ])("%s lets the call run", async (_, flags) => {
    writeThenAnswer();
    const outcome = await runCode(printArgs(fixture, "Write hello to out.txt", "--output-format", "json", ...flags), anthropicEnv(fixture));
    expect(outcome.exit).toBe(0);
    expect(JSON.parse(outcome.stdout).permission_denials).toEqual([]);
    expect(await readFile(join(fixture.workspace, "out.txt"), "utf8")).toBe("hello\n");
  });

  test("--disallowedTools denies by rule (the model reads the rule's refusal), even what the mode allows", async () => {
    fixture.server.reply(callTool("toolu_r", "Read", { file_path: "notes.txt" }), answer("I may not read it."));
    const outcome = await runCode(
      printArgs(
        fixture,
        "Read the notes",
        "--disallowedTools",
        "Read",
        "--permission-mode",
        "bypassPermissions",
        "--output-format",
        "json",
      ),
      anthropicEnv(fixture),
    );
    expect(outcome.exit).toBe(0);
    expect(JSON.parse(outcome.stdout).permission_denials).toEqual([]);
    const sent = JSON.stringify(fixture.server.requests[1]?.body);
    expect(sent).toContain('"is_error":true');
    expect(sent).not.toContain("The answer is 42.");
  });

  test("--permission-mode dontAsk denies what needs approval without asking (no denial to report)", async () => {
    writeThenAnswer();
    const outcome = await runCode(
      printArgs(fixture, "Write hello to out.txt", "--permission-mode", "dontAsk", "--output-format", "json"),
      anthropicEnv(fixture),
    );
    expect(outcome.exit).toBe(0);
    expect(JSON.parse(outcome.stdout).permission_denials).toEqual([]);
    expect(existsSync(join(fixture.workspace, "out.txt"))).toBe(false);
  });
});

describe("minagent code -p: limits and failures (exit 1)", () => {
  test("--max-turns: no answer within the turns is status max_turns, exit 1", async () => {
    fixture.server.reply(callTool("toolu_1", "Read", { file_path: "notes.txt" }));
    const outcome = await runCode(printArgs(fixture, "Read forever", "--max-turns", "1", "--output-format", "json"), anthropicEnv(fixture));
    expect(outcome.exit).toBe(1);
    expect(JSON.parse(outcome.stdout)).toMatchObject({
      type: "result",
      subtype: "error_max_turns",
      status: "max_turns",
      is_error: true,
      result: "",
      num_turns: 1,
      error: "no final answer within 1 model calls",
    });
    expect(fixture.server.requests).toHaveLength(1);
  });

  test("--max-turns in text mode: a message on stderr that says how to go on", async () => {
    fixture.server.reply(callTool("toolu_1", "Read", { file_path: "notes.txt" }));
    const outcome = await runCode(printArgs(fixture, "Read forever", "--max-turns", "1"), anthropicEnv(fixture));
    expect(outcome.exit).toBe(1);
    expect(outcome.stdout).toBe("");
    const [id] = Object.keys(await sessionFiles(fixture));
    expect(outcome.stderr).toBe(
      `minagent code: stopped: no final answer within 1 model calls (--max-turns 1); the conversation is saved: minagent code --resume ${id}\n`,
    );
  });

  test("--max-budget-usd: the call that would pass the budget is not made; status budget_exceeded, exit 1, conversation saved", async () => {
    // $0.1 in + $0.005 out on haiku; the next call would cost about as much again.
    fixture.server.reply(
      callTool("toolu_1", "Read", { file_path: "notes.txt" }, { input_tokens: 100_000, output_tokens: 1000 }),
      answer("never"),
    );
    const outcome = await runCode(
      printArgs(fixture, "What do the notes say?", "--max-budget-usd", "0.15", "--output-format", "json"),
      anthropicEnv(fixture),
    );
    expect(outcome.exit).toBe(1);
    const result = JSON.parse(outcome.stdout);
    expect(result).toMatchObject({
      subtype: "error_max_budget_usd",
      status: "budget_exceeded",
      is_error: true,
      num_turns: 1,
      total_cost_usd: 0.105,
      usage: { input_tokens: 100_000, output_tokens: 1000 },
      error: expect.stringMatching(
        /^the next model call \(≈ \$0\.1\d+\) would take the spending past the budget of \$0\.1500 \(\$0\.1050 spent\)$/,
      ),
    });
    expect(fixture.server.requests).toHaveLength(1);
    const files = await sessionFiles(fixture);
    expect(sessionMessages(files[result.session_id] ?? "").map(({ role, tools, toolCallId }) => ({ role, tools, toolCallId }))).toEqual([
      { role: "system", tools: undefined, toolCallId: undefined },
      { role: "user", tools: undefined, toolCallId: undefined },
      { role: "assistant", tools: ["Read"], toolCallId: undefined },
      { role: "tool", tools: undefined, toolCallId: "toolu_1" },
    ]);
  });

  test("--max-budget-usd too small for the first call: no call at all", async () => {
    const outcome = await runCode(printArgs(fixture, "Hello", "--max-budget-usd", "0.000001"), anthropicEnv(fixture));
    expect(outcome.exit).toBe(1);
    expect(outcome.stderr).toMatch(
      /^minagent code: stopped: the next model call .* would take the spending past the budget of \$0\.00000 .*--resume [0-9a-f-]{36}\n$/,
    );
    expect(fixture.server.requests).toHaveLength(0);
  });

  test("a budget the run stays within changes nothing", async () => {
    readThenAnswer();
    const outcome = await runCode(printArgs(fixture, "What do the notes say?", "--max-budget-usd", "1"), anthropicEnv(fixture));
    expect(outcome).toMatchObject({ exit: 0, stdout: "The notes say the answer is 42.\n" });
  });

  test("a provider error: status error with the provider's message, exit 1", async () => {
    fixture.server.reply({ status: 401, json: { type: "error", error: { type: "authentication_error", message: "invalid x-api-key" } } });
    const text = await runCode(printArgs(fixture, "Hello"), anthropicEnv(fixture));
    expect(text).toEqual({ exit: 1, stdout: "", stderr: "minagent code: anthropic 401 authentication_error: invalid x-api-key\n" });
    fixture.server.reply({ status: 401, json: { type: "error", error: { type: "authentication_error", message: "invalid x-api-key" } } });
    const json = await runCode(printArgs(fixture, "Hello", "--output-format", "json"), anthropicEnv(fixture));
    expect(json.exit).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({
      subtype: "error_during_execution",
      status: "error",
      is_error: true,
      error: "anthropic 401 authentication_error: invalid x-api-key",
    });
  });

  test("--timeout gives up on a stalled call (and its retries) and fails with exit 1", async () => {
    fixture.server.reply({ stall: true }, { stall: true }, { stall: true });
    const outcome = await runCode(printArgs(fixture, "Hello", "--timeout", "0.2"), anthropicEnv(fixture));
    expect(outcome.exit).toBe(1);
    expect(outcome.stderr).toMatch(/retrying in .*\n.*retrying in .*\nminagent code: anthropic timeout: .*\n$/s);
    expect(fixture.server.requests).toHaveLength(3);
  });

  test("interrupted (the io's signal, as SIGINT in the bin): status interrupted, exit 130, the prompt saved", async () => {
    const controller = new AbortController();
    fixture.server.reply(() => {
      setTimeout(() => controller.abort(), 20);
      return { stall: true };
    });
    const outcome = await runCode(printArgs(fixture, "Take your time", "--output-format", "json"), anthropicEnv(fixture), {
      signal: controller.signal,
    });
    expect(outcome.exit).toBe(130);
    const result = JSON.parse(outcome.stdout);
    expect(result).toMatchObject({ status: "interrupted", is_error: true, num_turns: 0 });
    const files = await sessionFiles(fixture);
    expect(sessionMessages(files[result.session_id] ?? "").map((message) => message.role)).toEqual(["system", "user"]);
  });
});
