import type { ChildProcess } from "node:child_process";
import { afterEach, describe, expect, test } from "vitest";
import { openAIStream } from "../helpers/wire-bodies.js";
import { startBuiltBin } from "./built-bin.js";
import {
  answer,
  anthropicEnv,
  callTool,
  haiku,
  requestBody,
  sentMessages,
  sessionFiles,
  sessionMessages,
  useCodeFixture,
} from "./code-helpers.js";

// The built bin end to end.

const fixture = useCodeFixture();
let children: ChildProcess[] = [];
// Registered after the fixture's, so it runs before the fixture closes (vitest runs after-hooks in reverse order).
afterEach(() => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null && child.pid) process.kill(child.pid, "SIGKILL");
  children = [];
});

/** Starts `minagent code …`; the child is killed after the test if it is still running. */
function startBin(args: string[], env: Record<string, string>, input?: string) {
  const started = startBuiltBin(["code", ...args], env, input);
  children.push(started.child);
  return started;
}

const runBin = (args: string[], env: Record<string, string>, input?: string) => startBin(args, env, input).done;

describe("the built bin: minagent code", () => {
  test("-p --output-format json against the Anthropic wire format: a tool round trip, one result object, exit 0", async () => {
    fixture.server.reply(
      callTool("toolu_1", "Read", { file_path: "notes.txt" }, { input_tokens: 1000, output_tokens: 30 }),
      answer("The notes say 42.", { input_tokens: 1100, output_tokens: 10 }),
    );
    const outcome = await runBin(
      ["-p", "What do the notes say?", "--model", haiku, "--cwd", fixture.workspace, "--output-format", "json"],
      anthropicEnv(fixture),
    );
    expect(outcome.stderr).toBe("");
    expect(outcome.code).toBe(0);
    expect(JSON.parse(outcome.stdout)).toEqual({
      type: "result",
      subtype: "success",
      status: "completed",
      is_error: false,
      result: "The notes say 42.",
      session_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      num_turns: 2,
      duration_ms: expect.any(Number),
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
  });

  test("-p --output-format stream-json against the OpenAI Chat Completions wire format, the prompt on stdin", async () => {
    fixture.server.reply(
      { sse: openAIStream("", [{ name: "Read", arguments: { file_path: "notes.txt" } }], "tool_calls") },
      { sse: openAIStream("It says 42.", [], "stop") },
    );
    const env = { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: `${fixture.server.url}/v1`, MINAGENT_HOME: fixture.home };
    const outcome = await runBin(
      ["-p", "--model", "openai-chat:gpt-4.1-mini", "--cwd", fixture.workspace, "--output-format", "stream-json"],
      env,
      "What do the notes say?\n",
    );
    expect(outcome.code).toBe(0);
    const lines = outcome.stdout
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line) as { type: string });
    expect(lines[0]).toMatchObject({ type: "session-start", model: "openai-chat:gpt-4.1-mini" });
    expect(lines.map((line) => line.type)).toEqual(expect.arrayContaining(["run-start", "tool-call-end", "run-end"]));
    expect(lines.at(-1)).toMatchObject({ type: "result", status: "completed", result: "It says 42." });
    const sent = requestBody<{ messages: { role: string; content: string }[] }>(fixture, 0).messages;
    expect(sent.at(-1)).toEqual({ role: "user", content: "What do the notes say?" });
  });

  test("misuse exits 2: no model; no -p when stdin is not a terminal", async () => {
    const noModel = await runBin(["-p", "hi", "--cwd", fixture.workspace], { MINAGENT_HOME: fixture.home });
    expect(noModel).toMatchObject({ code: 2, stdout: "" });
    expect(noModel.stderr).toMatch(/^minagent code: choose a model with --model/);
    const noPrint = await runBin(["hi", "--model", haiku, "--cwd", fixture.workspace], anthropicEnv(fixture));
    expect(noPrint).toMatchObject({ code: 2, stdout: "" });
    expect(noPrint.stderr).toMatch(/standard input is not a terminal/);
    expect(fixture.server.requests).toHaveLength(0);
  });

  test("a turn limit exits 1", async () => {
    fixture.server.reply(callTool("toolu_1", "Read", { file_path: "notes.txt" }));
    const outcome = await runBin(["-p", "Read", "--model", haiku, "--cwd", fixture.workspace, "--max-turns", "1"], anthropicEnv(fixture));
    expect(outcome.code).toBe(1);
    expect(outcome.stderr).toMatch(/^minagent code: stopped: no final answer within 1 model calls \(--max-turns 1\)/);
  });

  test("SIGINT aborts the run: exit 130, the conversation left valid on disk, and --continue goes on with it", async () => {
    fixture.server.reply({ stall: true });
    const run = startBin(
      ["-p", "Take your time", "--model", haiku, "--cwd", fixture.workspace, "--output-format", "json"],
      anthropicEnv(fixture),
    );
    await waitFor(() => fixture.server.requests.length === 1);
    const interruptedAt = Date.now();
    run.child.kill("SIGINT");
    const outcome = await run.done;
    expect(Date.now() - interruptedAt).toBeLessThan(5000);
    expect(outcome.code).toBe(130);
    const result = JSON.parse(outcome.stdout);
    expect(result).toMatchObject({ type: "result", status: "interrupted", is_error: true });
    const files = await sessionFiles(fixture);
    expect(sessionMessages(files[result.session_id] ?? "").map((message) => message.role)).toEqual(["system", "user"]);

    fixture.server.reply(answer("Done now."));
    const continued = await runBin(["-p", "go on", "--continue", "--model", haiku, "--cwd", fixture.workspace], anthropicEnv(fixture));
    expect(continued).toMatchObject({ code: 0, stdout: "Done now.\n" });
    expect(sentMessages(fixture.server.requests.at(-1)?.body)).toEqual([{ role: "user", content: ["Take your time", "go on"] }]);
  });

  test("SIGTERM stops the run the same way, with exit 143", async () => {
    fixture.server.reply({ stall: true });
    const run = startBin(["-p", "Take your time", "--model", haiku, "--cwd", fixture.workspace], anthropicEnv(fixture));
    await waitFor(() => fixture.server.requests.length === 1);
    run.child.kill("SIGTERM");
    const outcome = await run.done;
    expect(outcome).toMatchObject({ code: 143, stdout: "" });
    expect(outcome.stderr).toMatch(/^minagent code: interrupted; the conversation is saved: minagent code --resume [0-9a-f-]{36}\n$/);
  });

  test("SIGINT during a tool call: the shell command is stopped, exit 130, the call answered as interrupted on --continue", async () => {
    fixture.server.reply(callTool("toolu_sleep", "Bash", { command: "sleep 30" }));
    const run = startBin(
      ["-p", "Wait", "--model", haiku, "--cwd", fixture.workspace, "--permission-mode", "bypassPermissions"],
      anthropicEnv(fixture),
    );
    await waitFor(() => fixture.server.requests.length === 1);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const interruptedAt = Date.now();
    run.child.kill("SIGINT");
    const outcome = await run.done;
    expect(Date.now() - interruptedAt).toBeLessThan(5000);
    expect(outcome.code).toBe(130);
    expect(outcome.stderr).toMatch(/minagent code: interrupted; the conversation is saved: minagent code --resume [0-9a-f-]{36}\n$/);
    fixture.server.reply(answer("OK."));
    const continued = await runBin(["-p", "never mind", "-c", "--model", haiku, "--cwd", fixture.workspace], anthropicEnv(fixture));
    expect(continued.code).toBe(0);
    expect(sentMessages(fixture.server.requests.at(-1)?.body).at(-1)?.content[0]).toMatch(
      /^tool_result: .*interrupted before it returned a result/,
    );
  });
});

async function waitFor(condition: () => boolean): Promise<void> {
  for (let waited = 0; !condition(); waited += 10) {
    if (waited > 10_000) throw new Error("timed out waiting");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
