import { appendFileSync, readFileSync, writeFileSync } from "node:fs";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { CodingAgent } from "../../../src/code/index.js";
import {
  defaultDataDirectory,
  interruptedRunResult,
  JsonLinesSessionStore,
  openSession,
  projectFolderName,
  readSession,
  SessionRecorder,
  type SessionStore,
  sessionFormatVersion,
} from "../../../src/code/sessions/index.js";
import type { Message } from "../../../src/core/types.js";
import { Agent, FakeModel, type ToolContext, ToolRegistry, UsageError } from "../../../src/index.js";
import { reply, toolCall, withUsage } from "../../../src/testing/index.js";
import { assertAnswered, makeTemporaryHome, sleep } from "./helpers.js";

let home: ReturnType<typeof makeTemporaryHome>;
let store: JsonLinesSessionStore;
beforeEach(() => {
  home = makeTemporaryHome();
  store = new JsonLinesSessionStore({ directory: home.directory });
});
afterEach(() => home.remove());

const lookup = { name: "lookup", description: "Looks a word up", parameters: { type: "object", properties: { word: { type: "string" } } } };
const registryWith = (execute: (args: Record<string, unknown>) => unknown = ({ word }) => `meaning of ${String(word)}`) =>
  new ToolRegistry().add({ ...lookup, execute });
const fileLines = (path: string) =>
  readFileSync(path, "utf8")
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as Record<string, unknown>);

