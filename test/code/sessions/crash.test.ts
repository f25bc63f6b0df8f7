import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { JsonLinesSessionStore, type LoadedSession, SessionRecorder } from "../../../src/code/sessions/index.js";
import type { Message } from "../../../src/core/types.js";
import { Agent, closeUnansweredCalls, FakeModel, ToolRegistry, UsageError } from "../../../src/index.js";
import { reply, toolCall } from "../../../src/testing/index.js";
import { buildPrivately, type PrivateBuild } from "../helpers/private-build.js";
// @ts-expect-error: a plain JavaScript module shared with the child process
import { bigCall, createScriptedRun } from "./crash/scripted-run.mjs";
import { assertAnswered } from "./helpers.js";

const child = fileURLToPath(new URL("./crash/child.mjs", import.meta.url));
const turns = 60;
const kills = 20;
/** The turn whose first call's result is 16 MB. */
const bigTurn = Number((bigCall as string).split("_")[1]);
/** Children run at once: the test stays well under a minute. */
const parallel = 4;

let work: string;
let build: string;

let privateBuild: PrivateBuild;

/** A private build of the parts the child needs (the repository's dist/ is not touched); its folder is also the data directory. */
beforeAll(() => {
  privateBuild = buildPrivately(["code/sessions/index.ts", "engine.ts", "testing/script.ts"], "sessions-crash");
  work = privateBuild.directory;
  build = privateBuild.build;
});
afterAll(() => privateBuild?.remove());

/**
 * When to kill: once the child has announced so many lines (0: at once), or in the middle of the write of the 16 MB
 * line, once that many bytes of it are in the file (the test watches the file's size, busy, from the turn's start).
 */
type KillPlan = { lines: number } | { bigLineBytes: number };
type Kill = { plan: KillPlan; announced: string[]; finished: boolean };

/** Starts the child and kills it (SIGKILL, by pid) as planned. */
function runAndKill(sessionId: string, plan: KillPlan, path: string): Promise<Kill> {
  const progress = join(work, `${sessionId}.progress`);
  const announced = () => (existsSync(progress) ? readFileSync(progress, "utf8").split("\n").slice(0, -1) : []);
  return new Promise((resolve, reject) => {
    const process_ = spawn(process.execPath, [child], {
      env: {
        PATH: process.env.PATH ?? "",
        MINAGENT_BUILD: build,
        MINAGENT_HOME: work,
        SESSION_CWD: join(work, "project"),
        SESSION_ID: sessionId,
        TURNS: String(turns),
        PROGRESS_FILE: progress,
      },
      stdio: ["ignore", "ignore", "pipe"],
    });
    const pid = process_.pid as number;
    let stderr = "";
    let killed = false;
    const kill = () => {
      if (killed) return;
      killed = true;
      process.kill(pid, "SIGKILL");
    };
    const guard = setTimeout(kill, 30_000); // a child that hangs is killed too, and the checks then fail
    let watch: NodeJS.Timeout | undefined;
    if ("bigLineBytes" in plan) setImmediate(() => killInBigWrite(plan.bigLineBytes, path, announced, kill));
    else if (plan.lines === 0) kill();
    else watch = setInterval(() => announced().length >= plan.lines && kill(), 1);
    process_.stderr.setEncoding("utf8").on("data", (text: string) => {
      stderr += text;
    });
    process_.on("error", reject);
    process_.on("close", (code, signal) => {
      clearTimeout(guard);
      clearInterval(watch);
      const lines = announced();
      if (signal !== "SIGKILL" && code !== 0) reject(new Error(`the child failed (${code}): ${stderr}`));
      else resolve({ plan, announced: lines, finished: lines.includes("finished") });
    });
  });
}

/**
 * Waits busy (a write takes milliseconds) for the big turn to start, then watches the session file grow and kills
 * once `bytes` of the 16 MB line are in it.
 */
