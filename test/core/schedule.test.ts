import { describe, expect, it } from "vitest";
import { Agent, FakeModel, type Tool, ToolRegistry } from "../../src/index.js";
import { reply, toolCall } from "../../src/testing/index.js";

/** Tools that log when each call starts and ends, so the order of effects can be read back. */
function loggingRegistry(options: { orderEffects?: boolean; needsApproval?: boolean } = {}) {
  const log: string[] = [];
  const tool = (name: string, readOnly: boolean, extra: Partial<Tool> = {}): Tool => ({
    name,
    description: name,
    parameters: { type: "object", properties: { id: { type: "string" } } },
    readOnly,
    execute: async ({ id }) => {
      log.push(`start ${id}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
      log.push(`end ${id}`);
      return `${name} ${id}`;
    },
    ...extra,
  });
  const registry = new ToolRegistry({ orderEffects: options.orderEffects })
    .add(tool("read", true))
    .add(tool("write", false, options.needsApproval ? { needsApproval: (args) => (args as { id?: string }).id === "w1" } : {}));
  return { registry, log };
}

const call = (name: string, id: string) => toolCall(name, { id }, id);
const turn = reply("", call("read", "r1"), call("read", "r2"), call("write", "w1"), call("read", "r3"), call("write", "w2"));

describe("scheduling a turn's calls", () => {
  it("by default every call of a turn runs at once", async () => {
    const { registry, log } = loggingRegistry();
    await new Agent(new FakeModel([turn, "done"]), registry).run("go");
    expect(log.slice(0, 5)).toEqual(["start r1", "start r2", "start w1", "start r3", "start w2"]);
  });

  it("with orderEffects, consecutive read-only calls overlap and a call that may change things runs alone, in the model's order", async () => {
    const { registry, log } = loggingRegistry({ orderEffects: true });
    const result = await new Agent(new FakeModel([turn, "done"]), registry).run("go");
    expect(log).toEqual(["start r1", "start r2", "end r1", "end r2", "start w1", "end w1", "start r3", "end r3", "start w2", "end w2"]);
    expect(result.messages.filter((message) => message.role === "tool").map((message) => message.toolCallId)).toEqual([
      "r1",
      "r2",
      "w1",
      "r3",
      "w2",
    ]);
  });

  it("with orderEffects, a call waiting for approval holds back the later calls; resume runs them after it, in order", async () => {
    const { registry, log } = loggingRegistry({ orderEffects: true, needsApproval: true });
    const agent = new Agent(new FakeModel([turn, "done"]), registry);
    const interrupted = await agent.run("go");
    expect(log).toEqual(["start r1", "start r2", "end r1", "end r2"]);
    expect(interrupted.pending).toEqual([
      { toolCall: call("write", "w1") },
      { toolCall: call("read", "r3"), deferred: true, reason: expect.stringMatching(/earlier call of this turn waits for a decision/) },
      { toolCall: call("write", "w2"), deferred: true, reason: expect.any(String) },
    ]);
    // Only the call that asked needs a decision; the deferred ones meet the usual checks when they run.
    const resumed = await agent.resume(interrupted, { w1: { behavior: "allow" } });
    expect(log.slice(4)).toEqual(["start w1", "end w1", "start r3", "end r3", "start w2", "end w2"]);
    expect(resumed.status).toBe("completed");
    expect(resumed.messages.filter((message) => message.role === "tool").map((message) => message.toolCallId)).toEqual([
      "r1",
      "r2",
      "w1",
      "r3",
      "w2",
    ]);
  });

  it("a denied call does not hold back the calls after it", async () => {
    const { registry, log } = loggingRegistry({ orderEffects: true, needsApproval: true });
    const agent = new Agent(new FakeModel([turn, "done"]), registry);
    const interrupted = await agent.run("go");
    await agent.resume(interrupted, { w1: { behavior: "deny", message: "No." } });
    expect(log.slice(4)).toEqual(["start r3", "end r3", "start w2", "end w2"]);
  });
});
