import { afterAll, beforeAll, describe, expect, it } from "vitest";
// @ts-expect-error: a plain JavaScript module shared with bench/sessions.mjs, which runs a compiled copy of the engine
import { createLongSessionRun } from "../../../bench/long-session-run.mjs";
import { JsonLinesSessionStore, SessionRecorder } from "../../../src/code/sessions/index.js";
import type { RunResult } from "../../../src/core/types.js";
import { Agent, FakeModel, ToolRegistry } from "../../../src/index.js";
import { reply, toolCall, withUsage } from "../../../src/testing/index.js";
import { makeTemporaryHome } from "./helpers.js";

// A session of 10,003 messages: the prompt, 2,500 turns of an assistant message and three results (200 to
// 2,000 characters, like file excerpts), and the answer, written by a real run. What it costs to write, load and
// list is measured by bench/sessions.mjs (npm run bench:sessions), not here.
const turns = 2_500;
let home: ReturnType<typeof makeTemporaryHome>;
let store: JsonLinesSessionStore;
let recorder: SessionRecorder;
let result: RunResult;

beforeAll(async () => {
  home = makeTemporaryHome();
  store = new JsonLinesSessionStore({ directory: home.directory });
  const { agent, prompt } = createLongSessionRun({ Agent, FakeModel, ToolRegistry, reply, toolCall, withUsage }, turns);
  recorder = new SessionRecorder({ store, cwd: home.cwd, env: {} });
  result = await agent.run(prompt, { onEvent: recorder.listen });
}, 60_000);
afterAll(() => home?.remove());

describe("a long session", () => {
  it("a session of 10,000 messages loads as the run's conversation, with its counts, and lists", async () => {
    expect(recorder.error).toBeUndefined();
    const loaded = await new JsonLinesSessionStore({ directory: home.directory }).load(recorder.sessionId);
    expect(loaded.messages.length).toBeGreaterThanOrEqual(10_000);
    expect(loaded.messages).toEqual(result.messages);
    expect(loaded.problems).toEqual([]);
    expect(loaded.turns).toBe(turns + 1);
    expect(loaded.prompts).toBe(1);
    expect(loaded.usage.outputTokens).toBe(turns * 50);
    const [summary, ...others] = await store.list(home.cwd);
    expect(others).toEqual([]);
    expect(summary).toMatchObject({
      sessionId: recorder.sessionId,
      turns: turns + 1,
      prompts: 1,
      firstPrompt: "Where is the configuration loaded?",
    });
  });
});
