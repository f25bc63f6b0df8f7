import { type ApprovalDecisions, checkDecisions, type PendingToolCall, UsageError } from "../engine.js";
import { loadDbosSdk } from "./load-dbos-sdk.js";

/** The DBOS message topic that carries decisions to a durable run waiting for approval. */
export const approvalTopic = "minagent.approval";

/**
 * The DBOS event a durable run sets to the calls it waits on (`PendingToolCall[]`) while it waits for a decision,
 * and to `[]` once it has its decisions or its approval wait has timed out.
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
 * message is stored in Postgres, so it may also be sent before the run starts waiting. A decision that is not
 * `{ behavior: "allow", arguments? }` or `{ behavior: "deny", message }` is refused here with a UsageError. The run
 * ignores decisions for calls it does not wait on, and a message that leaves a pending call undecided, and goes on
 * waiting; decisions sent to a run that has ended (completed, or timed out waiting) are dropped. `idempotencyKey`
 * makes a retried send deliver once.
 * @example
 * const client = await DBOSClient.create({ systemDatabaseUrl });
 * const pending = await readPendingApproval(client, workflowId);
 * await sendApproval(client, workflowId, Object.fromEntries(pending.map(({ toolCall }) => [toolCall.id, { behavior: "allow" }])));
 */
export async function sendApproval(
  sender: MessageSender,
  workflowId: string,
  decisions: ApprovalDecisions,
  idempotencyKey?: string | undefined,
): Promise<void> {
  // The sender does not know which calls the run waits on: this checks each decision's form, as resume does.
  const named = typeof decisions === "object" && decisions !== null ? new Set(Object.keys(decisions)) : new Set<string>();
  try {
    checkDecisions(named, new Set(), decisions);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    throw new UsageError(error.message.replace(/^resume\(\)/, "sendApproval()"), { cause: error });
  }
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
 * Inside the workflow: publishes the pending calls, then waits for decisions that `agent.resume` accepts (the same
 * check): decisions for calls that are not pending are dropped, and a message that is still not valid (a pending
 * call undecided, a denial without a message) is ignored with a warning in DBOS's log, and the run waits on.
 * Returns undefined when `timeoutSeconds` passes first, after setting the pending event to `[]`. Every message and
 * timeout is recorded by DBOS, so a recovered run takes the same path.
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
    const message = await DBOS.recv<unknown>(approvalTopic, remaining);
    const decisions = message === null ? undefined : usableDecisions(message, pending);
    if (decisions) {
      await DBOS.setEvent(pendingApprovalEvent, []);
      return decisions;
    }
    if (message === null && deadline !== undefined) {
      // Nobody waits on the run any more: decisions sent from now on are dropped.
      await DBOS.setEvent(pendingApprovalEvent, []);
      return undefined;
    }
  }
}

/** The decisions of `message` for the pending calls, if resume accepts them; otherwise undefined, with a warning. */
function usableDecisions(message: unknown, pending: readonly PendingToolCall[]): ApprovalDecisions | undefined {
  const { DBOS } = loadDbosSdk();
  const pendingIds = new Set(pending.map(({ toolCall }) => toolCall.id));
  const deferredIds = new Set(pending.filter(({ deferred }) => deferred).map(({ toolCall }) => toolCall.id));
  const decisions =
    typeof message === "object" && message !== null && !Array.isArray(message)
      ? (Object.fromEntries(Object.entries(message).filter(([id]) => pendingIds.has(id))) as ApprovalDecisions)
      : (message as ApprovalDecisions);
  try {
    checkDecisions(pendingIds, deferredIds, decisions);
    return decisions;
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    DBOS.logger.warn(`minagent/dbos: workflow ${DBOS.workflowID} ignores the decisions it received and waits on: ${error.message}`);
    return undefined;
  }
}