describe("SessionRecorder with a real Agent run", () => {
  it("writes each message as it happens, so the file holds what the model was sent before each call; load gives the history back", async () => {
    const recorder = new SessionRecorder({ store, cwd: home.cwd, env: {} });
    const path = store.sessionPath(home.cwd, recorder.sessionId);
    const onDisk: Message[][] = [];
    const model = new FakeModel([
      (messages) => {
        onDisk.push(readSession(readFileSync(path, "utf8"), path).messages);
        expect(onDisk[0]).toEqual(messages);
        return withUsage(reply("Let me look.", toolCall("lookup", { word: "a" }, "c1"), toolCall("lookup", { word: "b" }, "c2")), {
          inputTokens: 10,
          outputTokens: 5,
        });
      },
      (messages) => {
        // The assistant message and both results are on disk before this call.
        onDisk.push(readSession(readFileSync(path, "utf8"), path).messages);
        expect(onDisk[1]).toEqual(messages);
        return withUsage(reply("Both found."), { inputTokens: 20, outputTokens: 3, cacheReadTokens: 7 });
      },
    ]);
    const agent = new Agent(model, registryWith(), { system: "You are terse." });
    const result = await agent.run("Look up a and b", { onEvent: recorder.listen });

    const loaded = await store.load(recorder.sessionId);
    expect(loaded.messages).toEqual(result.messages);
    expect(loaded.messages.map((message) => message.role)).toEqual(["system", "user", "assistant", "tool", "tool", "assistant"]);
    expect(loaded).toMatchObject({
      firstPrompt: "Look up a and b",
      prompts: 1,
      turns: 2,
      usage: { inputTokens: 30, outputTokens: 8, cacheReadTokens: 7 },
      status: "completed",
      pending: [],
      problems: [],
      compactions: 0,
      model: { provider: "fake", modelId: "fake-model" },
    });
    expect(loaded.header).toMatchObject({ type: "session", version: sessionFormatVersion, sessionId: recorder.sessionId, cwd: home.cwd });
    expect(loaded.header.minagentVersion).toMatch(/^\d+\.\d+\.\d+/);
    expect(Date.parse(loaded.updatedAt)).toBeGreaterThanOrEqual(Date.parse(loaded.createdAt));

    // Continue: the loaded history is what the next run sends, and the new lines go to the same file.
    const opened = await openSession(store, { cwd: home.cwd, continue: true, env: {} });
    expect(opened.recorder.sessionId).toBe(recorder.sessionId);
    const next = new FakeModel(["Again: found."]);
    const second = await new Agent(next, registryWith()).run("Once more", { history: opened.history, onEvent: opened.recorder.listen });
    expect(next.requests[0]?.messages).toEqual([...result.messages, { role: "user", content: "Once more" }]);
    const reloaded = await store.load(recorder.sessionId);
    expect(reloaded.messages).toEqual(second.messages);
    expect(reloaded).toMatchObject({ prompts: 2, turns: 3, firstPrompt: "Look up a and b" });
    // Only the new messages were appended: no line is written twice.
    expect(fileLines(path).filter((line) => line.type === "message")).toHaveLength(second.messages.length);
  });

  it("records only the top-level conversation; child runs' tokens count in the usage", async () => {
    const child = new Agent(new FakeModel([withUsage(reply("child answer"), { inputTokens: 100, outputTokens: 50 })]), new ToolRegistry());
    const registry = new ToolRegistry().add({
      ...lookup,
      execute: async (_args, context) => (await child.run("sub-task", { parent: context })).final,
    });
    const model = new FakeModel([
      withUsage(reply("", toolCall("lookup", { word: "x" }, "c1")), { inputTokens: 1, outputTokens: 1 }),
      withUsage(reply("done"), { inputTokens: 2, outputTokens: 2 }),
    ]);
    const recorder = new SessionRecorder({ store, cwd: home.cwd, env: {} });
    const result = await new Agent(model, registry).run("Delegate", { onEvent: recorder.listen });
    const loaded = await store.load(recorder.sessionId);
    expect(loaded.messages).toEqual(result.messages);
    expect(loaded.messages.some((message) => message.content === "sub-task")).toBe(false);
    expect(loaded.usage).toEqual({ inputTokens: 103, outputTokens: 53 });
    expect(loaded.usage).toEqual(result.usage);
    expect(loaded.turns).toBe(2);
  });

  it("a CodingAgent run is recorded through onEvent, with its permission mode", async () => {
    const { mkdirSync } = await import("node:fs");
    mkdirSync(home.cwd, { recursive: true });
    writeFileSync(`${home.cwd}/notes.txt`, "hello\n");
    const model = new FakeModel([reply("", toolCall("Read", { file_path: "notes.txt" }, "r1")), "It says hello."]);
    const agent = await CodingAgent.create(model, { workspace: home.cwd, settingsFiles: [], home: home.directory });
    const { recorder } = await openSession(store, { cwd: home.cwd, permissionMode: () => agent.permissions.mode, env: {} });
    const result = await agent.run("What do the notes say?", { onEvent: recorder.listen });
    agent.permissions.mode = "plan";
    recorder.recordPermissionMode(agent.permissions.mode);
    const loaded = await store.load(recorder.sessionId);
    expect(loaded.messages).toEqual(result.messages);
    expect(loaded.permissionMode).toBe("plan");
    expect(fileLines(store.sessionPath(home.cwd, recorder.sessionId)).filter((line) => line.type === "permission-mode")).toEqual([
      expect.objectContaining({ mode: "default" }),
      expect.objectContaining({ mode: "plan" }),
    ]);
  });
});

