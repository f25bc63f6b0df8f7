// minagent/dbos in one process: DBOS launched here on a throwaway Postgres. What is checkpointed and how it
// replays (a rewound workflow gets every recorded model response back exactly, without calling the model), the
// workflow id on the run's trace, approvals that wait inside the workflow, and the misuse errors.
import { DBOS } from "@dbos-inc/dbos-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  approvalTopic,
  type DurableAgent,
  durableModel,
  durableRunId,
  durableTools,
  modelStepName,
  readPendingApproval,
  recoverWorkflowsOf,
  registerDurableAgent,
  sendApproval,
  toolStepName,
  workflowIdAttribute,
} from "../../src/dbos/index.js";
import {
  Agent,
  type Message,
  type Model,
  type ModelResponse,
  PlanAndSolveAgent,
  ReActAgent,
  type RunResult,
  ToolRegistry,
  UsageError,
} from "../../src/index.js";
import { MemoryTraceExporter } from "../../src/trace/memory-trace-exporter.js";
import { Tracer } from "../../src/trace/tracer.js";
import { databaseUrl, findPostgresBin, postgresNotFound, startPostgres, type TestPostgres } from "../helpers/postgres.mjs";

/** Rich responses (reasoning with signatures, redacted reasoning, provider metadata, every usage field), by turn. */
function richResponse(turn: number): ModelResponse {
  if (turn === 3)
    return { message: { role: "assistant", content: "all done ✓" }, stopReason: "end_turn", usage: { inputTokens: 9, outputTokens: 2 } };
  return {
    message: {
      role: "assistant",
      content: `step ${turn} — 北京`,
      toolCalls: [
        { id: `c${turn}a`, name: "note", arguments: { text: `n${turn}`, nested: { list: [1, null, "x"], flag: false } } },
        { id: `c${turn}b`, name: "note", arguments: {}, argumentsError: "Expected a JSON object, got truncated text." },
      ],
      reasoning: [
        { text: `think ${turn}`, signature: `EqQBCkgIARABGAIi${turn}`, provider: "anthropic" },
        { text: "", redactedData: "ZW5jcnlwdGVk", provider: "anthropic" },
      ],
      providerMetadata: { anthropic: { id: `msg_${turn}`, blocks: [{ type: "text" }], empty: {}, zero: 0 } },
    },
    stopReason: "tool_use",
    usage: { inputTokens: 100 + turn, outputTokens: 20, cacheReadTokens: 50, cacheWriteTokens: 5, reasoningTokens: 7 },
  };
}

const modelCalls: number[] = [];
const richModel: Model = {
  provider: "anthropic",
  modelId: "claude-sonnet-4-6",
  async complete(messages: Message[]) {
    const turn = messages.filter((message) => message.role === "assistant").length;
    modelCalls.push(turn);
    return richResponse(turn);
  },
};
const noteExecutions: string[] = [];
const notes = new ToolRegistry().add({
  name: "note",
  description: "Notes a text",
  parameters: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
  needsApproval: ({ text }) => text === "needs-approval",
  execute: ({ text }, context) => {
    noteExecutions.push(`${text}@${context.idempotencyKey}`);
    return `noted ${text}`;
  },
});

/** One call to `note` that needs approval, then a final answer. */
const approvalModel: Model = {
  async complete(messages: Message[]) {
    const turn = messages.filter((message) => message.role === "assistant").length;
    if (turn > 0) return { message: { role: "assistant", content: `final after: ${messages.at(-1)?.content}` }, stopReason: "end_turn" };
    return {
      message: { role: "assistant", content: "", toolCalls: [{ id: "ask_1", name: "note", arguments: { text: "needs-approval" } }] },
      stopReason: "tool_use",
    };
  },
};

const traces = new MemoryTraceExporter();
const tracer = new Tracer({ exporters: [traces] });
let server: TestPostgres;
let rich: DurableAgent;
let approving: DurableAgent;
let impatient: DurableAgent;
let rebuilt: DurableAgent;