function killInBigWrite(bytes: number, path: string, announced: () => string[], kill: () => void): void {
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline && !announced().includes(`assistant ${bigTurn}`));
  const size = () => (existsSync(path) ? statSync(path).size : 0);
  const base = size();
  while (Date.now() < deadline && size() - base < bytes);
  kill();
}

/** What the child's run gives when nothing kills it. */
async function expectedConversation(): Promise<Message[]> {
  const { agent, prompt } = createScriptedRun({ Agent, FakeModel, ToolRegistry, reply, toolCall }, turns);
  return (await agent.run(prompt)).messages;
}

/** Messages as short strings (role, call id, a hash of the rest), so that a failure shows a readable difference. */
function brief(messages: readonly Message[]): string[] {
  return messages.map((message) => {
    const hash = createHash("sha256").update(JSON.stringify(message)).digest("hex").slice(0, 12);
    return `${message.role}${message.toolCallId ? ` ${message.toolCallId}` : ""}${message.isError ? " (error)" : ""} ${hash}`;
  });
}

/**
 * The loaded conversation is the expected one up to its last assistant message, then some of that turn's results
 * (those that were written), in call order, and nothing else.
 */
function checkPrefix(loaded: readonly Message[], expected: readonly Message[]): void {
  const last = loaded.findLastIndex((message) => message.role === "assistant");
  expect(brief(loaded.slice(0, last + 1))).toEqual(brief(expected.slice(0, last + 1 || loaded.length)));
  if (last === -1) return;
  const turnEnd = expected.findIndex((message, index) => index > last && message.role !== "tool");
  const results = brief(expected.slice(last + 1, turnEnd === -1 ? expected.length : turnEnd));
  let from = 0;
  for (const message of brief(loaded.slice(last + 1))) {
    const at = results.indexOf(message, from);
    expect(at, `result ${message} out of order or unknown`).toBeGreaterThanOrEqual(0);
    from = at + 1;
  }
}

/** Every announced message (written before it was announced) is in the loaded session. */
function checkNothingLost(loaded: readonly Message[], announced: readonly string[]): void {
  const assistants = loaded.filter((message) => message.role === "assistant").length;
  const results = new Set(loaded.filter((message) => message.role === "tool").map((message) => message.toolCallId));
  for (const line of announced) {
    const [kind, detail] = line.split(" ");
    if (kind === "user") expect(loaded[1]).toEqual({ role: "user", content: "Run the long task." });
    if (kind === "assistant") expect(assistants).toBeGreaterThan(Number(detail));
    if (kind === "tool") expect(results.has(detail)).toBe(true);
  }
}

/** Nothing doubled: one loaded message per complete message line of the file, each result once. */
function checkNothingDoubled(loaded: LoadedSession, path: string): void {
  const text = readFileSync(path, "utf8");
  const complete = text.slice(0, text.lastIndexOf("\n") + 1).split("\n");
  const messageLines = complete.filter((line) => line.startsWith('{"type":"message"')).length;
  expect(loaded.messages).toHaveLength(messageLines);
  const ids = loaded.messages.filter((message) => message.role === "tool").map((message) => message.toolCallId);
  expect(new Set(ids).size).toBe(ids.length);
}

