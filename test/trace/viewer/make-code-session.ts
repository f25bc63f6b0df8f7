import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { CodingAgent } from "../../../src/code/index.js";
import { JsonLinesSessionStore, SessionRecorder } from "../../../src/code/sessions/index.js";
import { FakeModel, type Model } from "../../../src/index.js";
import { reply, toolCall, withUsage } from "../../../src/testing/index.js";

/** The first prompt of the recorded session: longer than the list shows of it. */
export const codeSessionPrompt =
  "Find the tests of this project and run them, then tell me which ones fail and why; keep the answer short, " + "a line per failing test.";

/** What the recorded session holds, for the tests to check the viewer against. */
export type RecordedCodeSession = {
  file: string;
  /** Tokens of every model call, the subagent's included (what `minagent code` reports). */
  usage: { inputTokens: number; outputTokens: number };
  /** The model calls the subagent made, which a session file does not record (only their tokens). */
  subagentUsage: { inputTokens: number; outputTokens: number };
};

/**
 * Runs a real CodingAgent (its tools, its Agent tool, its permission system) on a scripted model, recorded by the
 * session recorder as `minagent code` records it: the first prompt starts an Explore subagent (the Agent tool) that
 * globs the workspace and reports, and the agent answers; the second prompt runs a Bash command that is interrupted
 * (the run aborted, as Esc or Ctrl-C does, while the command runs); the third prompt completes.
 */
export async function writeCodeSession(home: string): Promise<RecordedCodeSession> {
  const workspace = join(home, "work", "app");
  mkdirSync(join(workspace, "test"), { recursive: true });
  writeFileSync(join(workspace, "test", "math.test.js"), "test('adds', () => {});\n");
  const fake = new FakeModel([
    // The conversation's first call, then the subagent's two (it shares the model), then the answer.
    withUsage(
      reply(
        "I will have a subagent find the tests.",
        toolCall("Agent", { description: "find the tests", prompt: "List the test files.", subagent_type: "Explore" }, "agent-1"),
      ),
      { inputTokens: 3000, outputTokens: 60 },
    ),
    withUsage(reply("Globbing.", toolCall("Glob", { pattern: "test/**/*.js" }, "glob-1")), { inputTokens: 2000, outputTokens: 30 }),
    withUsage(reply("One test file: test/math.test.js."), { inputTokens: 2100, outputTokens: 20 }),
    withUsage(reply("There is one test file, test/math.test.js."), { inputTokens: 3200, outputTokens: 25 }),
    // The second prompt: a command that is still running when the run is stopped.
    withUsage(reply("Running them.", toolCall("Bash", { command: "sleep 30", description: "Run the tests" }, "bash-1")), {
      inputTokens: 3300,
      outputTokens: 30,
    }),
    withUsage(reply("Stopped; nothing failed before the stop."), { inputTokens: 3400, outputTokens: 12 }),
  ]);
  const model: Model = {
    provider: "anthropic",
    modelId: "claude-sonnet-4-5",
    complete: (messages, tools, options) => fake.complete(messages, tools, options),
  };
  const agent = await CodingAgent.create(model, {
    workspace,
    settingsFiles: [],
    home,
    userDirectory: join(home, ".minagent"),
    mode: "bypassPermissions",
    sandbox: false,
    memory: false,
    compaction: false,
  });
  const store = new JsonLinesSessionStore({ directory: join(home, ".minagent") });
  const recorder = new SessionRecorder({ store, cwd: workspace, env: {}, permissionMode: () => agent.permissions.mode });
  await agent.run(codeSessionPrompt, { onEvent: recorder.listen });

  const stop = new AbortController();
  const stopWhileRunning = (event: { type: string; toolCall?: { name: string } }) => {
    // Stopped once the command has had time to start, as a person pressing Esc would.
    if (event.type === "tool-call-start" && event.toolCall?.name === "Bash") setTimeout(() => stop.abort(), 300);
  };
  await agent
    .run("Now run them.", {
      history: recorder.messages,
      signal: stop.signal,
      onEvent: (event) => {
        recorder.listen(event);
        stopWhileRunning(event);
      },
    })
    .then(
      () => {
        throw new Error("the run was meant to be stopped while Bash ran");
      },
      (error: unknown) => {
        if (!(error instanceof Error && error.name === "AbortError")) throw error;
      },
    );
  await agent.run("What happened?", { history: recorder.messages, onEvent: recorder.listen });
  await agent.close();
  return {
    file: store.sessionPath(workspace, recorder.sessionId),
    usage: { inputTokens: 3000 + 2000 + 2100 + 3200 + 3300 + 3400, outputTokens: 60 + 30 + 20 + 25 + 30 + 12 },
    subagentUsage: { inputTokens: 4100, outputTokens: 50 },
  };
}
