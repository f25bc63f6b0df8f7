import { appendFileSync, readFileSync, writeFileSync } from "node:fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createCodeSessionStore } from "../../../src/cli/code/code-session-store.js";
import {
  conversationBefore,
  JsonLinesSessionStore,
  openSession,
  readSession,
  SessionRecorder,
  type SessionStore,
} from "../../../src/code/sessions/index.js";
import type { Message } from "../../../src/core/types.js";
import { Agent, FakeModel, type FakeModelScriptItem, ToolRegistry } from "../../../src/index.js";
import { reply, toolCall } from "../../../src/testing/index.js";
import { makeTemporaryHome, sleep } from "./helpers.js";

// The session file's side of rewinding a conversation to a checkpoint (issue 23): `checkpoint` marker lines written
// before each prompt, `compaction` lines with `reason: "rewind"`, and `conversationBefore`, which replays a file up
// to either. Real runs, recorded into real files under os.tmpdir().

let home: ReturnType<typeof makeTemporaryHome>;
let store: JsonLinesSessionStore;
beforeEach(() => {
  home = makeTemporaryHome();
  store = new JsonLinesSessionStore({ directory: home.directory });
});
afterEach(() => home.remove());

// The lookups finish in reverse call order (a last): the file holds them as they finished, a reader in call order.
const delays: Record<string, number> = { a: 30, b: 15, c: 0 };
const registry = new ToolRegistry().add({
  name: "lookup",
  description: "Looks a word up",
  parameters: { type: "object", properties: { word: { type: "string" } } },
  execute: async ({ word }) => {
    await sleep(delays[String(word)] ?? 0);
    return `meaning of ${String(word)}`;
  },
});
const threeLookups = reply(
  "three at once",
  toolCall("lookup", { word: "a" }, "ca"),
  toolCall("lookup", { word: "b" }, "cb"),
  toolCall("lookup", { word: "c" }, "cc"),
);

/** One prompt, marked first as the CLI will mark it. */
async function ask(
  recorder: SessionRecorder,
  checkpointId: string,
  prompt: string,
  history: readonly Message[] | undefined,
  ...script: FakeModelScriptItem[]
) {
  recorder.markCheckpoint(checkpointId);
  const agent = new Agent(new FakeModel(script), registry, { system: "sys" });
  return agent.run(prompt, { ...(history && { history: history.slice() }), onEvent: recorder.listen });
}

const fileOf = (id: string) => store.sessionPath(home.cwd, id);
const linesOf = (id: string) =>
  readFileSync(fileOf(id), "utf8")
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as Record<string, unknown>);
/** Each line as its type, a message line as its role and text, a checkpoint or compaction with its id. */
const shapeOf = (id: string) =>
  linesOf(id).map((line) => {
    const message = line.message as Message | undefined;
    if (message) return `${message.role}:${message.role === "tool" ? message.toolCallId : message.content}`;
    if (line.type === "checkpoint") return `checkpoint:${String(line.checkpointId)}`;
    if (line.type === "compaction") return `compaction:${String(line.reason)}:${String(line.checkpointId)}:keep ${String(line.keep)}`;
    return String(line.type);
  });

