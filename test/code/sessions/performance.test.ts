import { statSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { JsonLinesSessionStore, SessionRecorder } from "../../../src/code/sessions/index.js";
import type { AgentEvent } from "../../../src/core/events.js";
import type { RunResult } from "../../../src/core/types.js";
import { Agent, FakeModel, ToolRegistry } from "../../../src/index.js";
import { reply, toolCall, withUsage } from "../../../src/testing/index.js";
import { makeTemporaryHome } from "./helpers.js";

// A session of 10,003 messages: the prompt, 2,500 turns of an assistant message and three results (200 to
// 2,000 characters, like file excerpts), and the answer, written by a real run.
const turns = 2_500;
let home: ReturnType<typeof makeTemporaryHome>;
let store: JsonLinesSessionStore;
let recorder: SessionRecorder;
let result: RunResult;
let listenerMs = 0;
let linesWritten = 0;

beforeAll(async () => {
  home = makeTemporaryHome();
  store = new JsonLinesSessionStore({ directory: home.directory });
  const script = Array.from({ length: turns }, (_, turn) =>
    withUsage(
      reply(
        `Turn ${turn}: reading three files to find where the configuration is loaded.`,
        ...[0, 1, 2].map((index) => toolCall("Read", { file_path: `src/module-${turn}-${index}.ts` }, `call_${turn}_${index}`)),
      ),
      { inputTokens: 1_000 + turn, outputTokens: 50 },
    ),
  );
  const registry = new ToolRegistry().add({
    name: "Read",
    description: "Reads a file",
    parameters: { type: "object", properties: { file_path: { type: "string" } } },
    execute: ({ file_path }) =>
      `${String(file_path)}:\n${"export const value = compute(input, options); // a line of code\n".repeat(3 + ((String(file_path).length * 7) % 30))}`,
  });
  const agent = new Agent(new FakeModel([...script, "Found it."]), registry, { system: "You are a coding agent.", maxSteps: turns + 1 });
  recorder = new SessionRecorder({ store, cwd: home.cwd, env: {} });
  const countLines = (event: AgentEvent) =>
    event.type === "model-call-end" || event.type === "tool-call-end" || event.type === "run-end" ? 1 : event.type === "run-start" ? 3 : 0;
  result = await agent.run("Where is the configuration loaded?", {
    onEvent: (event) => {
      const start = performance.now();
      recorder.listen(event);
      listenerMs += performance.now() - start;
      linesWritten += countLines(event);
    },
  });
}, 60_000);
afterAll(() => home?.remove());

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

describe("session speed", () => {
  it("appending costs little per line (scrubbing, formatting and a synchronous write)", () => {
    expect(recorder.error).toBeUndefined();
    const perLineUs = (listenerMs * 1_000) / linesWritten;
    const bytes = statSync(store.sessionPath(home.cwd, recorder.sessionId)).size;
    console.log(
      `sessions: recorded ${linesWritten} lines (${(bytes / 1e6).toFixed(1)} MB) in ${listenerMs.toFixed(0)} ms of listener time: ${perLineUs.toFixed(1)} µs per line`,
    );
    expect(perLineUs).toBeLessThan(1_000);
  });

  it("loads a session of 10,000 messages in well under 200 ms, and lists it", async () => {
    const times: number[] = [];
    let loaded = await store.load(recorder.sessionId);
    for (let attempt = 0; attempt < 5; attempt++) {
      const start = performance.now();
      loaded = await store.load(recorder.sessionId);
      times.push(performance.now() - start);
    }
    expect(loaded.messages).toHaveLength(result.messages.length);
    expect(loaded.messages.length).toBeGreaterThanOrEqual(10_000);
    expect(loaded.messages).toEqual(result.messages);
    expect(loaded.turns).toBe(turns + 1);
    const listTimes: number[] = [];
    for (let attempt = 0; attempt < 5; attempt++) {
      const start = performance.now();
      const [summary] = await store.list(home.cwd);
      listTimes.push(performance.now() - start);
      expect(summary?.turns).toBe(turns + 1);
    }
    console.log(
      `sessions: load of ${loaded.messages.length} messages, median of 5: ${median(times).toFixed(1)} ms, best ${Math.min(...times).toFixed(1)} ms (${times.map((time) => time.toFixed(0)).join(", ")}); list: ${median(listTimes).toFixed(1)} ms`,
    );
    // The best of five: what loading costs, without the other test files running beside it on a busy machine.
    expect(Math.min(...times)).toBeLessThan(200);
  });
});
