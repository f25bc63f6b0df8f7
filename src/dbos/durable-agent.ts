import { randomUUID } from "node:crypto";
import type { DBOS, WorkflowHandle } from "@dbos-inc/dbos-sdk";
import { Agent, type Message, type Model, type RunResult, type ToolExecutor, UsageError } from "../engine.js";
import { waitForDecisions } from "./approvals.js";
import { durableModel, durableTools } from "./durable-steps.js";
import { loadDbosSdk } from "./load-dbos-sdk.js";
import { waitForLaunch, watchLaunches } from "./watch-launches.js";

/** The trace attribute (on the run span, `RunOptions.attributes`) naming the DBOS workflow a durable run is. */
export const workflowIdAttribute = "dbos.workflow_id";

/** What a durable run is asked to do: the workflow's argument, stored in Postgres with it (plain JSON). */
export type DurableRunRequest = {
  /** The user's input, as for `agent.run`. */
  input: string;
  /** A previous result's `messages`: the run continues that conversation. */
  history?: Message[] | undefined;
  /** What the run is, for traces (`RunOptions.name`). */
  name?: string | undefined;
  /**
   * The base of the run's ids (see `durableRunId`), and so of its tools' idempotency keys. `start`, `run` and
   * `enqueueDurableRun` set it to the workflow id. It is part of the workflow's input, which `DBOS.forkWorkflow`
   * copies: a fork re-executes its tool calls with the original run's keys. Default: the workflow id.
   */
  runKey?: string | undefined;
};

/**
 * The id of a durable run: `run_<runKey>`, and `run<round>_<runKey>` for the run resumed after its round-th approval
 * (`run1_refund-42`). A round is digits without `_`, so no two (runKey, round) pairs give the same id.
 */
export function durableRunId(runKey: string, round = 0): string {
  return round === 0 ? `run_${runKey}` : `run${round}_${runKey}`;
}

/** How an agent runs as a DBOS workflow. */
export type DurableAgentOptions = {
  /**
   * The workflow's name, which Postgres stores with every run: a process recovers or dequeues a run only if it has
   * registered this name. Keep it across deploys; `enqueueDurableRun` names it from another process.
   */
  name: string;
  /**
   * Seconds an interrupted run waits for a decision (see `sendApproval`) before it ends with status `interrupted`.
   * Default: it waits until a decision comes, however long (days; across restarts).
   */
  approvalTimeoutSeconds?: number | undefined;
  /**
   * Builds the agent that runs inside the workflow from the durable model and tools. Default:
   * `new Agent(model, tools, agent.options)`. Required for an Agent subclass (a ReActAgent, a PlanAndSolveAgent):
   * `createAgent: ({ model, tools }) => new ReActAgent(model, tools, options)`.
   */
  createAgent?: ((parts: { model: Model; tools: ToolExecutor }) => Agent) | undefined;
};

/** Where and as what a durable run starts. */
export type DurableStartOptions = {
  /**
   * The workflow id: the run's identity in Postgres, and the base of its run id (`run_<workflowId>`, as the
   * request's `runKey`). Starting a workflow id that exists returns that run instead of starting another. Default: a
   * new UUID.
   */
  workflowId?: string | undefined;
  /** Run it from this DBOS queue (registered with `DBOS.registerQueue`) on whichever worker dequeues it. */
  queueName?: string | undefined;
  /** Cancel the run after this many milliseconds. */
  timeoutMs?: number | undefined;
};

/** An agent registered as a DBOS workflow: each model call and each tool call of its runs is a checkpointed step. */
export type DurableAgent = {
  /** The workflow's name (`DurableAgentOptions.name`). */
  readonly name: string;
  /** The agent that runs inside the workflow (its model and tools are the durable ones). */
  readonly agent: Agent;
  /** The registered DBOS workflow itself, for `DBOS.startWorkflow` and its other options. */
  readonly workflow: (request: DurableRunRequest) => Promise<RunResult>;
  /**
   * Starts a durable run and returns its DBOS handle (`handle.workflowID`, `await handle.getResult()`). Rejects with
   * the error of `DBOS.launch()` when the last launch failed (nothing listening at the database URL, say).
   */
  start(input: string | DurableRunRequest, options?: DurableStartOptions): Promise<WorkflowHandle<RunResult>>;
  /** Starts a durable run and waits for its result (which, for a run waiting for approval, may take long); rejects as {@link start} does. */
  run(input: string | DurableRunRequest, options?: DurableStartOptions): Promise<RunResult>;
};

