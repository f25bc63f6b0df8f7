// minagent/dbos: durable and distributed runs on DBOS Transact and Postgres (docs/durable.md). The loop runs
// unchanged inside a DBOS workflow; its model and tool executor are wrapped so that each call is a checkpointed step.
export {
  approvalTopic,
  type EventReader,
  type MessageSender,
  pendingApprovalEvent,
  readPendingApproval,
  sendApproval,
  type WaitOptions,
} from "./approvals.js";
export {
  type DurableAgent,
  type DurableAgentOptions,
  type DurableRunRequest,
  type DurableStartOptions,
  durableRunId,
  registerDurableAgent,
  workflowIdAttribute,
} from "./durable-agent.js";
export { durableModel, durableTools, modelStepName, toolStepName } from "./durable-steps.js";
export { installDbosSdk } from "./load-dbos-sdk.js";
export { type EnqueueDurableRunOptions, enqueueDurableRun, recoverWorkflowsOf, type WorkflowManager } from "./remote.js";