describe("reading a session file", () => {
  it("skips a torn last line and reports it; the next append starts on a line of its own", async () => {
    const recorder = new SessionRecorder({ store, cwd: home.cwd, env: {} });
    const first = await new Agent(new FakeModel(["one"]), new ToolRegistry()).run("first", { onEvent: recorder.listen });
    const path = store.sessionPath(home.cwd, recorder.sessionId);
    const linesBefore = fileLines(path).length;
    appendFileSync(path, '{"type":"message","message":{"role":"assistant","content":"half a li');

    const torn = await store.load(recorder.sessionId);
    expect(torn.messages).toEqual(first.messages);
    expect(torn.problems).toEqual([{ line: linesBefore + 1, reason: expect.stringMatching(/incomplete/) }]);
    const [summary] = await store.list(home.cwd);
    expect(summary).toMatchObject({ turns: torn.turns, prompts: torn.prompts });

    // Resuming appends after it: the torn fragment stays a (skipped) line of its own, nothing else is lost.
    const opened = await openSession(store, { resume: recorder.sessionId, env: {} });
    const second = await new Agent(new FakeModel(["two"]), new ToolRegistry()).run("second", {
      history: opened.history,
      onEvent: opened.recorder.listen,
    });
    const resumed = await store.load(recorder.sessionId);
    expect(resumed.messages).toEqual(second.messages);
    expect(resumed.problems).toEqual([{ line: linesBefore + 1, reason: expect.stringMatching(/not JSON/) }]);
  });

  it("a last line that is complete but lost its newline is read, and the next line does not stick to it", async () => {
    const recorder = new SessionRecorder({ store, cwd: home.cwd, env: {} });
    await new Agent(new FakeModel(["one"]), new ToolRegistry()).run("first", { onEvent: recorder.listen });
    const path = store.sessionPath(home.cwd, recorder.sessionId);
    writeFileSync(path, readFileSync(path, "utf8").replace(/\n$/, ""));
    const loaded = await store.load(recorder.sessionId);
    expect(loaded.problems).toEqual([]);
    expect(loaded.status).toBe("completed");
    const opened = await openSession(store, { resume: recorder.sessionId, env: {} });
    await new Agent(new FakeModel(["two"]), new ToolRegistry()).run("second", { history: opened.history, onEvent: opened.recorder.listen });
    expect((await store.load(recorder.sessionId)).problems).toEqual([]);
  });

  it("refuses a file that is not a session, a newer format version, a bad id and a missing session", async () => {
    expect(() => readSession("hello\n", "x.jsonl")).toThrow(/x\.jsonl is not a minagent session/);
    expect(() => readSession(`${JSON.stringify({ type: "session", version: 2, sessionId: "s", cwd: "/", createdAt: "" })}\n`, "y")).toThrow(
      /version 2; this minagent reads version 1/,
    );
    await expect(store.load("../../etc/passwd")).rejects.toThrow(UsageError);
    await expect(store.load("no-such-session")).rejects.toThrow(/There is no session "no-such-session"/);
    expect(() => store.append("unknown", [{ type: "run-end", status: "completed", at: "" }])).toThrow(/no session "unknown"/);
    // A new session never takes over an existing file.
    const header = { type: "session" as const, version: 1, sessionId: "same", cwd: home.cwd, createdAt: new Date().toISOString() };
    store.append("same", [header]);
    expect(() => store.append("same", [header])).toThrow(/"same" already exists/);
    expect(() => new JsonLinesSessionStore({ directory: home.directory }).append("same", [header])).toThrow(/"same" already exists/);
    expect(() => store.append("same", [{ ...header, cwd: `${home.cwd}/elsewhere` }])).toThrow(/"same" already exists/);
  });
});

describe("tool results that finish out of order", () => {
  it("are written as they finish and loaded in call order; a turn cut short keeps the results it got", async () => {
    const delays: Record<string, number> = { a: 40, b: 20, c: 0 };
    const registry = registryWith(async ({ word }) => {
      await sleep(delays[String(word)] ?? 0);
      return `meaning of ${String(word)}`;
    });
    const model = new FakeModel([
      reply(
        "three at once",
        toolCall("lookup", { word: "a" }, "ca"),
        toolCall("lookup", { word: "b" }, "cb"),
        toolCall("lookup", { word: "c" }, "cc"),
      ),
      "done",
    ]);
    const recorder = new SessionRecorder({ store, cwd: home.cwd, env: {} });
    const result = await new Agent(model, registry).run("go", { onEvent: recorder.listen });
    const path = store.sessionPath(home.cwd, recorder.sessionId);
    const written = fileLines(path)
      .filter((line) => line.type === "message")
      .map((line) => (line.message as Message).toolCallId)
      .filter((id) => id !== undefined);
    expect(written).toEqual(["cc", "cb", "ca"]);
    const loaded = await store.load(recorder.sessionId);
    expect(loaded.messages).toEqual(result.messages);
    expect(loaded.messages.filter((message) => message.role === "tool").map((message) => message.toolCallId)).toEqual(["ca", "cb", "cc"]);

    // The process died after two results: they load in call order, and the engine answers the third as interrupted.
    const text = readFileSync(path, "utf8").split("\n");
    const cut = text.findIndex((line) => line.includes('"toolCallId":"cb"')) + 1;
    const partial = readSession(`${text.slice(0, cut).join("\n")}\n`, path);
    expect(partial.messages.slice(-2).map((message) => message.toolCallId)).toEqual(["cb", "cc"]);
    expect(partial.status).toBe("unfinished");
    const resumedModel = new FakeModel(["ok"]);
    await new Agent(resumedModel, registry).run("go on", { history: partial.messages });
    const sent = resumedModel.requests[0]?.messages ?? [];
    assertAnswered(sent);
    expect(sent.filter((message) => message.role === "tool").map((message) => [message.toolCallId, message.isError ?? false])).toEqual([
      ["cb", false],
      ["cc", false],
      ["ca", true],
    ]);
  });
});

