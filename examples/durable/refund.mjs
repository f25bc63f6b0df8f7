// A durable run on DBOS and Postgres that waits for a person's approval across processes:
//   export DBOS_SYSTEM_DATABASE_URL=postgresql://user:password@localhost:5432/minagent_example
//   node examples/durable/refund.mjs start refund-42     # runs until the refund needs approval, then exits
//   node examples/durable/refund.mjs approve refund-42   # another process (no agent): approves it
//   node examples/durable/refund.mjs resume refund-42    # the worker comes back, recovers the run, finishes it
// The run's model calls and tool calls are checkpointed in Postgres: `resume` calls neither the model nor the
// order lookup again; it goes on from the approval. See docs/durable.md.
// Each command also prints node-postgres's DeprecationWarning about a queued client.query() on stderr: DBOS's
// system database pool causes it (docs/durable.md, "Example", says why and how to avoid it).
import { DBOS, DBOSClient } from "@dbos-inc/dbos-sdk";
import { Agent, ToolRegistry } from "minagent";
import { readPendingApproval, registerDurableAgent, sendApproval } from "minagent/dbos";

const [command, workflowId] = process.argv.slice(2);
const systemDatabaseUrl = process.env.DBOS_SYSTEM_DATABASE_URL;
if (!systemDatabaseUrl || !["start", "approve", "resume"].includes(command) || !workflowId) {
  console.error("usage: DBOS_SYSTEM_DATABASE_URL=postgresql://… node refund.mjs start|approve|resume <workflow id>");
  process.exit(2);
}

// A real model (AnthropicModel, OpenAIModel) goes here; this scripted one keeps the example offline. Like a real
// model it answers from the conversation it is sent, not from a counter: a recovered run does not call it again
// for the turns Postgres already holds.
const model = {
  provider: "scripted",
  async complete(messages) {
    const turn = messages.filter((message) => message.role === "assistant").length;
    const call = (name, args) => ({
      message: { role: "assistant", content: "", toolCalls: [{ id: `call_${turn}`, name, arguments: args }] },
      stopReason: "tool_use",
    });
    if (turn === 0) return call("look_up_order", { order: "1234" });
    if (turn === 1) return call("refund", { order: "1234", cents: 4999 });
    return { message: { role: "assistant", content: `Done: ${messages.at(-1).content}` }, stopReason: "end_turn" };
  },
};

const tools = new ToolRegistry()
  .add({
    name: "look_up_order",
    description: "Finds an order",
    parameters: { type: "object", properties: { order: { type: "string" } }, required: ["order"] },
    readOnly: true,
    execute: ({ order }) => ({ order, total: 4999, status: "delivered, damaged" }),
  })
  .add({
    name: "refund",
    description: "Refunds an order (needs a person's approval)",
    parameters: { type: "object", properties: { order: { type: "string" }, cents: { type: "number" } }, required: ["order", "cents"] },
    needsApproval: true,
    // A payment API would get context.idempotencyKey as its Idempotency-Key: if this process died during the
    // call, the recovered run calls it again with the same key, and the refund happens once.
    execute: ({ order, cents }, context) => `refunded ${cents} cents on order ${order} (idempotency key ${context.idempotencyKey})`,
  });

// Registered before launch, under a name every process that may run or recover these runs uses.
const refunds = registerDurableAgent(new Agent(model, tools, { system: "You handle refunds." }), { name: "refunds" });

if (command === "approve") {
  const client = await DBOSClient.create({ systemDatabaseUrl });
  const pending = await readPendingApproval(client, workflowId, { timeoutSeconds: 30, pollingIntervalMs: 200 });
  for (const { toolCall } of pending ?? []) console.log(`approving ${toolCall.name}(${JSON.stringify(toolCall.arguments)})`);
  await sendApproval(client, workflowId, Object.fromEntries((pending ?? []).map(({ toolCall }) => [toolCall.id, { behavior: "allow" }])));
  await client.destroy();
} else {
  // The same executor id on every start: DBOS recovers this worker's unfinished runs when it launches.
  DBOS.setConfig({ name: "refund-example", systemDatabaseUrl, executorID: "refund-worker", applicationVersion: "1", logLevel: "warn" });
  await DBOS.launch();
  if (command === "start") {
    await refunds.start("Order 1234 arrived broken. Refund it.", { workflowId });
    const pending = await readPendingApproval(DBOS, workflowId, 30);
    console.log(`${workflowId} waits for approval of: ${pending.map(({ toolCall }) => toolCall.name).join(", ")}`);
    // Exit as a deploy or a crash would: the run stays in Postgres, waiting.
    process.exit(0);
  }
  const result = await DBOS.retrieveWorkflow(workflowId).getResult();
  console.log(`${result.status}: ${result.final}`);
  await DBOS.shutdown();
}
