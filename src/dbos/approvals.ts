import type { ApprovalDecisions, PendingToolCall } from "../engine.js";
import { loadDbosSdk } from "./load-dbos-sdk.js";

/** The DBOS message topic that carries decisions to a durable run waiting for approval. */
export const approvalTopic = "minagent.approval";

/**
 * The DBOS event a durable run sets to the calls it waits on (`PendingToolCall[]`) while it waits for a decision,
 * and to `[]` once it has its decisions.
 */
export const pendingApprovalEvent = "minagent.pending";

/** What can send a DBOS message: `DBOS` itself in a launched process, or a `DBOSClient` anywhere else. */
export type MessageSender = {
  send<T>(destinationID: string, message: T, topic?: string, idempotencyKey?: string): Promise<void>;
};

/** How long to wait for an event, and how often a `DBOSClient` looks (it polls: every 10 s by default). */
export type WaitOptions = { timeoutSeconds?: number; pollingIntervalMs?: number };

/** What can read a DBOS event: `DBOS` itself in a launched process, or a `DBOSClient` anywhere else. */
export type EventReader = {
  getEvent<T>(workflowID: string, key: string, options?: number | WaitOptions): Promise<T | null>;
};

/**
 * Sends decisions to a durable run that waits for approval (its workflow id, and decisions by tool-call id as for
 * `agent.resume`): from any process, through a `DBOSClient`, even after the run's own process has exited. The
 * message is stored in Postgres, so it may also be sent before the run starts waiting. Decisions that leave a
 * pending call undecided are ignored by the run, which goes on waiting. `idempotencyKey` makes a retried send
 * deliver once.
 * @example
 * const client = await DBOSClient.create({ systemDatabaseUrl });
 * const pending = await readPendingApproval(client, workflowId);
 * await sendApproval(client, workflowId, Object.fromEntries(pending.map(({ toolCall }) => [toolCall.id, { behavior: "allow" }])));
 */
export function sendApproval(
  sender: MessageSender,
  workflowId: string,
  decisions: ApprovalDecisions,
  idempotencyKey?: string | undefined,
): Promise<void> {
  return sender.send(workflowId, decisions, approvalTopic, idempotencyKey);
}

/**
 * The calls a durable run waits on, once it waits (`[]` after it got its decisions). Waits up to `timeoutSeconds`
 * (a number, or `{ timeoutSeconds, pollingIntervalMs }`; default 60 s) for the run to publish them; null if it has
 * not by then.
 */
export function readPendingApproval(
  reader: EventReader,
  workflowId: string,
  wait?: number | WaitOptions | undefined,
): Promise<PendingToolCall[] | null> {
  return reader.getEvent<PendingToolCall[]>(workflowId, pendingApprovalEvent, wait);
}

/** Longest single wait for a message; a run that waits longer simply waits again (each wait is one checkpoint). */
const longestWaitSeconds = 24 * 60 * 60;

/**
 * Inside the workflow: publishes the pending calls, then waits for decisions that decide every call that needs one
 * (a deferred call needs none). Returns undefined when `timeoutSeconds` passes first. Every message and timeout is
 * recorded by DBOS, so a recovered run takes the same path.
 */
export async function waitForDecisions(
  pending: readonly PendingToolCall[],
  timeoutSeconds: number | undefined,
): Promise<ApprovalDecisions | undefined> {
  const { DBOS } = loadDbosSdk();
  await DBOS.setEvent(pendingApprovalEvent, pending);
  const deadline = timeoutSeconds === undefined ? undefined : (await DBOS.now()) + timeoutSeconds * 1000;
  for (;;) {
    const remaining = deadline === undefined ? longestWaitSeconds : Math.max(0, (deadline - (await DBOS.now())) / 1000);
    const decisions = await DBOS.recv<ApprovalDecisions>(approvalTopic, remaining);
    if (decisions && decidesAll(decisions, pending)) {
      await DBOS.setEvent(pendingApprovalEvent, []);
      return decisions;
    }
    if (!decisions && deadline !== undefined) return undefined;
  }
}

function decidesAll(decisions: ApprovalDecisions, pending: readonly PendingToolCall[]): boolean {
  if (typeof decisions !== "object" || decisions === null) return false;
  return pending.every(({ toolCall, deferred }) => deferred || isDecision(decisions[toolCall.id]));
}

function isDecision(value: unknown): boolean {
  const behavior = (value as { behavior?: unknown } | undefined)?.behavior;
  return behavior === "allow" || behavior === "deny";
}