describe("compaction", () => {
  it("a history replaced by prepareTurn is one compaction line; load gives the conversation as the model saw it last", async () => {
    const model = new FakeModel([
      reply("first", toolCall("lookup", { word: "a" }, "c1")),
      reply("second", toolCall("lookup", { word: "b" }, "c2")),
      "third",
    ]);
    const agent = new Agent(model, registryWith(), {
      system: "sys",
      prepareTurn: ({ turn, messages }) => {
        // Before the third call: keep the system prompt, replace the rest with a summary and the last turn.
        if (turn === 2)
          return { messages: [messages[0] as Message, { role: "user", content: "Summary: looked up a." }, ...messages.slice(-2)] };
        return undefined;
      },
    });
    const recorder = new SessionRecorder({ store, cwd: home.cwd, env: {} });
    const result = await agent.run("look up a then b", { onEvent: recorder.listen });
    const loaded = await store.load(recorder.sessionId);
    expect(loaded.messages).toEqual(result.messages);
    expect(model.requests[2]?.messages).toEqual(loaded.messages.slice(0, -1));
    expect(loaded.compactions).toBe(1);
    expect(loaded.firstPrompt).toBe("look up a then b");
    const compaction = fileLines(store.sessionPath(home.cwd, recorder.sessionId)).find((line) => line.type === "compaction");
    expect(compaction).toMatchObject({ reason: "prepare-turn", keep: 1 });
    expect((compaction?.messages as Message[] | undefined)?.map((message) => message.content)).toEqual([
      "Summary: looked up a.",
      "second",
      "meaning of b",
    ]);

    // Going on from the compacted session sends the compacted history.
    const opened = await openSession(store, { resume: recorder.sessionId, env: {} });
    const next = new FakeModel(["fourth"]);
    await new Agent(next, registryWith()).run("more", { history: opened.history, onEvent: opened.recorder.listen });
    expect(next.requests[0]?.messages).toEqual([...result.messages, { role: "user", content: "more" }]);
    expect((await store.load(recorder.sessionId)).messages).toEqual([
      ...result.messages,
      { role: "user", content: "more" },
      { role: "assistant", content: "fourth" },
    ]);
  });

  it("a run given another history than the recorded one records the replacement", async () => {
    const recorder = new SessionRecorder({ store, cwd: home.cwd, env: {} });
    const first = await new Agent(new FakeModel(["one"]), new ToolRegistry(), { system: "sys" }).run("first", { onEvent: recorder.listen });
    const edited = [first.messages[0] as Message, { role: "user" as const, content: "first, reworded" }];
    const second = await new Agent(new FakeModel(["two"]), new ToolRegistry()).run("second", { history: edited, onEvent: recorder.listen });
    const loaded = await store.load(recorder.sessionId);
    expect(loaded.messages).toEqual(second.messages);
    expect(fileLines(store.sessionPath(home.cwd, recorder.sessionId)).find((line) => line.type === "compaction")).toMatchObject({
      reason: "history",
      keep: 1,
    });
  });
});