/**
 * Registers `agent` as a DBOS workflow named `options.name`: minagent's loop runs unchanged inside it, with its
 * model and tool executor wrapped so that every model call and every tool call is a checkpointed step. A run
 * whose process dies resumes, on restart or on another worker, from its last completed step. A run that ends
 * `interrupted` waits inside the workflow for decisions sent from anywhere (`sendApproval`), then goes on.
 * Call it before `DBOS.launch()`, with the same name in every process that may run or recover these runs.
 * @example
 * const durable = registerDurableAgent(new Agent(model, registry, { system }), { name: "support" });
 * DBOS.setConfig({ name: "support-app", systemDatabaseUrl: process.env.DBOS_SYSTEM_DATABASE_URL });
 * await DBOS.launch();
 * const result = await durable.run("Refund order 1234", { workflowId: "refund-1234" });
 */
export function registerDurableAgent(agent: Agent, options: DurableAgentOptions): DurableAgent {
  if (!(agent instanceof Agent)) throw new UsageError("registerDurableAgent expects an Agent as its first argument.");
  const { name, approvalTimeoutSeconds } = options;
  if (typeof name !== "string" || name === "") throw new UsageError("registerDurableAgent needs options.name: the workflow's name.");
  if (approvalTimeoutSeconds !== undefined && !(approvalTimeoutSeconds >= 0))
    throw new UsageError(`approvalTimeoutSeconds must be a number of seconds, got ${approvalTimeoutSeconds}.`);
  if (!options.createAgent && agent.constructor !== Agent) {
    const className = agent.constructor.name || "YourAgent";
    throw new UsageError(
      `registerDurableAgent: the agent is a ${className}, which would run as a plain Agent inside the workflow. Pass createAgent: ({ model, tools }) => new ${className}(model, tools, …) to rebuild it around the durable model and tools.`,
    );
  }
  const { DBOS } = loadDbosSdk();
  watchLaunches(DBOS);
  const parts = { model: durableModel(agent.model), tools: durableTools(agent.registry) };
  const inner = options.createAgent ? options.createAgent(parts) : new Agent(parts.model, parts.tools, agent.options);

  async function runAgent(request: DurableRunRequest): Promise<RunResult> {
    const workflowId = DBOS.workflowID;
    if (workflowId === undefined) throw new UsageError("A durable run must be started as a DBOS workflow (durable.start or durable.run).");
    // Ids derived from the run key in the workflow's input (its first workflow id): a recovered run keeps its run
    // id, and so its tools' idempotency keys, and so does a fork, which copies the input.
    const runKey = request.runKey ?? workflowId;
    const attributes = { [workflowIdAttribute]: workflowId };
    let result = await inner.run(request.input, { history: request.history, name: request.name, runId: durableRunId(runKey), attributes });
    for (let round = 1; result.status === "interrupted"; round++) {
      const decisions = await waitForDecisions(result.pending, approvalTimeoutSeconds);
      if (!decisions) return result;
      result = await inner.resume(result, decisions, { name: request.name, runId: durableRunId(runKey, round), attributes });
    }
    return result;
  }
  const workflow = DBOS.registerWorkflow(runAgent, { name });

  const start = async (input: string | DurableRunRequest, startOptions: DurableStartOptions = {}) => {
    // After a launch that failed, DBOS would take the run and retry its database forever: reject with the launch's error.
    if (!DBOS.isWithinWorkflow()) await waitForLaunch(DBOS);
    // Inside a workflow, DBOS gives a child without an id a deterministic one, which a random id would break; the
    // run key then defaults, in the child, to that id.
    const workflowId = startOptions.workflowId ?? (DBOS.isWithinWorkflow() ? undefined : randomUUID());
    const params: NonNullable<Parameters<typeof DBOS.startWorkflow>[1]> = {};
    if (workflowId !== undefined) params.workflowID = workflowId;
    if (startOptions.queueName !== undefined) params.queueName = startOptions.queueName;
    if (startOptions.timeoutMs !== undefined) params.timeoutMS = startOptions.timeoutMs;
    const request: DurableRunRequest = typeof input === "string" ? { input } : input;
    const runKey = request.runKey ?? workflowId;
    return DBOS.startWorkflow(workflow, params)(runKey === undefined ? request : { ...request, runKey });
  };
  return {
    name,
    agent: inner,
    workflow,
    start,
    run: async (input, startOptions) => (await start(input, startOptions)).getResult(),
  };
}
