import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterEach, describe, expect, it, vi } from "vitest";
import { Agent, type AgentEvent, FakeModel, type Model, type RunResult, ToolRegistry, UsageError } from "../../src/index.js";
import { reply, toolCall } from "../../src/testing/index.js";

function setup() {
  const ran: string[] = [];
  const registry = new ToolRegistry()
    .add({
      name: "read",
      description: "reads",
      parameters: { type: "object" },
      readOnly: true,
      execute: () => {
        ran.push("read");
        return "text";
      },
    })
    .add({
      name: "delete",
      description: "deletes",
      parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
      needsApproval: true,
      execute: ({ path }) => {
        ran.push(`delete ${path}`);
        return `deleted ${path}`;
      },
    });
  return { registry, ran };
}

const mixedTurn = reply(
  "Reading and deleting.",
  toolCall("delete", { path: "a" }, "d1"),
  toolCall("read", {}, "r"),
  toolCall("delete", { path: "b" }, "d2"),
);

describe("interrupted runs", () => {
  it("end with status interrupted and the pending calls; the allowed calls of that turn ran and their results are kept", async () => {
    const { registry, ran } = setup();
    const events: AgentEvent[] = [];
    const result = await new Agent(new FakeModel([mixedTurn]), registry, { onEvent: (event) => events.push(event) }).run("tidy");
    expect(result.status).toBe("interrupted");
    expect(result.final).toBe("");
    expect(result.pending.map(({ toolCall }) => toolCall.id)).toEqual(["d1", "d2"]);
    expect(ran).toEqual(["read"]);
    expect(result.messages.slice(-2)).toEqual([
      expect.objectContaining({ role: "assistant" }),
      { role: "tool", toolCallId: "r", content: "text" },
    ]);
    expect(result.steps.map((step) => step.kind)).toEqual(["action", "approval", "action", "observation", "action", "approval"]);
    expect(
      events.filter((event) => event.type === "tool-call-pending").map((event) => event.type === "tool-call-pending" && event.toolCall.id),
    ).toEqual(["d1", "d2"]);
    expect(events.at(-1)).toMatchObject({ type: "run-end", status: "interrupted", runId: result.runId });
  });

  it("resume answers the pending calls before any model call, keeps call order, and runs nothing twice", async () => {
    const { registry, ran } = setup();
    const agent = new Agent(new FakeModel([mixedTurn]), registry);
    const interrupted = await agent.run("tidy");
    const model = new FakeModel(["All tidy."]);
    const resumed = await new Agent(model, registry).resume(interrupted, {
      d1: { behavior: "allow" },
      d2: { behavior: "deny", message: "Keep b." },
    });
    expect(ran).toEqual(["read", "delete a"]);
    expect(model.requests).toHaveLength(1);
    expect(model.requests[0]?.messages.slice(-4)).toEqual([
      expect.objectContaining({ role: "assistant" }),
      { role: "tool", toolCallId: "d1", content: "deleted a" },
      { role: "tool", toolCallId: "r", content: "text" },
      { role: "tool", toolCallId: "d2", content: "Keep b.", isError: true },
    ]);
    expect(resumed).toMatchObject({ status: "completed", final: "All tidy.", turns: 2, pending: [] });
    expect(resumed.steps.map((step) => [step.index, step.kind])).toEqual([
      [0, "action"],
      [0, "approval"],
      [0, "action"],
      [0, "observation"],
      [0, "action"],
      [0, "approval"],
      [0, "observation"],
      [0, "observation"],
      [1, "final"],
    ]);
  });

  it("an allow with arguments runs the call with them (validated again)", async () => {
    const { registry, ran } = setup();
    const interrupted = await new Agent(new FakeModel([reply("", toolCall("delete", { path: "/" }, "d"))]), registry).run("tidy");
    const resumed = await new Agent(new FakeModel(["ok"]), registry).resume(JSON.stringify(interrupted), {
      d: { behavior: "allow", arguments: { path: "./tmp" } },
    });
    expect(ran).toEqual(["delete ./tmp"]);
    expect(resumed.messages.find((message) => message.toolCallId === "d")?.content).toBe("deleted ./tmp");
  });

  it("a resumed run goes on counting turns and usage, and maxSteps covers the whole run", async () => {
    const { registry } = setup();
    const first = new FakeModel([{ ...reply("", toolCall("delete", { path: "a" }, "d")), usage: { inputTokens: 5, outputTokens: 1 } }]);
    const interrupted = await new Agent(first, registry, { maxSteps: 2 }).run("tidy");
    const second = new FakeModel([{ ...reply("", toolCall("read", {}, "r")), usage: { inputTokens: 7, outputTokens: 2 } }]);
    const resumed = await new Agent(second, registry, { maxSteps: 2 }).resume(interrupted, { d: { behavior: "allow" } });
    expect(resumed.status).toBe("max_steps");
    expect(resumed.turns).toBe(2);
    expect(resumed.usage).toEqual({ inputTokens: 12, outputTokens: 3 });
  });

  it("refuses, with a clear UsageError, a state that is not interrupted, was tampered with, or is not fully decided", async () => {
    const { registry } = setup();
    const agent = new Agent(new FakeModel([reply("", toolCall("delete", { path: "a" }, "d"))]), registry);
    const state = await agent.run("tidy");
    const resume = (changed: unknown, decisions: Record<string, unknown> = { d: { behavior: "allow" } }) =>
      new Agent(new FakeModel(["x"]), registry).resume(changed as RunResult, decisions as never);
    const withPending = (toolCall: object) => ({ ...state, pending: [{ toolCall }] });

    await expect(resume(withPending({ id: "d", name: "delete", arguments: { path: "/" } }))).rejects.toThrow(
      /pending call "d" does not match any call of the interrupted turn/,
    );
    await expect(
      resume(withPending({ id: "other", name: "delete", arguments: { path: "a" } }), { other: { behavior: "allow" } }),
    ).rejects.toThrow(/pending call "other" does not match/);
    await expect(resume(withPending({ id: "d", name: "read", arguments: { path: "a" } }))).rejects.toThrow(UsageError);
    await expect(resume({ ...state, status: "completed" })).rejects.toThrow(/needs an interrupted run, but this one is "completed"/);
    await expect(resume(state, {})).rejects.toThrow(/no decision for the pending call\(s\) "d"/);
    await expect(resume(state, { d: { behavior: "allow" }, x: { behavior: "allow" } })).rejects.toThrow(
      /names "x", which is not a pending call/,
    );
    await expect(resume(state, { d: { behavior: "ask" } })).rejects.toThrow(
      /must be \{ behavior: "allow", arguments\? \} or \{ behavior: "deny"/,
    );
    await expect(resume("{not json")).rejects.toThrow(/not valid JSON/);
    await expect(resume({ ...state, pending: [] })).rejects.toThrow(/has no pending calls/);
  });
});

describe("a conversation with calls that never got results (a crash, a Ctrl-C)", () => {
  it("is repaired before anything is sent: each unanswered call gets a tool message saying it was interrupted", async () => {
    const model = new FakeModel(["Picking up again."]);
    const history = [
      { role: "user" as const, content: "tidy" },
      { role: "assistant" as const, content: "", toolCalls: [toolCall("read", {}, "r1"), toolCall("delete", { path: "a" }, "d1")] },
      { role: "tool" as const, content: "text", toolCallId: "r1" },
    ];
    const result = await new Agent(model, setup().registry).run("go on", { history });
    expect(model.requests[0]?.messages.slice(1)).toEqual([
      history[1],
      history[2],
      {
        role: "tool",
        toolCallId: "d1",
        isError: true,
        content: expect.stringMatching(/^This tool call was interrupted before it returned a result/),
      },
      { role: "user", content: "go on" },
    ]);
    expect(result.status).toBe("completed");
    expect(history).toHaveLength(3); // the caller's array is not changed
  });

  it("history that is not an array is a UsageError", async () => {
    await expect(new Agent(new FakeModel(["x"]), new ToolRegistry()).run("go", { history: "hello" as never })).rejects.toThrow(
      /history must be an array of messages/,
    );
  });
});

describe("resume in another process", () => {
  const run = promisify(execFile);
  const script = new URL("./fixtures/approval-process.mjs", import.meta.url).pathname;
  let folder: string | undefined;
  afterEach(async () => {
    if (folder) await rm(folder, { recursive: true, force: true });
  });

  it.each(["allow", "deny"])("a run interrupted in one process is resumed (%s) in a second, through a file", async (decision) => {
    folder = await mkdtemp(join(tmpdir(), "minagent-resume-"));
    const state = join(folder, "state.json");
    const log = join(folder, "tools.log");
    const first = await run(process.execPath, [script, "start", state, log], { timeout: 20_000 });
    expect(JSON.parse(first.stdout)).toEqual({ status: "interrupted", requests: 1 });
    expect(await readFile(log, "utf8")).toBe("list\n");

    const second = await run(process.execPath, [script, "resume", state, log, decision], { timeout: 20_000 });
    const { result, sent } = JSON.parse(second.stdout) as {
      result: RunResult;
      sent: { role: string; toolCallId?: string; content: string }[];
    };
    expect(await readFile(log, "utf8")).toBe(decision === "allow" ? "list\ndelete b.txt\n" : "list\n");
    expect(sent.filter((message) => message.role === "tool").map((message) => [message.toolCallId, message.content])).toEqual([
      ["call_list", "a.txt b.txt"],
      ["call_delete", decision === "allow" ? "deleted b.txt" : "The person said no."],
    ]);
    expect(result).toMatchObject({ status: "completed", final: "Done after 5 messages.", turns: 2 });
  });
});

it("leaving for-await over agent.stream() early cancels the run: no model call or tool starts afterwards", async () => {
  const executed = vi.fn(() => "ok");
  const registry = new ToolRegistry().add({ name: "step", description: "", parameters: { type: "object" }, execute: executed });
  // A model that streams a first delta, then takes a while before it asks for a tool, as real ones do.
  const calls: number[] = [];
  const model: Model = {
    complete: async (_messages, _tools, options) => {
      calls.push(calls.length);
      options?.onEvent?.({ type: "text-delta", text: "Let me think" });
      await new Promise((resolve) => setTimeout(resolve, 20));
      return reply("", toolCall("step", {}, `s${calls.length}`));
    },
  };
  const stream = new Agent(model, registry).stream("go");
  for await (const event of stream) if (event.type === "text-delta") break;
  await expect(stream.result).rejects.toThrow(/event stream was closed before the run ended/);
  await new Promise((resolve) => setTimeout(resolve, 50));
  expect(calls).toHaveLength(1);
  expect(executed).not.toHaveBeenCalled();
});