describe("fork, continue, list", () => {
  it("a fork is a new session that starts with the old conversation; the old file is untouched", async () => {
    const recorder = new SessionRecorder({ store, cwd: home.cwd, env: {} });
    const first = await new Agent(new FakeModel(["one"]), new ToolRegistry()).run("first", { onEvent: recorder.listen });
    const oldPath = store.sessionPath(home.cwd, recorder.sessionId);
    const before = readFileSync(oldPath);

    const forked = await openSession(store, { resume: recorder.sessionId, fork: true, env: {} });
    expect(forked.recorder.sessionId).not.toBe(recorder.sessionId);
    expect(forked.history).toEqual(first.messages);
    const second = await new Agent(new FakeModel(["two"]), new ToolRegistry()).run("second", {
      history: forked.history,
      onEvent: forked.recorder.listen,
    });
    expect(readFileSync(oldPath).equals(before)).toBe(true);
    const loaded = await store.load(forked.recorder.sessionId);
    expect(loaded.messages).toEqual(second.messages);
    expect(loaded.header.forkedFrom).toEqual({ sessionId: recorder.sessionId });
    expect((await store.list(home.cwd)).map((summary) => [summary.sessionId, summary.forkedFrom])).toEqual([
      [forked.recorder.sessionId, recorder.sessionId],
      [recorder.sessionId, undefined],
    ]);
  });

  it("has(cwd, id) says what list(cwd) would, from the header alone", async () => {
    const recorder = new SessionRecorder({ store, cwd: home.cwd, env: {} });
    await new Agent(new FakeModel(["one"]), new ToolRegistry()).run("first", { onEvent: recorder.listen });
    expect(await store.has(home.cwd, recorder.sessionId)).toBe(true);
    expect(await store.has(home.cwd, "no-such-session")).toBe(false);
    expect(await store.has(home.cwd, "../escape")).toBe(false);
    // Another folder whose name maps to the same project folder (/a-b and /a/b) does not have it.
    expect(await store.has(`${home.cwd}/elsewhere`, recorder.sessionId)).toBe(false);
    const path = store.sessionPath(home.cwd, recorder.sessionId);
    const [header, ...rest] = readFileSync(path, "utf8").split("\n");
    writeFileSync(path, [JSON.stringify({ ...JSON.parse(header as string), cwd: "/some/other/folder" }), ...rest].join("\n"));
    expect(await store.has(home.cwd, recorder.sessionId)).toBe(false);
    expect((await store.list(home.cwd)).map((summary) => summary.sessionId)).not.toContain(recorder.sessionId);
  });

  it("opening a fork writes nothing until the first run; openSession refuses what it cannot do", async () => {
    await expect(openSession(store, { cwd: home.cwd, continue: true })).rejects.toThrow(/no session to continue/);
    await expect(openSession(store, { cwd: home.cwd, fork: true })).rejects.toThrow(/fork needs a session/);
    const fresh = await openSession(store, { cwd: home.cwd, env: {} });
    expect(fresh.history).toBeUndefined();
    expect(await store.list(home.cwd)).toEqual([]);
  });

  it("lists a folder's sessions most recently updated first, with first prompt and counts; other folders' are not listed", async () => {
    let clock = Date.parse("2026-01-01T00:00:00Z");
    const now = () => {
      clock += 1_000;
      return new Date(clock);
    };
    const run = async (recorder: SessionRecorder, prompt: string, history?: readonly Message[]) =>
      new Agent(new FakeModel([reply("", toolCall("lookup", { word: prompt }, `c-${prompt}`)), `done ${prompt}`]), registryWith()).run(
        prompt,
        {
          history,
          onEvent: recorder.listen,
        },
      );
    const a = new SessionRecorder({ store, cwd: home.cwd, now, env: {} });
    const first = await run(a, "alpha");
    const b = new SessionRecorder({ store, cwd: home.cwd, now, env: {} });
    await run(b, "beta");
    const elsewhere = new SessionRecorder({ store, cwd: `${home.cwd}/sub`, now, env: {} });
    await run(elsewhere, "gamma");

    expect((await store.list(home.cwd)).map((summary) => summary.firstPrompt)).toEqual(["beta", "alpha"]);
    // Going on with the older one makes it the newest, and `continue` picks it.
    const resumed = new SessionRecorder({ store, resume: await store.load(a.sessionId), now, env: {} });
    await run(resumed, "alpha again", first.messages);
    const listed = await store.list(home.cwd);
    expect(listed.map((summary) => [summary.firstPrompt, summary.turns, summary.prompts])).toEqual([
      ["alpha", 4, 2],
      ["beta", 2, 1],
    ]);
    expect(listed[0]).toMatchObject({ sessionId: a.sessionId, cwd: home.cwd, model: { provider: "fake", modelId: "fake-model" } });
    expect(listed[0]?.updatedAt).toBe((await store.load(a.sessionId)).updatedAt);
    expect((await openSession(store, { cwd: home.cwd, continue: true, env: {} })).recorder.sessionId).toBe(a.sessionId);
    expect(await store.remove(b.sessionId)).toBe(true);
    expect(await store.remove(b.sessionId)).toBe(false);
    expect((await store.list(home.cwd)).map((summary) => summary.sessionId)).toEqual([a.sessionId]);
  });

  it("sessions of paths that share a folder name are listed apart", async () => {
    const dashed = `${home.directory}/a-b`;
    const nested = `${home.directory}/a/b`;
    expect(projectFolderName(dashed)).toBe(projectFolderName(nested));
    for (const cwd of [dashed, nested]) {
      const recorder = new SessionRecorder({ store, cwd, env: {} });
      await new Agent(new FakeModel([cwd]), new ToolRegistry()).run(`in ${cwd}`, { onEvent: recorder.listen });
    }
    expect((await store.list(dashed)).map((summary) => summary.firstPrompt)).toEqual([`in ${dashed}`]);
    expect((await store.list(nested)).map((summary) => summary.firstPrompt)).toEqual([`in ${nested}`]);
  });

  it("the data directory is MINAGENT_HOME, else ~/.minagent", () => {
    expect(defaultDataDirectory({ MINAGENT_HOME: "/data/minagent" })).toBe("/data/minagent");
    expect(defaultDataDirectory({})).toMatch(/\.minagent$/);
    vi.stubEnv("MINAGENT_HOME", home.directory);
    try {
      expect(new JsonLinesSessionStore().directory).toBe(home.directory);
    } finally {
      vi.unstubAllEnvs();
    }
    expect(projectFolderName("/home/me/app")).toBe("-home-me-app");
    expect(projectFolderName(`/${"d".repeat(300)}`)).toHaveLength(197);
  });
});

