import { describe, expect, it } from "vitest";
import type { AgentEvent } from "../../../src/core/events.js";
import { Agent, FakeModel, type Message, ToolRegistry } from "../../../src/index.js";
import { reply, toolCall, withUsage } from "../../../src/testing/index.js";
import { agentToolFor, GatedModel, until, worker } from "./helpers.js";

const startWorker = (prompt: string, id = "a1", subagent_type = "worker") =>
  toolCall("Agent", { description: "do the work", prompt, subagent_type }, id);
const toolResults = (messages: readonly Message[]) => messages.filter((message) => message.role === "tool");

describe("the Agent tool", () => {
  it("runs the subagent in a context of its own, with another model, and gives the parent only its final answer", async () => {
    const parentModel = new FakeModel([reply("Let me delegate.", startWorker("Find where X is handled.")), "X is handled in a.ts."]);
    const childModel = new FakeModel([reply("Searching.", toolCall("echo", { text: "search X" }, "e1")), "X is handled in a.ts, line 3."]);
    const resolved: string[] = [];
    const agentTool = agentToolFor(parentModel, {
      definitions: [worker({ model: "fake:child" })],
      resolveModel: (spec) => {
        resolved.push(spec);
        return childModel;
      },
    });
    const parent = new Agent(parentModel, new ToolRegistry().add(agentTool), { system: "You are the parent." });
    const result = await parent.run("Where is X handled?");

    expect(result.final).toBe("X is handled in a.ts.");
    expect(toolResults(result.messages).map((message) => message.content)).toEqual(["X is handled in a.ts, line 3."]);
    // Nothing of the child's work is in the parent's conversation.
    expect(JSON.stringify(result.messages)).not.toContain("echo: search X");
    // The child started from its own system prompt and the prompt alone, and had its own tools.
    const [first, second] = childModel.requests;
    expect(first?.messages.map((message) => message.role)).toEqual(["system", "user"]);
    expect(first?.messages[0]?.content).toMatch(/^You are a worker\.\n\nYou are a subagent/);
    expect(first?.messages[1]?.content).toBe("Find where X is handled.");
    expect(first?.tools.map((tool) => tool.name)).toEqual(["echo", "note", "Agent"]);
    expect(second?.messages.at(-1)?.content).toBe("echo: search X");
    expect(resolved).toEqual(["fake:child"]);
  });

  it("adds the subagent's usage to the parent's totals", async () => {
    const parentModel = new FakeModel([
      withUsage(reply("", startWorker("task")), { inputTokens: 100, outputTokens: 10 }),
      withUsage(reply("Done."), { inputTokens: 200, outputTokens: 20 }),
    ]);
    const childModel = new FakeModel([
      withUsage(reply("", toolCall("echo", { text: "x" })), { inputTokens: 30, outputTokens: 3, cacheReadTokens: 5 }),
      withUsage(reply("Child done."), { inputTokens: 40, outputTokens: 4 }),
    ]);
    const agentTool = agentToolFor(parentModel, { definitions: [worker({ model: "child" })], resolveModel: () => childModel });
    const result = await new Agent(parentModel, new ToolRegistry().add(agentTool)).run("Go.");
    expect(result.usage).toEqual({ inputTokens: 370, outputTokens: 37, cacheReadTokens: 5 });
  });

  it("nests the subagent's events under the parent's tool call (runId, parentRunId, parentToolCallId, name)", async () => {
    const model = new FakeModel([
      reply("", startWorker("task", "call-7")),
      reply("", toolCall("echo", { text: "x" }, "e1")),
      "Child done.",
      "Parent done.",
    ]);
    const events: AgentEvent[] = [];
    const agentTool = agentToolFor(model);
    const result = await new Agent(model, new ToolRegistry().add(agentTool), { onEvent: (event) => events.push(event) }).run("Go.");

    const starts = events.filter((event) => event.type === "run-start");
    expect(starts).toHaveLength(2);
    const [parentStart, childStart] = starts;
    expect(parentStart?.runId).toBe(result.runId);
    expect(childStart).toMatchObject({ parentRunId: result.runId, parentToolCallId: "call-7", name: "worker: do the work", input: "task" });
    const childRunId = childStart?.runId;
    expect(childRunId).not.toBe(result.runId);
    // The child's events sit between the parent's tool-call-start and tool-call-end of the Agent call.
    const kinds = events.map((event) => `${event.runId === result.runId ? "parent" : "child"} ${event.type}`);
    expect(kinds).toEqual([
      "parent run-start",
      "parent model-call-start",
      "parent model-call-end",
      "parent tool-call-start",
      "child run-start",
      "child model-call-start",
      "child model-call-end",
      "child tool-call-start",
      "child tool-call-end",
      "child model-call-start",
      "child model-call-end",
      "child run-end",
      "parent tool-call-end",
      "parent model-call-start",
      "parent model-call-end",
      "parent run-end",
    ]);
  });

  describe("limits", () => {
    it("does not give the Agent tool to a subagent at the depth limit; a direct call past it is an observation", async () => {
      // The main agent starts a worker (depth 1), which starts another (depth 2): that one is at maxDepth 2.
      const model = new FakeModel([
        reply("", startWorker("level 1", "p1")),
        reply("", startWorker("level 2", "c1")),
        reply("", toolCall("Agent", { description: "deeper", prompt: "level 3" }, "g1")),
        "Level 2 done.",
        "Level 1 done.",
        "Parent done.",
      ]);
      const agentTool = agentToolFor(model, { limits: { maxDepth: 2 } });
      const result = await new Agent(model, new ToolRegistry().add(agentTool)).run("Go.");
      expect(result.final).toBe("Parent done.");
      expect(model.requests.map((request) => request.tools.map((tool) => tool.name))).toEqual([
        ["Agent"],
        ["echo", "note", "Agent"],
        ["echo", "note"],
        ["echo", "note"],
        ["echo", "note", "Agent"],
        ["Agent"],
      ]);
      expect(model.requests[3]?.messages.at(-1)?.content).toMatch(/^Unknown tool "Agent"/);

      const none = agentToolFor(new FakeModel([]), { limits: { maxDepth: 0 } });
      const outcome = await new ToolRegistry().add(none).execute(startWorker("x"), {});
      expect(outcome).toMatchObject({
        isError: true,
        content: expect.stringMatching(/^No subagent was started: subagents may nest 0 levels deep/),
      });
    });

    it("runs at most maxConcurrent subagents at once across the session: the main agent's fifth waits for a slot", async () => {
      const childModel = new GatedModel();
      const calls = [1, 2, 3, 4, 5].map((n) => startWorker(`task ${n}`, `a${n}`));
      const parentModel = new FakeModel([reply("", ...calls), "All done."]);
      const agentTool = agentToolFor(parentModel, { definitions: [worker({ model: "gated" })], resolveModel: () => childModel });
      const running = new Agent(parentModel, new ToolRegistry().add(agentTool)).run("Five tasks.");

      await until(() => childModel.waiting === 4, "four subagents wait for their model");
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(childModel.started).toEqual(["task 1", "task 2", "task 3", "task 4"]);
      expect(agentTool.running).toBe(4);
      childModel.releaseOne();
      await until(() => childModel.started.length === 5, "the fifth starts once one finished");
      expect(agentTool.running).toBe(4);
      for (let n = 0; n < 4; n++) childModel.releaseOne();
      const result = await running;
      expect(childModel.maxActive).toBe(4);
      expect(agentTool.running).toBe(0);
      expect(toolResults(result.messages).map((message) => message.content)).toEqual([1, 2, 3, 4, 5].map((n) => `done: task ${n}`));
    });

    it("refuses a subagent's own subagent when no slot is free, with an observation (it would wait for its ancestors)", async () => {
      const model = new FakeModel([
        reply("", startWorker("outer", "p1")),
        reply("", startWorker("inner", "c1")),
        "Did it myself.",
        "Parent done.",
      ]);
      const agentTool = agentToolFor(model, { limits: { maxConcurrent: 1 } });
      const result = await new Agent(model, new ToolRegistry().add(agentTool)).run("Go.");
      expect(result.final).toBe("Parent done.");
      expect(model.requests[2]?.messages.at(-1)).toMatchObject({
        isError: true,
        content: expect.stringMatching(/^No subagent was started: 1 subagent is running already, the most the session runs at once/),
      });
      expect(toolResults(result.messages)[0]?.content).toBe("Did it myself.");
    });

    it("stops a subagent before a call that would pass its budget share, with an observation and its last words", async () => {
      let spent = 0;
      const budget = {
        remainingUsd: () => 1 - spent,
        costUsd: (usage: { inputTokens: number }) => usage.inputTokens * 0.001,
      };
      const parentModel = new FakeModel([reply("", startWorker("task")), "I will finish it myself."]);
      const childModel = new FakeModel([
        withUsage(reply("Looked at a.ts; b.ts next.", toolCall("echo", { text: "b.ts" })), { inputTokens: 300, outputTokens: 0 }),
        "never reached",
      ]);
      const agentTool = agentToolFor(parentModel, { definitions: [worker({ model: "child" })], resolveModel: () => childModel, budget });
      const parent = new Agent(parentModel, new ToolRegistry().add(agentTool), {
        onEvent: (event) => {
          if (event.type === "model-call-end") spent += (event.response.usage?.inputTokens ?? 0) * 0.001;
        },
      });
      const result = await parent.run("Go.");
      expect(result.status).toBe("completed");
      expect(childModel.requests).toHaveLength(1);
      const [observation] = toolResults(result.messages);
      expect(observation?.isError).toBe(true);
      expect(observation?.content).toBe(
        'The worker subagent ("do the work") was stopped before it finished: it has spent $0.3000, and its next model call would take it past its share of the budget ($0.5000, 50 % of the $1.00 left when it started).\n\nWhat it had written last:\nLooked at a.ts; b.ts next.\n\nUse what it found, or go on without it.',
      );
      // What it spent counts in the parent's usage.
      expect(result.usage.inputTokens).toBe(300);
    });

    it("stops a subagent at its token limit, and starts none once the session's budget is spent", async () => {
      const parentModel = new FakeModel([reply("", startWorker("task")), "ok"]);
      const childModel = new FakeModel([
        withUsage(reply("", toolCall("echo", { text: "x" })), { inputTokens: 60, outputTokens: 20 }),
        "never",
      ]);
      const agentTool = agentToolFor(parentModel, {
        definitions: [worker({ model: "child" })],
        resolveModel: () => childModel,
        limits: { maxTokens: 100 },
      });
      const result = await new Agent(parentModel, new ToolRegistry().add(agentTool)).run("Go.");
      expect(toolResults(result.messages)[0]?.content).toMatch(
        /stopped before it finished: it has used 80 tokens, and its next model call would take it past its limit of 100\.$/m,
      );

      const broke = agentToolFor(new FakeModel([]), { budget: { remainingUsd: () => 0, costUsd: () => 0 } });
      const outcome = await new ToolRegistry().add(broke).execute(startWorker("x"), {});
      expect(outcome).toMatchObject({ isError: true, content: "No subagent was started: the session's budget is spent." });
    });

    it("reports a subagent that runs out of steps, or whose model fails, as an observation; the parent goes on", async () => {
      const parentModel = new FakeModel([reply("", startWorker("loop", "a1"), startWorker("fail", "a2", "failing")), "Parent done."]);
      const looping = new FakeModel([reply("Step one.", toolCall("echo", { text: "1" })), reply("", toolCall("echo", { text: "2" }))]);
      const failing = { provider: "fake", modelId: "down", complete: () => Promise.reject(new Error("the model is overloaded")) };
      const agentTool = agentToolFor(parentModel, {
        definitions: [worker({ model: "looping" }), worker({ name: "failing", model: "failing" })],
        resolveModel: (spec) => (spec === "looping" ? looping : failing),
        limits: { maxSteps: 2 },
      });
      const result = await new Agent(parentModel, new ToolRegistry().add(agentTool)).run("Go.");
      expect(result.final).toBe("Parent done.");
      const [steps, failed] = toolResults(result.messages);
      expect(steps?.content).toBe(
        'The worker subagent ("do the work") was stopped before it finished: it reached its limit of 2 model calls.\n\nWhat it had written last:\nStep one.',
      );
      expect(failed?.content).toBe('The failing subagent ("do the work") failed: the model is overloaded');
    });

    it("aborts the subagent with its parent", async () => {
      const controller = new AbortController();
      const childModel = new GatedModel();
      const parentModel = new FakeModel([reply("", startWorker("task"))]);
      const agentTool = agentToolFor(parentModel, { definitions: [worker({ model: "gated" })], resolveModel: () => childModel });
      const running = new Agent(parentModel, new ToolRegistry().add(agentTool), { signal: controller.signal }).run("Go.");
      await until(() => childModel.waiting === 1, "the subagent waits for its model");
      controller.abort();
      await expect(running).rejects.toThrow(/aborted/);
      expect(agentTool.running).toBe(0);
    });
  });

  describe("read-only subagents", () => {
    it("run concurrently like read-only tools in a registry that orders effects; the Agent tool says which calls read only", async () => {
      const childModel = new GatedModel();
      const reader = worker({ name: "reader", tools: ["echo"], model: "gated" });
      const parentModel = new FakeModel([reply("", startWorker("one", "a1", "reader"), startWorker("two", "a2", "reader")), "ok"]);
      const onlyReaders = agentToolFor(parentModel, { definitions: [reader], resolveModel: () => childModel });
      expect(onlyReaders.readOnly).toBe(true);
      const running = new Agent(parentModel, new ToolRegistry({ orderEffects: true }).add(onlyReaders)).run("Go.");
      await until(() => childModel.waiting === 2, "both readers run at once");
      childModel.releaseOne();
      childModel.releaseOne();
      await running;
      expect(childModel.maxActive).toBe(2);

      const mixed = agentToolFor(parentModel, { definitions: [worker(), reader], resolveModel: () => childModel });
      expect(mixed.readOnly).toBe(false);
      expect(mixed.readOnlyCall({ subagent_type: "reader" })).toBe(true);
      expect(mixed.readOnlyCall({ subagent_type: "worker" })).toBe(false);
      expect(mixed.readOnlyCall({})).toBe(false); // the default type, worker
      expect(mixed.readOnlyCall({ subagent_type: "nobody" })).toBe(false);
    });
  });

  describe("permissions", () => {
    it("puts every call of the subagent through the session's canUseTool: a denied call is denied in the subagent", async () => {
      const notes: string[] = [];
      const model = new FakeModel([
        reply("", startWorker("task")),
        reply("", toolCall("note", { text: "hello" }, "n1")),
        "Could not write.",
        "ok",
      ]);
      const decided: { name: string; runId: string }[] = [];
      const agentTool = agentToolFor(
        model,
        {
          canUseTool: (call, { runId }) => {
            decided.push({ name: call.name, runId });
            return call.name === "note" ? { behavior: "deny", message: "Notes are forbidden here." } : { behavior: "allow" };
          },
        },
        notes,
      );
      const result = await new Agent(model, new ToolRegistry().add(agentTool)).run("Go.");
      expect(notes).toEqual([]);
      expect(model.requests[2]?.messages.at(-1)).toMatchObject({ role: "tool", content: "Notes are forbidden here.", isError: true });
      expect(decided.map((decision) => decision.name)).toEqual(["note"]);
      expect(decided[0]?.runId).not.toBe(result.runId); // the subagent's run, deciding with the session's check
    });

    it("asks a person through the session's check (the parent's askPerson); an ask nobody answers becomes a denial it reads", async () => {
      const notes: string[] = [];
      const asked: string[] = [];
      // CodingAgent's canUseTool with askPerson: the person is asked while the call waits, and answers.
      const model = new FakeModel([reply("", toolCall("note", { text: "approved" })), "Wrote it."]);
      const withPerson = agentToolFor(
        model,
        {
          canUseTool: async (call) => {
            asked.push(`${call.name} ${JSON.stringify(call.arguments)}`);
            return { behavior: "allow" };
          },
        },
        notes,
      );
      expect(await new ToolRegistry().add(withPerson).call(startWorker("task"), {})).toBe("Wrote it.");
      expect(asked).toEqual(['note {"text":"approved"}']);
      expect(notes).toEqual(["approved"]);

      // Without a person to ask, the session's check says "ask": the subagent is told it cannot wait for approval.
      const unanswered = new FakeModel([reply("", toolCall("note", { text: "x" })), "It needs approval."]);
      const noPerson = agentToolFor(unanswered, { canUseTool: () => ({ behavior: "ask", reason: "note changes files" }) }, notes);
      expect(await new ToolRegistry().add(noPerson).call(startWorker("task"), {})).toBe("It needs approval.");
      expect(unanswered.requests[1]?.messages.at(-1)?.content).toBe(
        "Permission needed: note changes files. The worker subagent cannot wait for the user's approval: do without this call, or end with a report saying it needs approval, so that the agent that started you can ask.",
      );
      expect(notes).toEqual(["approved"]);
    });
  });

  it("uses the host's system prompt and a prepareTurn of its own for each subagent; the default type when none is named", async () => {
    const model = new FakeModel(["First.", "Second."]);
    const prepared: string[] = [];
    const agentTool = agentToolFor(model, {
      definitions: [worker(), worker({ name: "other" })],
      systemPrompt: (definition) => `System of ${definition.name}`,
      prepareTurn: (definition) => {
        const turns: number[] = [];
        return ({ turn }) => {
          turns.push(turn);
          prepared.push(`${definition.name} ${turns.length}`);
        };
      },
    });
    const registry = new ToolRegistry().add(agentTool);
    await registry.call(toolCall("Agent", { description: "d", prompt: "p" }), {});
    await registry.call(toolCall("Agent", { description: "d", prompt: "p", subagent_type: "other" }), {});
    expect(model.requests.map((request) => request.messages[0]?.content)).toEqual(["System of worker", "System of other"]);
    expect(prepared).toEqual(["worker 1", "other 1"]);
  });

  it("reports a model that cannot be made as an observation, and tries again next time", async () => {
    let attempts = 0;
    const agentTool = agentToolFor(new FakeModel([]), {
      definitions: [worker({ model: "anthropic:claude-haiku-4-5" })],
      resolveModel: () => {
        attempts++;
        throw new Error("set the ANTHROPIC_API_KEY environment variable");
      },
    });
    const registry = new ToolRegistry().add(agentTool);
    for (const _ of [1, 2])
      expect(await registry.execute(startWorker("x"), {})).toEqual({
        isError: true,
        content:
          'No subagent was started: the model "anthropic:claude-haiku-4-5" of the worker subagent could not be made: set the ANTHROPIC_API_KEY environment variable',
      });
    expect(attempts).toBe(2);
    expect(agentTool.running).toBe(0);
  });

  it("lists its subagent types for /agents", () => {
    const agentTool = agentToolFor(new FakeModel([]), {
      definitions: [worker(), worker({ name: "reader", tools: ["echo"], model: "small", description: "Reads." })],
      resolveModel: () => new FakeModel([]),
      limits: { maxDepth: 1 },
    });
    expect(agentTool.subagents()).toEqual([
      {
        name: "worker",
        description: "Does the work.",
        tools: ["echo", "note"],
        model: "inherit",
        readOnly: false,
        source: "test",
        isDefault: true,
      },
      { name: "reader", description: "Reads.", tools: ["echo"], model: "small", readOnly: true, source: "test", isDefault: false },
    ]);
    expect(agentTool.description).toContain("- worker (default): Does the work.");
    expect(agentTool.description).toContain("- reader [read-only]: Reads.");
  });
});
