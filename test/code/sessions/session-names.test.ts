import { appendFileSync, readFileSync } from "node:fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { JsonLinesSessionStore, readSession, SessionRecorder } from "../../../src/code/sessions/index.js";
import { Agent, FakeModel, ToolRegistry } from "../../../src/index.js";
import { isTitlePrompt, sessionTitle } from "../../../src/session-title.js";
import { reply } from "../../../src/testing/index.js";
import { readSessionAsTrace } from "../../../src/trace/viewer/session-trace.js";
import { summarizeTrace } from "../../../src/trace/viewer/trace-summary.js";
import { makeTemporaryHome } from "./helpers.js";

let home: ReturnType<typeof makeTemporaryHome>;
let store: JsonLinesSessionStore;
beforeEach(() => {
  home = makeTemporaryHome();
  store = new JsonLinesSessionStore({ directory: home.directory });
});
afterEach(() => home.remove());

/** A recorded session of one prompt per entry of `prompts`, and the recorder that wrote it. */
async function recordSession(prompts: readonly string[]): Promise<SessionRecorder> {
  const recorder = new SessionRecorder({ store, cwd: home.cwd, env: {} });
  const agent = new Agent(new FakeModel(prompts.map((_, index) => reply(`answer ${index + 1}`))), new ToolRegistry());
  let history: Awaited<ReturnType<typeof agent.run>>["messages"] | undefined;
  for (const prompt of prompts) history = (await agent.run(prompt, { history, onEvent: recorder.listen })).messages;
  return recorder;
}

const titles = async () => (await store.list(home.cwd)).map((summary) => summary.title);

describe("session titles", () => {
  it("the first prompt titles a session, on one line; a name given later wins, and the last name counts", async () => {
    const recorder = await recordSession(["Fix the\n  failing   test", "and the docs"]);
    expect(await titles()).toEqual(["Fix the failing test"]);
    recorder.recordName("Login bug");
    expect(await titles()).toEqual(["Login bug"]);
    recorder.recordName("Login bug, part 2");
    const [summary] = await store.list(home.cwd);
    expect(summary).toMatchObject({ name: "Login bug, part 2", title: "Login bug, part 2", firstPrompt: "Fix the\n  failing   test" });
    // The name changes nothing in the conversation.
    const loaded = await store.load(recorder.sessionId);
    expect(loaded).toMatchObject({ name: "Login bug, part 2", title: "Login bug, part 2", prompts: 2, turns: 2, problems: [] });
    expect(loaded.messages.map((message) => message.content)).toEqual([
      "Fix the\n  failing   test",
      "answer 1",
      "and the docs",
      "answer 2",
    ]);
  });

  it("a name given before the first prompt is written with it; a session never prompted leaves no file", async () => {
    const recorder = new SessionRecorder({ store, cwd: home.cwd, env: {} });
    recorder.recordName("Planned work");
    expect(await store.list(home.cwd)).toEqual([]);
    const agent = new Agent(new FakeModel([reply("ok")]), new ToolRegistry());
    await agent.run("start", { onEvent: recorder.listen });
    expect(await titles()).toEqual(["Planned work"]);
    const lines = readFileSync(store.sessionPath(home.cwd, recorder.sessionId), "utf8").split("\n");
    expect(JSON.parse(lines[1] as string)).toMatchObject({ type: "name", name: "Planned work" });
  });

  it("a resumed session keeps its name; a note in brackets does not title a session", async () => {
    const first = await recordSession(["[Request interrupted by user]", "Now the real question"]);
    first.recordName("Kept");
    const resumed = new SessionRecorder({ store, resume: await store.load(first.sessionId), env: {} });
    expect(resumed.name).toBe("Kept");
    await recordSession(["[Request interrupted by user]", "Now the real question"]);
    expect(await titles()).toContain("Now the real question");
    expect(isTitlePrompt("[WIP] fix the parser")).toBe(true);
    expect(isTitlePrompt("  ")).toBe(false);
    expect(sessionTitle({ name: "  ", firstPrompt: "a long first prompt" }, 10)).toBe("a long fi…");
    expect(sessionTitle({})).toBeUndefined();
  });

  it("a file from before names reads as before, and a reader skips a name line it cannot use", async () => {
    const recorder = await recordSession(["old prompt"]);
    const path = store.sessionPath(home.cwd, recorder.sessionId);
    expect(readSession(readFileSync(path, "utf8"), path)).toMatchObject({ name: undefined, title: "old prompt", problems: [] });
    appendFileSync(path, `${JSON.stringify({ type: "name", at: new Date().toISOString() })}\n`);
    const loaded = readSession(readFileSync(path, "utf8"), path);
    expect(loaded).toMatchObject({ name: undefined, title: "old prompt" });
    expect(loaded.problems.map((problem) => problem.reason)).toEqual(["a name line without a name"]);
    expect(await titles()).toEqual(["old prompt"]);
  });

  it("the trace viewer's list titles a session the same way", async () => {
    const recorder = await recordSession(["What does this repo do?"]);
    const path = store.sessionPath(home.cwd, recorder.sessionId);
    const listed = () => summarizeTrace(readSessionAsTrace(readFileSync(path, "utf8"), path), "s.jsonl", "session", 0).title;
    expect(listed()).toBe("What does this repo do?");
    recorder.recordName("Repo tour");
    expect(listed()).toBe("Repo tour");
  });
});