describe("interrupted runs", () => {
  it("pending calls are recorded; interruptedRunResult resumes them with agent.resume", async () => {
    const registry = new ToolRegistry().add({ ...lookup, needsApproval: true, execute: ({ word }) => `meaning of ${String(word)}` });
    const model = new FakeModel([reply("", toolCall("lookup", { word: "a" }, "c1")), "found"]);
    const agent = new Agent(model, registry);
    const recorder = new SessionRecorder({ store, cwd: home.cwd, env: {} });
    const interrupted = await agent.run("look up a", { onEvent: recorder.listen });
    expect(interrupted.status).toBe("interrupted");

    const loaded = await store.load(recorder.sessionId);
    expect(loaded.status).toBe("interrupted");
    expect(loaded.pending).toEqual(interrupted.pending);
    const state = interruptedRunResult(loaded);
    expect(state).toBeDefined();
    const opened = await openSession(store, { resume: recorder.sessionId, env: {} });
    const resumed = await agent.resume(
      state as NonNullable<typeof state>,
      { c1: { behavior: "allow" } },
      { onEvent: opened.recorder.listen },
    );
    expect(resumed.status).toBe("completed");
    const after = await store.load(recorder.sessionId);
    expect(after.messages).toEqual(resumed.messages);
    expect(after).toMatchObject({ status: "completed", pending: [] });
    expect(interruptedRunResult(after)).toBeUndefined();
  });

  it("a run that fails is recorded as failed, with its error's message", async () => {
    const recorder = new SessionRecorder({ store, cwd: home.cwd, env: {} });
    const model = new FakeModel([]);
    await expect(new Agent(model, new ToolRegistry()).run("hi", { onEvent: recorder.listen })).rejects.toThrow(/ran out/);
    const loaded = await store.load(recorder.sessionId);
    expect(loaded.status).toBe("failed");
    expect(fileLines(store.sessionPath(home.cwd, recorder.sessionId)).at(-1)).toMatchObject({
      type: "run-end",
      error: expect.stringMatching(/script ran out/),
    });
  });

  it("a failed write stops recording and is reported; the run goes on", async () => {
    const errors: unknown[] = [];
    const failing: SessionStore = {
      append: () => {
        throw new Error("disk full");
      },
      load: (id) => store.load(id),
      list: (cwd) => store.list(cwd),
      remove: (id) => store.remove(id),
    };
    const recorder = new SessionRecorder({ store: failing, cwd: home.cwd, env: {}, onError: (error) => errors.push(error) });
    const result = await new Agent(new FakeModel(["fine"]), new ToolRegistry()).run("hi", { onEvent: recorder.listen });
    expect(result.final).toBe("fine");
    expect(errors).toHaveLength(1);
    expect(recorder.error).toBe(errors[0]);
  });
});