describe("checkpoint markers", () => {
  it("are written before each prompt's user message (the first behind the header), change nothing in load, and mark the conversation before the prompt", async () => {
    const recorder = new SessionRecorder({ store, cwd: home.cwd, env: {} });
    const first = await ask(recorder, "cp1", "look up a, b, c", undefined, threeLookups, "found");
    const second = await ask(recorder, "cp2", "and again", first.messages, "again");
    expect(shapeOf(recorder.sessionId)).toEqual([
      "session",
      "checkpoint:cp1",
      "system:sys",
      "user:look up a, b, c",
      "assistant:three at once",
      "tool:cc",
      "tool:cb",
      "tool:ca",
      "assistant:found",
      "run-end",
      "checkpoint:cp2",
      "user:and again",
      "assistant:again",
      "run-end",
    ]);

    const loaded = await store.load(recorder.sessionId);
    expect(loaded).toMatchObject({ messages: second.messages, prompts: 2, turns: 3, compactions: 0, problems: [], status: "completed" });

    expect(await store.conversationBefore(recorder.sessionId, "cp1")).toEqual([]);
    // Results in call order, as the run held them.
    expect(await store.conversationBefore(recorder.sessionId, "cp2")).toEqual(first.messages);
    expect(await store.conversationBefore(recorder.sessionId, "no-such-checkpoint")).toBeUndefined();
    expect(await store.conversationBefore("no-such-session", "cp1")).toBeUndefined();
  });

  it("a marker gives the conversation before its prompt after a later compaction, and the compacted one after an earlier", async () => {
    const recorder = new SessionRecorder({ store, cwd: home.cwd, env: {} });
    const first = await ask(recorder, "cp1", "look up a, b, c", undefined, threeLookups, "found");
    recorder.markCheckpoint("cp2");
    const compacting = new Agent(new FakeModel([reply("once more", toolCall("lookup", { word: "c" }, "c2")), "done"]), registry, {
      prepareTurn: ({ turn, messages }) =>
        turn === 1
          ? { messages: [messages[0] as Message, { role: "user", content: "Summary so far." }, ...messages.slice(-2)] }
          : undefined,
    });
    const second = await compacting.run("go on", { history: first.messages.slice(), onEvent: recorder.listen });
    const third = await ask(recorder, "cp3", "last", second.messages, "bye");
    expect(shapeOf(recorder.sessionId).filter((shape) => shape.startsWith("compaction"))).toEqual([
      "compaction:prepare-turn:undefined:keep 1",
    ]);

    expect(await store.conversationBefore(recorder.sessionId, "cp2")).toEqual(first.messages);
    expect(await store.conversationBefore(recorder.sessionId, "cp3")).toEqual(second.messages);
    expect(second.messages[1]).toEqual({ role: "user", content: "Summary so far." });
    expect((await store.load(recorder.sessionId)).messages).toEqual(third.messages);
  });

  it("a torn last line and a damaged line are passed over as load passes over them", async () => {
    const recorder = new SessionRecorder({ store, cwd: home.cwd, env: {} });
    const first = await ask(recorder, "cp1", "one", undefined, "1");
    const second = await ask(recorder, "cp2", "two", first.messages, "2");
    const path = fileOf(recorder.sessionId);
    const lines = readFileSync(path, "utf8").split("\n");
    // A damaged line before the second marker, and a marker cut by a crash at the end.
    lines.splice(lines.indexOf(lines.find((line) => line.includes('"checkpointId":"cp2"')) as string), 0, '{"type":"message","mess');
    writeFileSync(path, `${lines.join("\n")}{"type":"checkpoint","checkpointId":"cp3"`);
    expect(readSession(readFileSync(path, "utf8"), path).problems.map((problem) => problem.reason)).toEqual([
      expect.stringMatching(/^not JSON/),
      expect.stringMatching(/^the last line is incomplete/),
    ]);
    expect(await store.conversationBefore(recorder.sessionId, "cp2")).toEqual(first.messages);
    expect(await store.conversationBefore(recorder.sessionId, "cp3")).toBeUndefined();
    expect((await store.load(recorder.sessionId)).messages).toEqual(second.messages);

    // The next append ends the torn line first: the marker written then is found.
    const resumed = await openSession(store, { resume: recorder.sessionId, env: {} });
    resumed.recorder.markCheckpoint("cp3");
    expect(await store.conversationBefore(recorder.sessionId, "cp3")).toEqual(second.messages);
  });

  it("conversationBefore reads a file's text: a marker's or a rewind's id, nothing else", () => {
    const header = { type: "session", version: 1, sessionId: "s", cwd: "/w", createdAt: "2026-12-01T00:00:00.000Z" };
    const at = "2026-12-01T00:00:01.000Z";
    const text = [
      header,
      { type: "message", message: { role: "user", content: "one" }, at },
      { type: "checkpoint", checkpointId: "a", at },
      { type: "message", message: { role: "user", content: "two" }, at },
      { type: "compaction", reason: "rewind", keep: 1, messages: [], checkpointId: "b", at },
      { type: "compaction", reason: "prepare-turn", keep: 0, messages: [{ role: "user", content: "summary" }], at },
    ]
      .map((line) => `${JSON.stringify(line)}\n`)
      .join("");
    expect(conversationBefore(text, "s.jsonl", "a")).toEqual([{ role: "user", content: "one" }]);
    expect(conversationBefore(text, "s.jsonl", "b")).toEqual([
      { role: "user", content: "one" },
      { role: "user", content: "two" },
    ]);
    expect(conversationBefore(text, "s.jsonl", "c")).toBeUndefined();
    expect(() => conversationBefore("not a session\n", "x.jsonl", "a")).toThrow(/x.jsonl is not a minagent session/);
  });
});

