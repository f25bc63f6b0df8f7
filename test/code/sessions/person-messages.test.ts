import { readFileSync } from "node:fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { JsonLinesSessionStore, SessionRecorder } from "../../../src/code/sessions/index.js";
import { Agent, FakeModel, type Message, ToolRegistry } from "../../../src/index.js";
import { reply } from "../../../src/testing/index.js";
import { makeTemporaryHome } from "./helpers.js";

// What the person adds between runs without the model (a `!` command's output in `minagent code`) is saved at once,
// so that a session closed before its next prompt keeps it, and the next run does not write it twice.

let home: ReturnType<typeof makeTemporaryHome>;
let store: JsonLinesSessionStore;
beforeEach(() => {
  home = makeTemporaryHome();
  store = new JsonLinesSessionStore({ directory: home.directory });
});
afterEach(() => home.remove());

const note: Message = { role: "user", content: "[The user ran this shell command themselves]\n$ git status\nclean\n\nExit code: 0" };
const lineTypes = (recorder: SessionRecorder) =>
  readFileSync(store.sessionPath(home.cwd, recorder.sessionId), "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as { type: string; message?: Message });

describe("SessionRecorder.recordMessages", () => {
  it("a note before the first prompt is the session's first line after its header, and is loaded back", async () => {
    const recorder = new SessionRecorder({ store, cwd: home.cwd, env: {}, model: { provider: "anthropic", modelId: "claude-haiku-4-5" } });
    recorder.recordMessages([note]);
    expect(lineTypes(recorder).map((line) => line.type)).toEqual(["session", "message"]);
    expect((await store.load(recorder.sessionId)).messages).toEqual([note]);
  });

  it("the next run, with the note at the end of its history, writes only its own messages", async () => {
    const recorder = new SessionRecorder({ store, cwd: home.cwd, env: {} });
    const agent = new Agent(new FakeModel([reply("first"), reply("second")]), new ToolRegistry());
    const first = await agent.run("hello", { onEvent: recorder.listen });
    recorder.recordMessages([note]);
    await agent.run("what did I run?", { history: [...first.messages, note], onEvent: recorder.listen });
    const loaded = await store.load(recorder.sessionId);
    expect(loaded.messages.map((message) => message.content)).toEqual(["hello", "first", note.content, "what did I run?", "second"]);
    expect(lineTypes(recorder).filter((line) => line.message?.content === note.content)).toHaveLength(1);
    expect(loaded.problems).toEqual([]);
  });

  it("hides secrets in the note as in every line", async () => {
    const recorder = new SessionRecorder({ store, cwd: home.cwd, env: { GITHUB_TOKEN: "ghp_notreallyasecret0123456789" } });
    recorder.recordMessages([{ role: "user", content: "$ env\nGITHUB_TOKEN=ghp_notreallyasecret0123456789" }]);
    const text = readFileSync(store.sessionPath(home.cwd, recorder.sessionId), "utf8");
    expect(text).not.toContain("ghp_notreallyasecret0123456789");
  });
});