describe("secrets", () => {
  it("never reach the session file: prompts, tool results, arguments, reasoning and environment values are scrubbed", async () => {
    const anthropicKey = "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789";
    const githubToken = "ghp_0123456789abcdefghijABCDEFGHIJ012345";
    const awsSecret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";
    const envOnly = "tq83-zx-17-pq-0091";
    const password = "correct-horse-battery-staple";
    const bearer = "eyJhbGciOiJIUzI1NiJ9.payload.signature123";
    const registry = new ToolRegistry().add({
      name: "Bash",
      description: "Runs a command",
      parameters: { type: "object", properties: { command: { type: "string" }, password: { type: "string" } } },
      execute: () => `.env:\nGITHUB_TOKEN=${githubToken}\naws_secret_access_key = ${awsSecret}\nthe deploy code is ${envOnly}\n`,
    });
    const model = new FakeModel([
      {
        message: {
          role: "assistant",
          content: "Reading the env file.",
          toolCalls: [toolCall("Bash", { command: `curl -H "Authorization: Bearer ${bearer}" x`, password }, "b1")],
          reasoning: [{ text: `The key is ${anthropicKey}`, signature: "sig-abc", provider: "anthropic" }],
          providerMetadata: {
            anthropic: { content: [{ type: "thinking", thinking: `The key is ${anthropicKey}`, signature: "sig-abc" }] },
          },
        },
        stopReason: "tool_use",
      },
      "Done.",
    ]);
    const recorder = new SessionRecorder({ store, cwd: home.cwd, env: { DEPLOY_TOKEN: envOnly, HOME: "/home/me", DEBUG: "true" } });
    await new Agent(model, registry).run(`My key is ${anthropicKey}; check the env`, { onEvent: recorder.listen });

    const text = readFileSync(store.sessionPath(home.cwd, recorder.sessionId), "utf8");
    for (const secret of [anthropicKey, githubToken, awsSecret, envOnly, password, bearer]) expect(text).not.toContain(secret);
    expect(text).toContain("[redacted]");
    const loaded = await store.load(recorder.sessionId);
    const assistant = loaded.messages.find((message) => message.toolCalls) as Message;
    // Reasoning that changed loses its signature, and the raw provider copy is dropped: nothing modified is sent as original.
    expect(assistant.reasoning).toEqual([{ text: "The key is [redacted]", provider: "anthropic" }]);
    expect(assistant.providerMetadata).toBeUndefined();
    expect(assistant.toolCalls?.[0]?.arguments).toEqual({ command: 'curl -H "Authorization: [redacted]" x', password: "[redacted]" });
    expect(loaded.firstPrompt).toBe("My key is [redacted]; check the env");
    expect(loaded.messages.find((message) => message.role === "tool")?.content).toContain("the deploy code is [redacted]");
  });

  it("a message without secrets is written as it is, provider metadata included", async () => {
    const message: Message = {
      role: "assistant",
      content: "plain",
      reasoning: [{ text: "thinking", signature: "sig", provider: "anthropic" }],
      providerMetadata: { anthropic: { content: [{ type: "text", text: "plain" }] } },
    };
    const recorder = new SessionRecorder({ store, cwd: home.cwd, env: {} });
    await new Agent(new FakeModel([{ message, stopReason: "end_turn" }]), new ToolRegistry()).run("hi", { onEvent: recorder.listen });
    expect((await store.load(recorder.sessionId)).messages.at(-1)).toEqual(message);
  });
});

describe("models", () => {
  it("the header names the first run's model; a run with another model is a model line", async () => {
    const recorder = new SessionRecorder({ store, cwd: home.cwd, env: {} });
    await new Agent(new FakeModel(["one"]), new ToolRegistry()).run("first", { onEvent: recorder.listen });
    const other = Object.assign(new FakeModel(["two"]), { modelId: "other-model" });
    await new Agent(other, new ToolRegistry()).run("second", { history: recorder.messages, onEvent: recorder.listen });
    const loaded = await store.load(recorder.sessionId);
    expect(loaded.header.model).toEqual({ provider: "fake", modelId: "fake-model" });
    expect(loaded.model).toEqual({ provider: "fake", modelId: "other-model" });
  });
});

