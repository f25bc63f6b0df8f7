// Durable runs across processes: two workers serve one queue and one is killed mid-run (its runs are finished by
// the other), and a run waiting for approval gets its decision from a second process after the first has exited.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { enqueueDurableRun, readPendingApproval, recoverWorkflowsOf } from "../../src/dbos/index.js";
import * as minagent from "../../src/index.js";
import { type Harness, startHarness } from "./fixtures/harness.mjs";
import { createScriptedAgent } from "./fixtures/scripted-agent.mjs";

let harness: Harness;
beforeAll(async () => {
  harness = await startHarness("distributed");
}, 120_000);
afterAll(async () => {
  await harness?.stop();
}, 60_000);

type ToolRow = { key: string; call_id: string; idempotency_key: string; pid: number };
type ModelRow = { key: string; turn: number; pid: number };

describe("distributed durable runs", () => {
  it("two workers on one queue: a worker killed mid-run has its runs finished by the other", async () => {
    const runs = ["d", "e", "f", "g"].map((key, index) => ({ key, seed: 4 + index }));
    const common = { QUEUE_NAME: "shared", WORKER_CONCURRENCY: "2", STEPS: "8", MODEL_DELAY_MS: "10", TOOL_DELAY_MS: "10" };
    // Whichever two runs the first worker takes, it hangs in their batch at turn 3 (and serves no more than two).
    const first = await harness.startWorker({
      ...common,
      EXECUTOR_ID: "w1",
      HANG: runs.map(({ key }) => `${key}:tool:${key}_t3_0`).join(","),
    });
    const handles = await Promise.all(
      runs.map(({ key, seed }) =>
        enqueueDurableRun(
          harness.client,
          { agentName: "scripted", queueName: "shared", workflowId: `shared-${key}` },
          `task ${key} ${seed}`,
        ),
      ),
    );
    const hung = await harness.waitFor("two runs hanging on the first worker", async () => {
      const rows = await harness.query<{ point: string }>("SELECT point FROM hangs WHERE pid = $1", [first.pid]);
      return rows.length === 2 ? rows.map((row) => row.point.split(":")[0] as string).sort() : undefined;
    });
    const second = await harness.startWorker({ ...common, EXECUTOR_ID: "w2" });
    await first.kill();
    const strandedIds = hung.map((key) => `shared-${key}`);
    for (const id of strandedIds) expect(await harness.client.getWorkflow(id)).toMatchObject({ status: "PENDING", executorId: "w1" });
    const recordedAtKill = new Map(
      await Promise.all(hung.map(async (key) => [key, await harness.recordedSteps(`shared-${key}`)] as const)),
    );

    // A supervisor that knows w1 is gone hands its runs to the living workers.
    expect((await recoverWorkflowsOf(harness.client, ["w1"])).sort()).toEqual(strandedIds);
    const results = await Promise.all(handles.map((handle) => handle.getResult()));

    const toolRows = await harness.query<ToolRow>("SELECT key, call_id, idempotency_key, pid FROM tool_executions WHERE key = ANY($1)", [
      runs.map(({ key }) => key),
    ]);
    const modelRows = await harness.query<ModelRow>("SELECT key, turn, pid FROM model_calls WHERE key = ANY($1)", [
      runs.map(({ key }) => key),
    ]);
    for (const [index, { key, seed }] of runs.entries()) {
      const reference = await createScriptedAgent(minagent, { steps: 8 }).run(`task ${key} ${seed}`);
      expect(results[index]).toMatchObject({ status: "completed", final: reference.final, messages: reference.messages });
      expect(await harness.client.getWorkflow(`shared-${key}`)).toMatchObject({ status: "SUCCESS", executorId: "w2" });
      const recorded = recordedAtKill.get(key);
      for (const callId of new Set(toolRows.filter((row) => row.key === key).map((row) => row.call_id))) {
        const executions = toolRows.filter((row) => row.call_id === callId);
        // Only a call that was running in w1 when it died ran twice, with one idempotency key.
        const diedRunning = recorded !== undefined && executions.some((row) => row.pid === first.pid) && !recorded.calls.has(callId);
        expect({ callId, executions: executions.length }).toEqual({ callId, executions: diedRunning ? 2 : 1 });
        expect(new Set(executions.map((row) => row.idempotency_key)).size).toBe(1);
      }
      for (let turn = 0; turn < 8; turn++) expect(modelRows.filter((row) => row.key === key && row.turn === turn)).toHaveLength(1);
    }
    // The stranded runs ran their hung call again on w2, and nothing they had finished on w1.
    for (const key of hung) {
      const hungCall = toolRows.filter((row) => row.call_id === `${key}_t3_0`);
      expect(hungCall.map((row) => row.pid).sort()).toEqual([first.pid, second.pid].sort());
    }
    await second.kill();
  }, 120_000);

  it("a run waiting for approval gets its decision from another process after its own process has exited", async () => {
    const env = { QUEUE_NAME: "approvals", EXECUTOR_ID: "approver", STEPS: "5", APPROVE_CALL: "h_t2_0" };
    const worker = await harness.startWorker(env);
    const handle = await enqueueDurableRun(
      harness.client,
      { agentName: "scripted", queueName: "approvals", workflowId: "approval-h" },
      "task h 9",
    );
    const pending = await harness.waitFor("the pending call", () =>
      readPendingApproval(harness.client, "approval-h", { timeoutSeconds: 30, pollingIntervalMs: 100 }),
    );
    expect(pending.map(({ toolCall }) => toolCall.id)).toEqual(["h_t2_0"]);
    await worker.kill();

    const sender = await harness.runScript("./send-approval.mjs", {
      WORKFLOW_ID: "approval-h",
      DECISIONS: JSON.stringify({ h_t2_0: { behavior: "allow" } }),
    });
    expect(sender).toMatchObject({ code: 0 });
    expect(sender.output).toContain("pending: h_t2_0\nsent");

    // The worker comes back (same executor id): DBOS recovers the run, which finds the decision and goes on.
    await harness.startWorker(env);
    const result = await handle.getResult();
    const agent = createScriptedAgent(minagent, { steps: 5, approveCall: "h_t2_0" });
    const interrupted = await agent.run("task h 9");
    const reference = await agent.resume(interrupted, { h_t2_0: { behavior: "allow" } });
    expect(result).toMatchObject({ status: "completed", final: reference.final, messages: reference.messages, turns: 5 });
    expect(result.runId).toBe("run1_approval-h");
    expect(await readPendingApproval(harness.client, "approval-h", 1)).toEqual([]);

    // Nothing ran twice: the process died while the run waited, between steps.
    const tools = await harness.query<{ call_id: string; n: string }>(
      "SELECT call_id, count(*) AS n FROM tool_executions WHERE key = 'h' GROUP BY call_id ORDER BY call_id",
    );
    expect(tools).toEqual(
      ["h_t0_0", "h_t0_1", "h_t0_2", "h_t1_0", "h_t2_0", "h_t3_0", "h_t3_1", "h_t3_2"].map((call_id) => ({ call_id, n: "1" })),
    );
    const models = await harness.query<{ turn: number; n: string }>(
      "SELECT turn, count(*) AS n FROM model_calls WHERE key = 'h' GROUP BY turn ORDER BY turn",
    );
    expect(models).toEqual([0, 1, 2, 3, 4].map((turn) => ({ turn, n: "1" })));
  }, 120_000);
});
