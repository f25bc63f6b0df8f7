// The small engine additions durable runs rely on, tested without Postgres: a run id fixed by the caller, trace
// attributes on the run span, and a tool call's idempotency key made from the run id and the call id.
import { createRequire } from "node:module";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadDbosSdk } from "../../src/dbos/load-dbos-sdk.js";
import { Agent, type AgentEvent, FakeModel, type ToolContext, ToolRegistry, UsageError } from "../../src/index.js";
import { reply, toolCall } from "../../src/testing/index.js";
import { MemoryTraceExporter } from "../../src/trace/memory-trace-exporter.js";
import { Tracer } from "../../src/trace/tracer.js";
import { temporaryFolder } from "../helpers/temporary-folder.js";

function recordingRegistry(keys: string[]) {
  return new ToolRegistry().add({
    name: "charge",
    description: "Charges a card",
    parameters: { type: "object", properties: { cents: { type: "number" } } },
    execute: (_args, context: ToolContext) => {
      keys.push(String(context.idempotencyKey));
      return "charged";
    },
  });
}

const chargeTwice = () =>
  new FakeModel([reply("", toolCall("charge", { cents: 5 }, "call_a"), toolCall("charge", { cents: 7 }, "call_b")), "done"]);

describe("engine seams for durable runs", () => {
  it("a run given a runId keeps it on its result and on every event", async () => {
    const events: AgentEvent[] = [];
    const agent = new Agent(chargeTwice(), recordingRegistry([]), { onEvent: (event) => events.push(event) });
    const result = await agent.run("pay", { runId: "run_wf-42" });
    expect(result.runId).toBe("run_wf-42");
    expect(events.length).toBeGreaterThan(4);
    expect(new Set(events.map((event) => event.runId))).toEqual(new Set(["run_wf-42"]));
  });

  it("runs without a runId still get distinct random ids", async () => {
    const agent = new Agent(new FakeModel(["a", "b"]), new ToolRegistry());
    const [first, second] = [await agent.run("x"), await agent.run("y")];
    expect(first.runId).toMatch(/^run_/);
    expect(first.runId).not.toBe(second.runId);
  });

  it("the idempotency key is the same when a run with the same id executes the same call again", async () => {
    const firstKeys: string[] = [];
    const againKeys: string[] = [];
    await new Agent(chargeTwice(), recordingRegistry(firstKeys)).run("pay", { runId: "run_wf-7" });
    await new Agent(chargeTwice(), recordingRegistry(againKeys)).run("pay", { runId: "run_wf-7" });
    expect(firstKeys.sort()).toEqual(["run_wf-7/call_a", "run_wf-7/call_b"]);
    expect(againKeys.sort()).toEqual(firstKeys);
    const otherRun: string[] = [];
    await new Agent(chargeTwice(), recordingRegistry(otherRun)).run("pay");
    expect(otherRun.some((key) => firstKeys.includes(key))).toBe(false);
  });

  it("run attributes reach run-start and the run span of the trace, scrubbed", async () => {
    const memory = new MemoryTraceExporter();
    const tracer = new Tracer({ exporters: [memory] });
    const starts: AgentEvent[] = [];
    const agent = new Agent(new FakeModel(["ok"]), new ToolRegistry(), {
      onEvent: (event) => {
        if (event.type === "run-start") starts.push(event);
      },
    });
    const attributes = { "dbos.workflow_id": "wf-9", "minagent.note": "key sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789" };
    await agent.run("hi", { attributes, onEvent: tracer.listener() });
    expect(starts[0]).toMatchObject({ type: "run-start", attributes });
    const runSpan = memory.traces[0]?.spans[0];
    expect(runSpan?.type).toBe("run");
    expect(runSpan?.attributes["dbos.workflow_id"]).toBe("wf-9");
    expect(String(runSpan?.attributes["minagent.note"])).not.toContain("abcdefghijklmnopqrstuvwxyz0123456789");
  });
});

describe("minagent/dbos without @dbos-inc/dbos-sdk (an optional peer dependency)", () => {
  it("says which package to install, keeping Node's error as the cause", () => {
    const folder = temporaryFolder("minagent-no-dbos-");
    const require = createRequire(join(folder, "index.js"));
    let thrown: unknown;
    try {
      loadDbosSdk(require);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(UsageError);
    expect((thrown as Error).message).toMatch(
      /^minagent\/dbos needs the @dbos-inc\/dbos-sdk package .* Install it: npm i @dbos-inc\/dbos-sdk$/,
    );
    expect(((thrown as Error).cause as NodeJS.ErrnoException).code).toBe("MODULE_NOT_FOUND");
  });

  it("importing minagent/dbos loads no DBOS: that waits for its first use", async () => {
    const loaded = () => Object.keys(createRequire(import.meta.url).cache).some((path) => path.includes("@dbos-inc"));
    expect(loaded()).toBe(false);
    const dbos = await import("../../src/dbos/index.js");
    expect(typeof dbos.registerDurableAgent).toBe("function");
    expect(loaded()).toBe(false);
    dbos.durableModel(new FakeModel([]));
    expect(loaded()).toBe(true);
  });
});