describe("rewinding the conversation", () => {
  it("is one rewind compaction: load gives the rewound conversation, the next run writes no second one, and the rewind's id undoes it", async () => {
    const recorder = new SessionRecorder({ store, cwd: home.cwd, env: {} });
    const first = await ask(recorder, "cp1", "look up a, b, c", undefined, threeLookups, "found");
    const second = await ask(recorder, "cp2", "and again", first.messages, "again");

    const before = (await store.conversationBefore(recorder.sessionId, "cp2")) as Message[];
    recorder.rewindConversation(before, "rw1");
    expect(recorder.messages).toEqual(first.messages);
    expect(linesOf(recorder.sessionId).at(-1)).toMatchObject({
      type: "compaction",
      reason: "rewind",
      checkpointId: "rw1",
      keep: first.messages.length,
      messages: [],
    });
    const rewound = await store.load(recorder.sessionId);
    expect(rewound.messages).toEqual(first.messages);
    expect(rewound.problems).toEqual([]);

    const third = await ask(recorder, "cp3", "instead", before, "other");
    expect(shapeOf(recorder.sessionId).slice(-5)).toEqual([
      `compaction:rewind:rw1:keep ${first.messages.length}`,
      "checkpoint:cp3",
      "user:instead",
      "assistant:other",
      "run-end",
    ]);
    expect((await store.load(recorder.sessionId)).messages).toEqual(third.messages);

    // Undo: the conversation just before the rewind, put back by a rewind of its own.
    const undone = await store.conversationBefore(recorder.sessionId, "rw1");
    expect(undone).toEqual(second.messages);
    recorder.rewindConversation(undone as Message[], "rw2");
    expect(linesOf(recorder.sessionId).at(-1)).toMatchObject({ reason: "rewind", checkpointId: "rw2", keep: first.messages.length });
    expect((await store.load(recorder.sessionId)).messages).toEqual(second.messages);
    expect(await store.conversationBefore(recorder.sessionId, "rw2")).toEqual(third.messages);
    // The markers stay where they were: cp3 is still the conversation after the first rewind.
    expect(await store.conversationBefore(recorder.sessionId, "cp3")).toEqual(first.messages);
  });

  it("hides secrets in the rewound messages, and a resumed session goes on from the rewind", async () => {
    const secret = "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789";
    const recorder = new SessionRecorder({ store, cwd: home.cwd, env: {} });
    const first = await ask(recorder, "cp1", "one", undefined, "1");
    await ask(recorder, "cp2", "two", first.messages, "2");
    const edited: Message[] = [...first.messages, { role: "user", content: `use ${secret}` }];
    recorder.rewindConversation(edited, "rw");
    expect(readFileSync(fileOf(recorder.sessionId), "utf8")).not.toContain(secret);

    const resumed = await openSession(store, { resume: recorder.sessionId, env: {} });
    expect(resumed.history).toEqual([...first.messages, { role: "user", content: "use [redacted]" }]);
    await ask(resumed.recorder, "cp3", "three", resumed.history, "3");
    expect(shapeOf(recorder.sessionId).filter((shape) => shape.startsWith("compaction"))).toHaveLength(1);
  });
});

