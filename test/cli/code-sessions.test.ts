import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { createCodeSessionStore } from "../../src/cli/code/code-session-store.js";
import {
  answer,
  anthropicEnv,
  callTool,
  haiku,
  printArgs,
  requestBody,
  runCode,
  sentMessages,
  sessionFiles,
  sessionMessages,
  sessionsFolder,
  useCodeFixture,
} from "./code-helpers.js";

const fixture = useCodeFixture();

/** Runs one -p prompt answered with `reply`; resolves to the session id. */
async function ask(prompt: string, reply: string, ...flags: string[]): Promise<string> {
  fixture.server.reply(answer(reply));
  const outcome = await runCode(printArgs(fixture, prompt, "--output-format", "json", ...flags), anthropicEnv(fixture));
  expect(outcome.exit).toBe(0);
  return JSON.parse(outcome.stdout).session_id;
}

const lastRequest = () => sentMessages(fixture.server.requests.at(-1)?.body);

describe("minagent code sessions", () => {
  test("every run is recorded under MINAGENT_HOME/projects/<encoded cwd>/<id>.jsonl as it goes", async () => {
    fixture.server.reply(callTool("toolu_1", "Read", { file_path: "notes.txt" }), answer("42."));
    const outcome = await runCode(printArgs(fixture, "What do the notes say?", "--output-format", "json"), anthropicEnv(fixture));
    const id = JSON.parse(outcome.stdout).session_id;
    expect(sessionsFolder(fixture)).toBe(join(fixture.home, "projects", fixture.workspace.replace(/[^A-Za-z0-9]/g, "-")));
    const text = await readFile(join(sessionsFolder(fixture), `${id}.jsonl`), "utf8");
    expect(JSON.parse(text.split("\n")[0] ?? "")).toMatchObject({
      type: "session",
      version: 1,
      sessionId: id,
      cwd: fixture.workspace,
      model: { provider: "anthropic", modelId: "claude-haiku-4-5" },
    });
    expect(sessionMessages(text)).toEqual([
      { role: "system", content: expect.stringContaining(fixture.workspace) },
      { role: "user", content: "What do the notes say?" },
      { role: "assistant", content: "", tools: ["Read"] },
      { role: "tool", content: expect.stringContaining("The answer is 42."), toolCallId: "toolu_1" },
      { role: "assistant", content: "42." },
    ]);
  });

  test("--continue goes on with the folder's newest session, in its own file", async () => {
    const first = await ask("first question", "first answer");
    const second = await ask("second question", "second answer");
    const before = await sessionFiles(fixture);
    const continued = await ask("third question", "third answer", "--continue");
    expect(continued).toBe(second);
    expect(lastRequest()).toEqual([
      { role: "user", content: ["second question"] },
      { role: "assistant", content: ["second answer"] },
      { role: "user", content: ["third question"] },
    ]);
    const after = await sessionFiles(fixture);
    expect(after[first]).toBe(before[first]);
    expect(
      sessionMessages(after[second] ?? "")
        .map((message) => message.content)
        .slice(1),
    ).toEqual(["second question", "second answer", "third question", "third answer"]);
    // The system prompt was sent once, as the system parameter, not repeated.
    expect(requestBody<{ system: unknown }>(fixture, -1).system).toBeTruthy();
  });

  test("--resume <id> goes on with that session", async () => {
    const first = await ask("first question", "first answer");
    await ask("second question", "second answer");
    expect(await ask("again", "again answer", "--resume", first)).toBe(first);
    expect(lastRequest().map((message) => message.content[0])).toEqual(["first question", "first answer", "again"]);
  });

  test("--fork-session writes to a new session that starts as a copy, and leaves the old file untouched", async () => {
    const original = await ask("first question", "first answer");
    const before = (await sessionFiles(fixture))[original];
    const fork = await ask("branch off", "branched", "--resume", original, "--fork-session");
    expect(fork).not.toBe(original);
    expect(lastRequest().map((message) => message.content[0])).toEqual(["first question", "first answer", "branch off"]);
    const after = await sessionFiles(fixture);
    expect(after[original]).toBe(before);
    expect(JSON.parse(after[fork]?.split("\n")[0] ?? "")).toMatchObject({
      type: "session",
      sessionId: fork,
      forkedFrom: { sessionId: original },
    });
    expect(
      sessionMessages(after[fork] ?? "")
        .map((message) => message.content)
        .slice(1),
    ).toEqual(["first question", "first answer", "branch off", "branched"]);
    // --continue --fork-session forks the newest, which is now the fork.
    const again = await ask("once more", "ok", "--continue", "--fork-session");
    expect(again).not.toBe(fork);
    expect((await sessionFiles(fixture))[fork]).toBe(after[fork]);
  });

  test("after a budget stop, --continue goes on with a valid conversation", async () => {
    fixture.server.reply(callTool("toolu_1", "Read", { file_path: "notes.txt" }, { input_tokens: 100_000, output_tokens: 1000 }));
    const stopped = await runCode(
      printArgs(fixture, "Read the notes", "--max-budget-usd", "0.15", "--output-format", "json"),
      anthropicEnv(fixture),
    );
    expect(stopped.exit).toBe(1);
    const id = await ask("go on", "42.", "--continue");
    expect(id).toBe(JSON.parse(stopped.stdout).session_id);
    expect(lastRequest()).toEqual([
      { role: "user", content: ["Read the notes"] },
      { role: "assistant", content: ["tool_use"] },
      { role: "user", content: [expect.stringMatching(/^tool_result: .*The answer is 42\./), "go on"] },
    ]);
  });

  test("after an interruption during a tool call, --continue answers the call as interrupted and goes on", async () => {
    const controller = new AbortController();
    fixture.server.reply(callTool("toolu_sleep", "Bash", { command: "sleep 5" }));
    const running = runCode(printArgs(fixture, "Wait a bit", "--permission-mode", "bypassPermissions"), anthropicEnv(fixture), {
      signal: controller.signal,
    });
    await waitFor(() => fixture.server.requests.length === 1);
    setTimeout(() => controller.abort(), 200);
    const interrupted = await running;
    expect(interrupted.exit).toBe(130);
    expect(interrupted.stderr).toMatch(/^minagent code: interrupted; the conversation is saved: minagent code --resume [0-9a-f-]{36}\n$/);
    await ask("never mind", "OK.", "--continue");
    expect(lastRequest()).toEqual([
      { role: "user", content: ["Wait a bit"] },
      { role: "assistant", content: ["tool_use"] },
      { role: "user", content: [expect.stringMatching(/^tool_result: .*interrupted before it returned a result/), "never mind"] },
    ]);
  });

  test("a session of another folder is not resumed here", async () => {
    const id = await ask("first question", "first answer");
    const elsewhere = await mkdtemp(join(tmpdir(), "minagent-code-elsewhere-"));
    try {
      const outcome = await runCode(["-p", "hi", "--model", haiku, "--cwd", elsewhere, "--resume", id], anthropicEnv(fixture));
      expect(outcome.exit).toBe(2);
      expect(outcome.stderr).toContain(
        `Session ${id} belongs to ${fixture.workspace}, not ${elsewhere}: run there, or with --cwd ${fixture.workspace}.`,
      );
    } finally {
      await rm(elsewhere, { recursive: true, force: true });
    }
  });

  test("the store lists the folder's sessions newest first, with their counts", async () => {
    const first = await ask("first question", "first answer");
    const second = await ask("second question", "second answer");
    await ask("third question", "third answer", "--resume", second);
    const sessions = createCodeSessionStore({ cwd: fixture.workspace, directory: fixture.home, env: {} });
    expect(await sessions.list()).toEqual([
      {
        id: second,
        file: expect.stringMatching(new RegExp(`${second}\\.jsonl$`)),
        updatedAt: expect.any(String),
        prompts: 2,
        turns: 2,
        firstPrompt: "second question",
        name: undefined,
        title: "second question",
      },
      {
        id: first,
        file: expect.stringMatching(new RegExp(`${first}\\.jsonl$`)),
        updatedAt: expect.any(String),
        prompts: 1,
        turns: 1,
        firstPrompt: "first question",
        name: undefined,
        title: "first question",
      },
    ]);
  });

  test("the API key in the environment is never written to a session", async () => {
    const env = anthropicEnv(fixture);
    fixture.server.reply(answer(`I will not repeat ${env.ANTHROPIC_API_KEY}.`));
    const outcome = await runCode(printArgs(fixture, `Remember ${env.ANTHROPIC_API_KEY}`), env);
    expect(outcome.exit).toBe(0);
    const [text] = Object.values(await sessionFiles(fixture));
    expect(text).toContain("Remember ");
    expect(text).not.toContain(env.ANTHROPIC_API_KEY);
  });

  test("--continue with no session in the folder, --resume of an unknown id, and --resume without an id in -p exit 2", async () => {
    const none = await runCode(printArgs(fixture, "hi", "--continue"), anthropicEnv(fixture));
    expect(none).toMatchObject({ exit: 2, stderr: expect.stringMatching(/--continue: there is no session to continue in /) });
    const unknown = await runCode(printArgs(fixture, "hi", "--resume", "1b9d6bcd-bbfd-4b2d-9b5d-ab8dfbbd4bed"), anthropicEnv(fixture));
    expect(unknown).toMatchObject({
      exit: 2,
      stderr: expect.stringMatching(/There is no session "1b9d6bcd-bbfd-4b2d-9b5d-ab8dfbbd4bed" under /),
    });
    const traversal = await runCode(printArgs(fixture, "hi", "--resume=../../etc/passwd"), anthropicEnv(fixture));
    expect(traversal).toMatchObject({ exit: 2, stderr: expect.stringMatching(/"..\/..\/etc\/passwd" is not a session id/) });
    const id = await ask("the first prompt", "answer");
    const pick = await runCode(printArgs(fixture, "hi", "--resume"), anthropicEnv(fixture));
    expect(pick.exit).toBe(2);
    expect(pick.stderr).toMatch(
      new RegExp(`--resume needs a session id with -p .* Recent sessions in .*:\\n  ${id}  \\S+  the first prompt\\n`),
    );
  });
});

async function waitFor(condition: () => boolean): Promise<void> {
  for (let waited = 0; !condition(); waited += 10) {
    if (waited > 5000) throw new Error("timed out waiting");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