describe("a session survives SIGKILL at any moment", () => {
  it(`${kills} kills at different points: nothing written is lost or doubled, and the session resumes into a valid conversation`, async () => {
    const expected = await expectedConversation();
    // Announced lines: the prompt, per turn an assistant message and three results, the final answer.
    const total = 2 + turns * 4;
    // Most kills at points spread over the run, four at once; four aimed inside the write of the 16 MB line, one
    // at a time (the test waits for them busy), to cut a line in two.
    // (The turn's two other results, under 100 KB, are written before it: 200 KB of growth means the big line.)
    const aimed = [200_000, 500_000, 1_000_000, 2_000_000].map((bigLineBytes) => ({ bigLineBytes }));
    const spread = kills - aimed.length;
    const plans: KillPlan[] = Array.from({ length: spread }, (_, index) => ({
      lines: index === 0 ? 0 : Math.round((index * total) / spread) + (index % 3),
    }));
    const batches = [
      ...Array.from({ length: Math.ceil(spread / parallel) }, (_, index) => plans.slice(index * parallel, (index + 1) * parallel)),
      ...aimed.map((plan) => [plan]),
    ];
    const figures = { noFile: 0, tornLastLine: 0, partialTurns: 0, messagesAtKill: [] as number[] };
    let count = 0;
    for (const plansOfBatch of batches) {
      const batch = plansOfBatch.map((plan) => {
        const sessionId = `crash-${count++}`;
        const path = new JsonLinesSessionStore({ directory: work }).sessionPath(join(work, "project"), sessionId);
        return runAndKill(sessionId, plan, path).then((kill) => ({ kill, sessionId }));
      });
      for (const { kill, sessionId } of await Promise.all(batch)) {
        expect(kill.finished, `the kill (${JSON.stringify(kill.plan)}) came after the run finished`).toBe(false);
        const store = new JsonLinesSessionStore({ directory: work });
        const path = store.sessionPath(join(work, "project"), sessionId);
        let loaded: LoadedSession;
        try {
          loaded = await store.load(sessionId);
        } catch (error) {
          // Killed before its first write finished (no file, or a torn header): then nothing was announced.
          expect(error).toBeInstanceOf(UsageError);
          expect(kill.announced).toEqual([]);
          figures.noFile++;
          continue;
        }
        // At most one problem: the last line, torn by the kill.
        expect(loaded.problems.length).toBeLessThanOrEqual(1);
        if (loaded.problems.length === 1) {
          figures.tornLastLine++;
          expect(loaded.problems[0]?.reason).toMatch(/incomplete/);
          expect(readFileSync(path, "utf8").endsWith("\n")).toBe(false);
        }
        checkPrefix(loaded.messages, expected);
        checkNothingLost(loaded.messages, kill.announced);
        checkNothingDoubled(loaded, path);
        figures.messagesAtKill.push(loaded.messages.length);
        if (loaded.messages.at(-1)?.role === "tool" && closeUnansweredCalls(loaded.messages).length > loaded.messages.length)
          figures.partialTurns++;

        // Resuming: the engine answers the calls the kill cut short, and the providers' rules hold.
        assertAnswered(closeUnansweredCalls(loaded.messages));
        const model = new FakeModel(["Resumed."]);
        const recorder = new SessionRecorder({ store, resume: loaded, env: {} });
        await new Agent(model, new ToolRegistry()).run("Go on.", { history: loaded.messages, onEvent: recorder.listen });
        const sent = model.requests[0]?.messages ?? [];
        assertAnswered(sent);
        expect(brief(sent)).toEqual(brief([...closeUnansweredCalls(loaded.messages), { role: "user", content: "Go on." }]));
        // And the resumed session loads as what was sent plus the answer; a torn line stays skipped.
        const after = await store.load(sessionId);
        expect(brief(after.messages)).toEqual(brief([...sent, { role: "assistant", content: "Resumed." }]));
        expect(after.problems.map((problem) => problem.line)).toEqual(loaded.problems.map((problem) => problem.line));
        await store.remove(sessionId);
      }
    }
    console.log(
      `sessions crash test: ${kills} SIGKILLs; no file yet ${figures.noFile}, torn last line ${figures.tornLastLine}, ` +
        `cut mid-turn ${figures.partialTurns}; messages on disk at the kills: ${figures.messagesAtKill.join(", ")} (of ${expected.length})`,
    );
    expect(figures.messagesAtKill.length + figures.noFile).toBe(kills);
    // Kills that land before the file exists check nothing: most must find a conversation on disk to resume.
    expect(figures.messagesAtKill.length).toBeGreaterThan(kills / 2);
  }, 120_000);
});
