// Durable runs survive SIGKILL: a worker process running three 20-step scripted runs is killed again and again —
// during a model call, in the middle of a batch of parallel tool calls, between steps, and at arbitrary moments —
// and restarted with the same executor id (DBOS recovers its runs on launch). Every run completes with the answer
// and conversation of an uninterrupted run, and each model call and tool call ran exactly once, except a call that
// was running when its worker died: that one ran once more (docs/durable.md says so), with the same idempotency key.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { enqueueDurableRun } from "../../src/dbos/index.js";
import * as minagent from "../../src/index.js";
import { type Harness, startHarness, type Worker } from "./fixtures/harness.mjs";
import { createScriptedAgent } from "./fixtures/scripted-agent.mjs";

const runs = [
  { key: "a", seed: 1 },
  { key: "b", seed: 2 },
  { key: "c", seed: 3 },
];
const workerEnv = { EXECUTOR_ID: "crash-worker", QUEUE_NAME: "crash", MODEL_DELAY_MS: "15", TOOL_DELAY_MS: "15" };

/** Each phase: a worker that hangs at these points (one per run), killed once all of them hang. */
const hangPhases = [
  ["a:model:2", "b:tool:b_t3_1", "c:between:4"], // a model call; a batch of 3 with one call still running; between steps
  ["a:tool:a_t6_2", "b:model:7", "c:tool:c_t9_0"],
  ["a:between:11", "b:tool:b_t12_0", "c:model:13"],
];
/** Then workers killed after these many milliseconds of serving, wherever the runs are. */
const timedKills = [120, 350];

let harness: Harness;
beforeAll(async () => {
  harness = await startHarness("crash");
}, 120_000);
afterAll(async () => {
  await harness?.stop();
}, 60_000);

type Killed = { pid: number; recorded: Map<string, { calls: Set<string>; modelTurns: number }> };

/** Kills the worker and notes what each run had recorded at that moment (the worker is gone: nothing changes). */
async function killAndSnapshot(worker: Worker, kills: Killed[]): Promise<void> {
  await worker.kill();
  const recorded = new Map<string, { calls: Set<string>; modelTurns: number }>();
  for (const { key } of runs) recorded.set(key, await harness.recordedSteps(`crash-${key}`));
  kills.push({ pid: worker.pid, recorded });
}

describe("durable runs killed with SIGKILL", () => {
  it("complete after restarts, each completed step executed exactly once, with an uninterrupted run's answer", async () => {
    const handles = await Promise.all(
      runs.map(({ key, seed }) =>
        enqueueDurableRun(harness.client, { agentName: "scripted", queueName: "crash", workflowId: `crash-${key}` }, `task ${key} ${seed}`),
      ),
    );
    const kills: Killed[] = [];
    for (const points of hangPhases) {
      const worker = await harness.startWorker({ ...workerEnv, HANG: points.join(",") });
      await harness.waitFor(`hangs at ${points.join(", ")}`, async () => {
        const rows = await harness.query("SELECT point FROM hangs WHERE pid = $1", [worker.pid]);
        return rows.length === points.length;
      });
      // Mid-batch means the batch's other calls are done and checkpointed while one still runs.
      for (const point of points.filter((point) => point.includes(":tool:"))) {
        const [key, , call] = point.split(":") as [string, string, string];
        const siblings = [0, 1, 2].map((index) => call.replace(/_\d+$/, `_${index}`)).filter((sibling) => sibling !== call);
        await harness.waitFor(`the calls beside ${call} checkpointed`, async () => {
          const { calls } = await harness.recordedSteps(`crash-${key}`);
          return siblings.every((sibling) => calls.has(sibling));
        });
      }
      await killAndSnapshot(worker, kills);
    }
    for (const delayMs of timedKills) {
      const worker = await harness.startWorker(workerEnv);
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      await killAndSnapshot(worker, kills);
    }
    const last = await harness.startWorker(workerEnv);
    const results = await Promise.all(handles.map((handle) => handle.getResult()));

    // What an uninterrupted run gives, in memory, with no DBOS at all.
    for (const [index, { key, seed }] of runs.entries()) {
      const reference = await createScriptedAgent(minagent).run(`task ${key} ${seed}`);
      const result = results[index] as minagent.RunResult;
      expect(result.status).toBe("completed");
      expect(result.final).toBe(reference.final);
      expect(result.final).toMatch(new RegExp(`^answer ${key}: \\d+$`));
      expect(result.messages).toEqual(reference.messages);
      expect(result.usage).toEqual(reference.usage);
      expect(result.turns).toBe(20);
      expect(result.runId).toBe(`run_crash-${key}`);
      // One checkpoint per model call and per tool call: 20 model calls and 33 tool calls, none twice.
      expect((await harness.recordedSteps(`crash-${key}`)).count).toBe(20 + 33);
    }

    // Exactly once, except for what was running at a kill: executions = 1 + the workers that began it and died
    // before it was checkpointed.
    const toolRows = await harness.query<{ key: string; call_id: string; idempotency_key: string; pid: number }>(
      "SELECT key, call_id, idempotency_key, pid FROM tool_executions",
    );
    const modelRows = await harness.query<{ key: string; turn: number; pid: number }>("SELECT key, turn, pid FROM model_calls");
    let rerunTools = 0;
    let rerunModelCalls = 0;
    for (const { key } of runs) {
      const callIds = new Set(toolRows.filter((row) => row.key === key).map((row) => row.call_id));
      expect(callIds.size).toBe(33);
      for (const callId of callIds) {
        const executions = toolRows.filter((row) => row.call_id === callId);
        const diedRunning = kills.filter(
          (kill) => executions.some((row) => row.pid === kill.pid) && !kill.recorded.get(key)?.calls.has(callId),
        ).length;
        expect({ callId, executions: executions.length }).toEqual({ callId, executions: 1 + diedRunning });
        expect(new Set(executions.map((row) => row.idempotency_key))).toEqual(new Set([`run_crash-${key}/${callId}`]));
        rerunTools += diedRunning;
      }
      for (let turn = 0; turn < 20; turn++) {
        const executions = modelRows.filter((row) => row.key === key && row.turn === turn);
        const diedRunning = kills.filter(
          (kill) => executions.some((row) => row.pid === kill.pid) && (kill.recorded.get(key)?.modelTurns ?? 0) <= turn,
        ).length;
        expect({ key, turn, executions: executions.length }).toEqual({ key, turn, executions: 1 + diedRunning });
        rerunModelCalls += diedRunning;
      }
    }
    // The hang phases guarantee these: three model calls and three tool calls were running at a kill.
    expect(rerunModelCalls).toBeGreaterThanOrEqual(3);
    expect(rerunTools).toBeGreaterThanOrEqual(3);
    expect(kills).toHaveLength(hangPhases.length + timedKills.length);
    // The workers' logs show the database URL without its password.
    expect(last.output).toContain("minagent:***@");
    expect(last.output).not.toContain(harness.password);
  }, 180_000);
});