describe("SessionRecorder and a sub-agent's run", () => {
  it("writes the child run beside the conversation (child-* lines, secrets hidden), counts its tokens once, and keeps it out of the history", async () => {
    const secret = "sk-child-secret-value-123456";
    const recorder = new SessionRecorder({ store, cwd: home.cwd, env: {}, secrets: [secret] });
    const child = new Agent(
      new FakeModel([
        withUsage(reply("Looking.", toolCall("lookup", { word: "z" }, "k1")), { inputTokens: 7, outputTokens: 2 }),
        withUsage(reply(`Found it: ${secret}`), { inputTokens: 8, outputTokens: 3 }),
      ]),
      registryWith(),
    );
    const delegate = {
      name: "delegate",
      description: "Hands the word to a helper agent",
      parameters: { type: "object", properties: {} },
      execute: async (_args: Record<string, unknown>, context: ToolContext) =>
        (await child.run("Look up z", { parent: context, name: "helper" })).final,
    };
    const parent = new Agent(
      new FakeModel([
        withUsage(reply("", toolCall("delegate", {}, "d1")), { inputTokens: 10, outputTokens: 1 }),
        withUsage(reply("Done."), { inputTokens: 20, outputTokens: 1 }),
      ]),
      new ToolRegistry().add(delegate),
    );
    const result = await parent.run("Find z", { onEvent: recorder.listen });
    const path = store.sessionPath(home.cwd, recorder.sessionId);
    const lines = fileLines(path);
    const childLines = lines.filter((line) => String(line.type).startsWith("child-"));
    expect(childLines.map((line) => line.type)).toEqual([
      "child-run-start",
      "child-message",
      "child-message",
      "child-message",
      "child-run-end",
    ]);
    expect(childLines[0]).toMatchObject({ parentToolCallId: "d1", name: "helper", messages: [{ role: "user", content: "Look up z" }] });
    expect(childLines[2]).toMatchObject({ message: { role: "tool", toolCallId: "k1", content: "meaning of z" } });
    expect(childLines.at(-1)).toMatchObject({ status: "completed" });
    expect(readFileSync(path, "utf8")).not.toContain(secret);
    const loaded = readSession(readFileSync(path, "utf8"), path);
    // The conversation is the parent's alone (the child's answer reaches it as the tool's result, hidden as written);
    // the tokens are everyone's, each counted once.
    expect(loaded.messages).toEqual(JSON.parse(JSON.stringify(result.messages).replaceAll(secret, "[redacted]")));
    expect(loaded.usage).toMatchObject({ inputTokens: 10 + 20 + 7 + 8, outputTokens: 1 + 1 + 2 + 3 });
  });
});

describe("openSession and a session another process writes", () => {
  it("refuses to go on with it before reading it (its lock names the other process), and a fork goes ahead", async () => {
    const { hostname } = await import("node:os");
    const { mkdirSync, writeFileSync } = await import("node:fs");
    const { dirname } = await import("node:path");
    const recorder = new SessionRecorder({ store, cwd: home.cwd, env: {} });
    await new Agent(new FakeModel(["Hi."]), new ToolRegistry()).run("hello", { onEvent: recorder.listen });
    store.unlock(recorder.sessionId);
    // Another live process (this one's parent) holds the session's lock.
    const lock = store.sessionLockPath(recorder.sessionId);
    mkdirSync(dirname(lock), { recursive: true });
    writeFileSync(lock, JSON.stringify({ pid: process.ppid, hostname: hostname(), since: new Date().toISOString(), token: "other" }));
    await expect(openSession(store, { cwd: home.cwd, resume: recorder.sessionId })).rejects.toThrow(
      new RegExp(`being written by process ${process.ppid}`),
    );
    await expect(openSession(store, { cwd: home.cwd, continue: true })).rejects.toThrow(/being written by process/);
    const forked = await openSession(store, { cwd: home.cwd, resume: recorder.sessionId, fork: true });
    expect(forked.history?.map((message) => message.content)).toEqual(["hello", "Hi."]);
  });
});
