import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { JsonLinesSessionStore, SessionRecorder } from "../../../src/code/sessions/index.js";
import { SessionInUseError } from "../../../src/code/sessions/session-lock.js";
import { Agent, FakeModel, ToolRegistry } from "../../../src/index.js";
import { buildPrivately, type PrivateBuild } from "../helpers/private-build.js";
import { assertAnswered, makeTemporaryHome } from "./helpers.js";

// Two real processes on one session: each runs ./lock/contender.mjs, the CLI's session handling (chooseSession on
// createCodeSessionStore, a recorded run, flush) from a private build of the sources.
const contender = fileURLToPath(new URL("./lock/contender.mjs", import.meta.url));
let privateBuild: PrivateBuild;
let home: ReturnType<typeof makeTemporaryHome>;
let children: ChildProcess[] = [];

beforeAll(() => {
  privateBuild = buildPrivately(
    ["engine.ts", "testing/script.ts", "cli/code/code-session-store.ts", "cli/code/choose-session.ts"],
    "session-lock",
  );
});
afterAll(() => privateBuild?.remove());
beforeEach(() => {
  home = makeTemporaryHome();
});
afterEach(() => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null && child.pid) process.kill(child.pid, "SIGKILL");
  children = [];
  home.remove();
});

type Said = Record<string, string>;
type Contender = {
  pid: number;
  /** Resolves with the first line it says that has `key`. */
  says(key: string): Promise<Said>;
  /** Resolves when it has exited, with everything it said. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; said: Said[]; stderr: string }>;
};

/** Starts a contender with the given settings (RESUME, CONTINUE, FORK, WAIT_FOR, NAME). */
function start(settings: Record<string, string>): Contender {
  const child = spawn(process.execPath, [contender], {
    env: {
      PATH: process.env.PATH ?? "",
      MINAGENT_BUILD: privateBuild.build,
      MINAGENT_HOME: home.directory,
      SESSION_CWD: home.cwd,
      ...settings,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  const said: Said[] = [];
  const waiting: { key: string; resolve: (line: Said) => void }[] = [];
  let buffered = "";
  let stderr = "";
  child.stdout?.setEncoding("utf8").on("data", (text: string) => {
    buffered += text;
    for (let end = buffered.indexOf("\n"); end !== -1; end = buffered.indexOf("\n")) {
      const line = JSON.parse(buffered.slice(0, end)) as Said;
      buffered = buffered.slice(end + 1);
      said.push(line);
      for (const wait of waiting.filter((entry) => entry.key in line)) wait.resolve(line);
    }
  });
  child.stderr?.setEncoding("utf8").on("data", (text: string) => {
    stderr += text;
  });
  const exited = new Promise<Awaited<Contender["exited"]>>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code, signal) => resolve({ code, signal, said, stderr }));
  });
  return {
    pid: child.pid as number,
    says: (key) =>
      new Promise((resolve, reject) => {
        const found = said.find((line) => key in line);
        if (found) return resolve(found);
        waiting.push({ key, resolve });
        void exited.then(({ code, stderr: errors }) => reject(new Error(`the contender exited (${code}) before saying ${key}: ${errors}`)));
      }),
    exited,
  };
}

/** Runs a contender to its end; throws unless it finished. */
async function runToEnd(settings: Record<string, string>): Promise<string> {
  const run = start(settings);
  const outcome = await run.exited;
  if (outcome.code !== 0) throw new Error(`the contender failed (${outcome.code}): ${outcome.stderr} ${JSON.stringify(outcome.said)}`);
  return outcome.said.find((line) => "session" in line)?.session as string;
}

const lockOf = (sessionId: string) => new JsonLinesSessionStore({ directory: home.directory }).sessionLockPath(sessionId);