beforeAll(async () => {
  server = await startPostgres();
  rich = registerDurableAgent(new Agent(richModel, notes, { onEvent: tracer.listener({ agentName: "rich" }) }), { name: "rich" });
  approving = registerDurableAgent(new Agent(approvalModel, notes), { name: "approving" });
  impatient = registerDurableAgent(new Agent(approvalModel, notes), { name: "impatient", approvalTimeoutSeconds: 1 });
  rebuilt = registerDurableAgent(new Agent(richModel, notes), {
    name: "rebuilt",
    createAgent: ({ model, tools }) => new Agent(model, tools, { maxSteps: 2 }),
  });
  // A subclass is accepted with createAgent, which rebuilds it.
  registerDurableAgent(new ReActAgent(richModel, notes), {
    name: "react",
    createAgent: ({ model, tools }) => new ReActAgent(model, tools),
  });
  DBOS.setConfig({ name: "minagent-inprocess", systemDatabaseUrl: databaseUrl(server.url, "minagent_inprocess"), logLevel: "error" });
  await DBOS.launch();
}, 120_000);
afterAll(async () => {
  await DBOS.shutdown();
  server?.stop();
}, 60_000);

describe("durable agent in one process", () => {
  it("checkpoints each model call and tool call, and a replay gets the very same responses without calling the model", async () => {
    const reference = await new Agent(richModel, notes).run("go");
    modelCalls.length = 0;
    const result = await rich.run("go", { workflowId: "rich-1" });
    expect(result.runId).toBe("run_rich-1");
    expect(result.messages).toEqual(reference.messages);
    expect(result.usage).toEqual(reference.usage);
    expect(modelCalls).toEqual([0, 1, 2, 3]);
    const steps = (await DBOS.listWorkflowSteps("rich-1")) ?? [];
    // A model step, then one step per call of its turn, in the model's order; the final answer is the last step.
    expect(steps.map((step) => step.name)).toEqual([
      ...[0, 1, 2].flatMap(() => [modelStepName, toolStepName("note"), toolStepName("note")]),
      modelStepName,
    ]);
    expect(steps[0]?.output).toEqual(richResponse(0));

    // Rewound to its last step, the workflow replays every step before it from Postgres: the model is called once.
    modelCalls.length = 0;
    const executionsBefore = noteExecutions.length;
    await DBOS.rewindWorkflow("rich-1", { startStep: steps.length - 1 });
    const replayed = await DBOS.retrieveWorkflow<RunResult>("rich-1").getResult();
    expect(modelCalls).toEqual([3]);
    expect(noteExecutions.length).toBe(executionsBefore);
    expect(replayed).toEqual(result);
  });

  it("puts the workflow id on the run's trace and gives tools keys made from it", async () => {
    noteExecutions.length = 0;
    await rich.run("go", { workflowId: "rich-traced" });
    const runSpan = traces.traces.at(-1)?.spans[0];
    expect(runSpan?.attributes).toMatchObject({ [workflowIdAttribute]: "rich-traced", "minagent.run.id": "run_rich-traced" });
    expect(noteExecutions).toEqual(["n0@run_rich-traced/c0a", "n1@run_rich-traced/c1a", "n2@run_rich-traced/c2a"]);
  });

  it("waits inside the workflow for decisions: incomplete ones are ignored, a denial is the observation", async () => {
    noteExecutions.length = 0;
    const handle = await approving.start("delete it", { workflowId: "approval-1" });
    const pending = await readPendingApproval(DBOS, "approval-1", 30);
    expect(pending?.map(({ toolCall }) => toolCall.id)).toEqual(["ask_1"]);
    await sendApproval(DBOS, "approval-1", {});
    await sendApproval(DBOS, "approval-1", { ask_1: { behavior: "deny", message: "Not today." } });
    const result = await handle.getResult();
    expect(result).toMatchObject({ status: "completed", final: "final after: Not today.", runId: "run1_approval-1" });
    expect(noteExecutions).toEqual([]);
    expect(await readPendingApproval(DBOS, "approval-1", 1)).toEqual([]);
  });

  it("an approved call runs once, after the decision", async () => {
    noteExecutions.length = 0;
    const handle = await approving.start("note it", { workflowId: "approval-2" });
    await sendApproval(DBOS, "approval-2", { ask_1: { behavior: "allow" } });
    expect((await handle.getResult()).final).toBe("final after: noted needs-approval");
    expect(noteExecutions).toEqual(["needs-approval@run1_approval-2/ask_1"]);
  });

  it("run ids do not collide: a workflow after its first approval and the workflow named <id>_1", async () => {
    expect((await rich.run("go", { workflowId: "approval-2_1" })).runId).toBe("run_approval-2_1");
    expect(durableRunId("approval-2", 1)).toBe("run1_approval-2");
    const ids = ["x", "x_1", "1_x", "x_1_1", "_1", "1"].flatMap((key) => [0, 1, 2, 11].map((round) => durableRunId(key, round)));
    expect(new Set(ids).size).toBe(ids.length);
  });

  async function statusOf(workflowId: string): Promise<string | undefined> {
    return (await DBOS.getWorkflowStatus(workflowId))?.status;
  }

  it("decisions resume would refuse are ignored: the run waits on, and a later valid decision completes it", async () => {
    noteExecutions.length = 0;
    const handle = await approving.start("note it", { workflowId: "approval-bad" });
    expect((await readPendingApproval(DBOS, "approval-bad", 30))?.map(({ toolCall }) => toolCall.id)).toEqual(["ask_1"]);
    // Sent past sendApproval's own check, as a buggy or older sender might.
    await DBOS.send("approval-bad", { ask_1: { behavior: "deny" } }, approvalTopic);
    await DBOS.send("approval-bad", "allow", approvalTopic);
    await DBOS.send("approval-bad", { stale_call: { behavior: "allow" } }, approvalTopic);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(await statusOf("approval-bad")).toBe("PENDING");
    expect((await readPendingApproval(DBOS, "approval-bad", 1))?.map(({ toolCall }) => toolCall.id)).toEqual(["ask_1"]);
    // A decision for a call that is not pending (a stale id, even a malformed one) is dropped, the others used.
    await DBOS.send("approval-bad", { ask_1: { behavior: "allow" }, stale_call: { behavior: "maybe" } }, approvalTopic);
    const result = await handle.getResult();
    expect(result).toMatchObject({ status: "completed", final: "final after: noted needs-approval", runId: "run1_approval-bad" });
    expect(noteExecutions).toEqual(["needs-approval@run1_approval-bad/ask_1"]);
    expect(await statusOf("approval-bad")).toBe("SUCCESS");
  });

  it("sendApproval refuses a malformed decision with a UsageError before sending it", async () => {
    await expect(sendApproval(DBOS, "approval-nobody", { ask_1: { behavior: "deny" } as never })).rejects.toThrow(
      /^sendApproval\(\): the decision for "ask_1" must be/,
    );
    await expect(sendApproval(DBOS, "approval-nobody", null as never)).rejects.toThrow(UsageError);
    // Well-formed decisions are sent (to an ended run here, which drops them).
    await expect(sendApproval(DBOS, "approval-1", { a: { behavior: "allow" }, b: { behavior: "deny", message: "no" } })).resolves.toBe(
      undefined,
    );
  });

  it("with approvalTimeoutSeconds, a run nobody answers ends interrupted", async () => {
    const result = await impatient.run("delete it", { workflowId: "approval-timeout" });
    expect(result.status).toBe("interrupted");
    expect(result.pending.map(({ toolCall }) => toolCall.id)).toEqual(["ask_1"]);
    // The run no longer waits, and says so; a decision sent now is dropped.
    expect(await readPendingApproval(DBOS, "approval-timeout", 1)).toEqual([]);
    await sendApproval(DBOS, "approval-timeout", { ask_1: { behavior: "allow" } });
    expect(await statusOf("approval-timeout")).toBe("SUCCESS");
  });

  it("a fork re-executes its tool calls with the original run's id and idempotency keys", async () => {
    noteExecutions.length = 0;
    const original = await rich.run("go", { workflowId: "rich-forked" });
    expect(noteExecutions[0]).toBe("n0@run_rich-forked/c0a");
    const steps = (await DBOS.listWorkflowSteps("rich-forked")) ?? [];
    const firstTool = steps.findIndex((step) => step.name === toolStepName("note"));
    expect(firstTool).toBe(1);
    noteExecutions.length = 0;
    const fork = await DBOS.forkWorkflow<RunResult>("rich-forked", firstTool);
    expect(fork.workflowID).not.toBe("rich-forked");
    const forked = await fork.getResult();
    expect(noteExecutions).toEqual(["n0@run_rich-forked/c0a", "n1@run_rich-forked/c1a", "n2@run_rich-forked/c2a"]);
    expect(forked).toEqual(original);
    const runSpan = traces.traces.at(-1)?.spans[0];
    expect(runSpan?.attributes).toMatchObject({ [workflowIdAttribute]: fork.workflowID, "minagent.run.id": "run_rich-forked" });
  });

  it("createAgent builds the agent that runs in the workflow, around the durable model and tools", async () => {
    const result = await rebuilt.run("go", { workflowId: "rebuilt-1" });
    expect(result).toMatchObject({ status: "max_steps", turns: 2 });
    const steps = (await DBOS.listWorkflowSteps("rebuilt-1")) ?? [];
    expect(steps.filter((step) => step.name === modelStepName)).toHaveLength(2);
  });

  it("outside a workflow the durable model and tools are the plain ones", async () => {
    const response = await durableModel(richModel).complete([{ role: "user", content: "hi" }], []);
    expect(response).toEqual(richResponse(0));
    const outcome = await durableTools(notes).execute({ id: "x", name: "note", arguments: { text: "plain" } }, {});
    expect(outcome).toEqual({ content: "noted plain", isError: false });
  });

  it("recoverWorkflowsOf takes DBOS itself too; an executor with no pending runs gives none", async () => {
    expect(await recoverWorkflowsOf(DBOS, ["no-such-executor"])).toEqual([]);
    expect(await recoverWorkflowsOf(DBOS, [])).toEqual([]);
  });

  it("refuses misuse with a UsageError", () => {
    expect(() => registerDurableAgent({} as Agent, { name: "x" })).toThrow(UsageError);
    expect(() => registerDurableAgent(new Agent(richModel, notes), { name: "" })).toThrow(/options.name/);
    expect(() => registerDurableAgent(new Agent(richModel, notes), { name: "y", approvalTimeoutSeconds: -1 })).toThrow(UsageError);
  });

  it("refuses an Agent subclass without createAgent, which would silently run as a plain Agent", () => {
    expect(() => registerDurableAgent(new ReActAgent(richModel, notes), { name: "react-x" })).toThrow(
      /the agent is a ReActAgent.*createAgent: \(\{ model, tools \}\) => new ReActAgent\(model, tools, …\)/,
    );
    expect(() => registerDurableAgent(new PlanAndSolveAgent(richModel, notes), { name: "plan-x" })).toThrow(UsageError);
  });

  it("a machine without PostgreSQL gets one message saying how to install it", () => {
    expect(postgresNotFound).toBe("PostgreSQL not found: run scripts/install-test-deps.sh, or apt-get install postgresql");
    expect(() => findPostgresBin("/nonexistent/postgresql", "/nonexistent/bin")).toThrow(postgresNotFound);
  });
});