describe("forks", () => {
  it("a fork's marker follows the conversation it starts with; markers from before the fork are found in the parent's file", async () => {
    const parent = new SessionRecorder({ store, cwd: home.cwd, env: {} });
    const first = await ask(parent, "cp1", "one", undefined, "1");
    const second = await ask(parent, "cp2", "two", first.messages, "2");
    const parentText = readFileSync(fileOf(parent.sessionId), "utf8");

    const fork = await openSession(store, { resume: parent.sessionId, fork: true, env: {} });
    const forked = await ask(fork.recorder, "f1", "three", fork.history, "3");
    expect(shapeOf(fork.recorder.sessionId)).toEqual([
      "session",
      "system:sys",
      "user:one",
      "assistant:1",
      "user:two",
      "assistant:2",
      "checkpoint:f1",
      "user:three",
      "assistant:3",
      "run-end",
    ]);
    expect((await store.load(fork.recorder.sessionId)).messages).toEqual(forked.messages);
    expect(await store.conversationBefore(fork.recorder.sessionId, "f1")).toEqual(second.messages);
    expect(await store.conversationBefore(fork.recorder.sessionId, "cp2")).toEqual(first.messages);

    // A fork of the fork finds them two files up; rewinding it leaves both files it came from as they were.
    const again = await openSession(store, { resume: fork.recorder.sessionId, fork: true, env: {} });
    expect(await store.conversationBefore(again.recorder.sessionId, "cp1")).toBeUndefined(); // no file yet
    again.recorder.rewindConversation((await store.conversationBefore(fork.recorder.sessionId, "cp1")) as Message[], "rw");
    expect((await store.load(again.recorder.sessionId)).messages).toEqual([]);
    expect(await store.conversationBefore(again.recorder.sessionId, "rw")).toEqual(forked.messages);
    expect(await store.conversationBefore(again.recorder.sessionId, "cp2")).toEqual(first.messages);
    expect(await store.conversationBefore(again.recorder.sessionId, "nowhere")).toBeUndefined();
    expect(readFileSync(fileOf(parent.sessionId), "utf8")).toBe(parentText);
  });

  it("sessions forked from each other (a hand-made cycle) end the search", async () => {
    const at = "2026-12-01T00:00:00.000Z";
    const write = (id: string, from: string) =>
      store.append(id, [{ type: "session", version: 1, sessionId: id, cwd: home.cwd, createdAt: at, forkedFrom: { sessionId: from } }]);
    write("loop-a", "loop-b");
    write("loop-b", "loop-a");
    appendFileSync(fileOf("loop-b"), `${JSON.stringify({ type: "checkpoint", checkpointId: "x", at })}\n`);
    expect(await store.conversationBefore("loop-a", "x")).toEqual([]);
    expect(await store.conversationBefore("loop-a", "y")).toBeUndefined();
  });
});

describe("failures", () => {
  it("a marker or a rewind that cannot be written stops the recording and is reported, like any line", async () => {
    const errors: unknown[] = [];
    let fail = false;
    const failing: SessionStore = {
      append: (sessionId, lines) => {
        if (fail) throw new Error("disk full");
        store.append(sessionId, lines);
      },
      load: (sessionId) => store.load(sessionId),
      list: (cwd) => store.list(cwd),
      remove: (sessionId) => store.remove(sessionId),
    };
    const recorder = new SessionRecorder({ store: failing, cwd: home.cwd, env: {}, onError: (error) => errors.push(error) });
    const first = await ask(recorder, "cp1", "one", undefined, "1");
    fail = true;
    recorder.markCheckpoint("cp2");
    expect(errors).toEqual([new Error("disk full")]);
    recorder.rewindConversation([], "rw");
    expect(errors).toHaveLength(1);
    expect(recorder.messages).toEqual(first.messages);
  });
});

describe("CodeSession (the CLI's contract)", () => {
  it("marks, finds and rewinds through createCodeSessionStore; a fork not written yet finds its parent's checkpoints; remove deletes", async () => {
    const sessions = createCodeSessionStore({ cwd: home.cwd, directory: home.directory, env: {} });
    const session = await sessions.create();
    session.markCheckpoint("cp1");
    const agent = new Agent(new FakeModel(["1", "2"]), registry);
    const first = await agent.run("one", { onEvent: session.record });
    session.markCheckpoint("cp2");
    await agent.run("two", { history: first.messages, onEvent: session.record });
    const before = await session.conversationBefore("cp2");
    expect(before).toEqual(first.messages);
    session.rewindConversation(before as Message[], "rw");
    await session.flush();
    expect((await sessions.open(session.id)).history).toEqual(first.messages);

    const fork = await sessions.create({ forkedFrom: session.id });
    expect(await fork.conversationBefore("cp2")).toEqual(first.messages);
    expect(await fork.conversationBefore("nowhere")).toBeUndefined();

    expect(await sessions.remove(session.id)).toBe(true);
    expect(await sessions.remove(session.id)).toBe(false);
    expect(await sessions.list()).toEqual([]);
  });
});