describe("one process writes a session at a time", () => {
  it("a second process resuming a session another one is writing is refused, naming it; a fork goes on; the file holds one conversation", async () => {
    const id = await runToEnd({ NAME: "first" });
    const release = join(home.directory, "release");
    const holder = start({ RESUME: id, WAIT_FOR: release, NAME: "holder" });
    await holder.says("waiting"); // its prompt and the model's call are written; the call waits

    const second = await start({ CONTINUE: "1", NAME: "second" }).exited;
    expect(second.code).toBe(2);
    const refusal = second.said[0] as Said;
    expect(refusal.name).toBe("SessionInUseError");
    expect(refusal.refused).toContain(`Session ${id} is being written by process ${holder.pid}`);
    expect(refusal.refused).toContain(`minagent code --resume ${id} --fork-session`);

    // In this process too: the store refuses to write or remove it, and still reads and lists it.
    const store = new JsonLinesSessionStore({ directory: home.directory });
    let thrown: unknown;
    try {
      store.lock(id);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(SessionInUseError);
    expect((thrown as SessionInUseError).holder.pid).toBe(holder.pid);
    await expect(store.remove(id)).rejects.toThrow(`process ${holder.pid}`);
    expect((await store.load(id)).messages.at(-1)).toMatchObject({ role: "assistant", content: "holder: waiting first." });
    expect((await store.list(home.cwd)).map((summary) => summary.sessionId)).toContain(id);

    // A fork only reads the session: it goes on in a copy while the holder runs.
    const fork = await runToEnd({ RESUME: id, FORK: "1", NAME: "fork" });
    expect(fork).not.toBe(id);
    expect((await store.load(fork)).header.forkedFrom).toEqual({ sessionId: id });

    writeFileSync(release, "");
    expect((await holder.exited).code).toBe(0);
    expect(existsSync(lockOf(id))).toBe(false); // released at its exit

    const loaded = await store.load(id);
    expect(loaded.problems).toEqual([]);
    assertAnswered(loaded.messages);
    expect(loaded.messages.filter((message) => message.role === "user").map((message) => message.content)).toEqual([
      "first: go on",
      "holder: go on",
    ]);
    expect(loaded.messages.at(-1)).toMatchObject({ role: "assistant", content: "holder is done." });

    // Once the holder has ended, the session is free to go on with.
    await runToEnd({ RESUME: id, NAME: "after" });
    expect((await store.load(id)).messages.at(-1)).toMatchObject({ content: "after is done." });
  }, 60_000);

  it("the lock of a process that was killed is taken over, and released when the taker exits", async () => {
    const id = await runToEnd({ NAME: "first" });
    const crashed = start({ RESUME: id, WAIT_FOR: join(home.directory, "never"), NAME: "crashed" });
    await crashed.says("waiting");
    process.kill(crashed.pid, "SIGKILL");
    expect((await crashed.exited).signal).toBe("SIGKILL");
    // The killed process could not remove its lock: it names a pid that no longer runs.
    expect(JSON.parse(readFileSync(lockOf(id), "utf8"))).toMatchObject({ pid: crashed.pid });

    await runToEnd({ CONTINUE: "1", NAME: "next" });
    expect(existsSync(lockOf(id))).toBe(false);
    const loaded = await new JsonLinesSessionStore({ directory: home.directory }).load(id);
    assertAnswered(loaded.messages); // the call the kill cut short was answered as interrupted, once
    expect(loaded.messages.at(-1)).toMatchObject({ role: "assistant", content: "next is done." });
  }, 60_000);

  it("in one process, an append to a session another process wrote since it was loaded is refused", async () => {
    const store = new JsonLinesSessionStore({ directory: home.directory });
    const recorder = new SessionRecorder({ store, cwd: home.cwd, env: {} });
    await new Agent(new FakeModel(["One."]), new ToolRegistry()).run("First.", { onEvent: recorder.listen });
    store.unlock(recorder.sessionId);
    const stale = await store.load(recorder.sessionId);
    await runToEnd({ RESUME: recorder.sessionId, NAME: "other" });

    const late = new SessionRecorder({ store, resume: stale, env: {}, onError: () => {} });
    await new Agent(new FakeModel(["Two."]), new ToolRegistry()).run("Second.", { history: stale.messages, onEvent: late.listen });
    expect(String(late.error)).toMatch(/changed since it was loaded .*another process wrote to it\. Load it again/);
    const after = await store.load(recorder.sessionId);
    expect(after.messages.at(-1)).toMatchObject({ content: "other is done." });
  }, 60_000);
});
