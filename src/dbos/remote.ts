import { randomUUID } from "node:crypto";
import type { DBOSClient, WorkflowHandle } from "@dbos-inc/dbos-sdk";
import type { RunResult } from "../engine.js";
import type { DurableRunRequest } from "./durable-agent.js";

/** Where a run enqueued from another process goes. */
export type EnqueueDurableRunOptions = {
  /** The durable agent's name (`DurableAgentOptions.name`): workers that registered it run it. */
  agentName: string;
  /** The DBOS queue the workers dequeue from. */
  queueName: string;
  /** The run's workflow id; enqueueing an id that exists returns that run. Default: a new UUID. */
  workflowId?: string | undefined;
  /**
   * The application version that must run it (see docs/durable.md, "Versions"). Default: only workers on the
   * latest registered version dequeue it.
   */
  applicationVersion?: string | undefined;
};

/**
 * Enqueues a durable run from a process that has no agent (a web handler, a script), through a `DBOSClient`: a
 * worker that registered the agent and listens on the queue runs it. `await handle.getResult()` waits for it.
 * @example
 * const client = await DBOSClient.create({ systemDatabaseUrl });
 * const handle = await enqueueDurableRun(client, { agentName: "support", queueName: "agents" }, "Refund order 1234");
 */
export function enqueueDurableRun(
  client: DBOSClient,
  options: EnqueueDurableRunOptions,
  input: string | DurableRunRequest,
): Promise<WorkflowHandle<RunResult>> {
  const request: DurableRunRequest = typeof input === "string" ? { input } : input;
  const workflowId = options.workflowId ?? randomUUID();
  return client.enqueue<(request: DurableRunRequest) => Promise<RunResult>>(
    {
      workflowName: options.agentName,
      queueName: options.queueName,
      workflowID: workflowId,
      ...(options.applicationVersion !== undefined && { appVersion: options.applicationVersion }),
    },
    { ...request, runKey: request.runKey ?? workflowId },
  );
}

/** What can list and resume workflows: `DBOS` itself in a launched process, or a `DBOSClient`. */
export type WorkflowManager = Pick<DBOSClient, "listWorkflows" | "resumeWorkflows">;

/**
 * Hands the unfinished runs of dead workers to the living: every workflow still PENDING on one of `executorIds`
 * (each worker's `executorID` in its DBOS config) goes back to its queue (a run started without one goes to
 * DBOS's internal queue), where any worker of the same application version picks it up and resumes it from its
 * last completed step. Returns their workflow ids.
 *
 * DBOS recovers a process's own runs when a process with the same executor id launches again; use this when
 * the dead worker will not come back (a scaled-down machine). Only for workers known to be dead: a live
 * worker's runs would run twice at once.
 */
export async function recoverWorkflowsOf(manager: WorkflowManager, executorIds: readonly string[]): Promise<string[]> {
  if (executorIds.length === 0) return [];
  const stranded = await manager.listWorkflows({ status: "PENDING", executorId: [...executorIds], loadInput: false, loadOutput: false });
  const byQueue = new Map<string | undefined, string[]>();
  for (const workflow of stranded) {
    const ids = byQueue.get(workflow.queueName) ?? [];
    ids.push(workflow.workflowID);
    byQueue.set(workflow.queueName, ids);
  }
  for (const [queueName, ids] of byQueue) await manager.resumeWorkflows(ids, queueName === undefined ? {} : { queueName });
  return stranded.map((workflow) => workflow.workflowID);
}
