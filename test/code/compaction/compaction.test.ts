import { readFileSync } from "node:fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  type Compactor,
  type CompactorOptions,
  chainPrepareTurns,
  createCompactor,
  describeTodos,
} from "../../../src/code/compaction/index.js";
import { JsonLinesSessionStore, openSession, SessionRecorder } from "../../../src/code/sessions/index.js";
import type { AgentEvent } from "../../../src/core/events.js";
import type { Message, Model } from "../../../src/core/types.js";
import { AbortError, Agent, FakeModel, ToolRegistry } from "../../../src/index.js";
import { countRequestTokens, reply, toolCall, withTokenCounting, withUsage } from "../../../src/testing/index.js";
import { assertAnswered, makeTemporaryHome } from "../sessions/helpers.js";
import { codeText, personMessages, scriptRun, sessionTools, summarizer } from "./session-script.js";

type CompactionEvent = Extract<AgentEvent, { type: "compaction" }>;

/** A "provider" count that differs from the compactor's estimate (3 characters a token, not 4). */
const tokenize = (text: string) => Math.ceil(text.length / 3);
const window = 20_000;
const threshold = 16_000;
const memory = "Project memory: always run npm test before saying a change is done. Indent with two spaces.";
const prompts = [
  "Fix the failing test in src/math.js.",
  "Now make the parser accept hex numbers (0x1F), and keep decimals working exactly as before.",
  "Also: never touch the files under vendor/. Then tidy up part 3.",
  "Part 4 next, please. Use the same style as part 1.",
  "Finally part 5, and tell me what you changed overall.",
];

/** Runs the prompts one after another as one conversation; returns what the model was sent and what happened. */
async function runSession(options: {
  compactor: (model: Model, todos: () => string | undefined, permissions: () => string) => Compactor;
  turnsPerRun?: number;
  resultLength?: number;
}) {
  const { registry, todos } = sessionTools(options.resultLength ?? 6_000);
  const fake = new FakeModel(prompts.flatMap((_, run) => scriptRun(run + 1, options.turnsPerRun ?? 12, 800)));
  const model = withTokenCounting(fake, tokenize);
  let mode = "default";
  const permissions = () => `Permission mode: ${mode}\nRules — deny: Read(./.env); ask: none; allow: Bash(npm test)`;
  const compactor = options.compactor(model, () => describeTodos(todos.todos), permissions);
  const events: CompactionEvent[] = [];
  /** For each compaction: the index of the request it shaped, and the state that request must carry. */
  const compactions: { request: number; event: CompactionEvent; prompts: string[]; todos: string | undefined; permissions: string }[] = [];
  const written: string[] = [];
  const agent = new Agent(model, registry, {
    system: "You are a coding agent.",
    maxSteps: 50,
    prepareTurn: compactor,
    onEvent: (event) => {
      compactor.listen(event);
      if (event.type !== "compaction") return;
      events.push(event);
      compactions.push({
        request: fake.requests.length,
        event,
        prompts: [...written],
        todos: describeTodos(todos.todos),
        permissions: permissions(),
      });
    },
  });
  let history: Message[] | undefined;
  let usage = 0;
  for (const [index, prompt] of prompts.entries()) {
    if (index === 2) mode = "acceptEdits";
    written.push(prompt);
    const result = await agent.run(prompt, { history });
    expect(result.status).toBe("completed");
    history = result.messages;
    usage += result.usage.inputTokens;
  }
  return { fake, events, compactions, history: history ?? [], usage };
}

function defaultCompactor(overrides: Partial<CompactorOptions> = {}) {
  return (model: Model, todos: () => string | undefined, permissions: () => string) =>
    createCompactor({ model, contextWindow: window, summaryModel: summarizer(), memory: () => memory, todos, permissions, ...overrides });
}

describe("createCompactor in a long session", () => {
  it("compacts through both stages, several times, and every compaction keeps the person's messages, memory, permissions and todos verbatim", async () => {
    const { fake, events, compactions } = await runSession({ compactor: defaultCompactor() });
    const stages = events.map((event) => event.stage);
    expect(stages.filter((stage) => stage === "tool-results").length).toBeGreaterThanOrEqual(2);
    expect(stages.filter((stage) => stage === "summary").length).toBeGreaterThanOrEqual(2);
    expect(events.every((event) => event.error === undefined && event.tokensAfter < event.tokensBefore)).toBe(true);

    for (const { request, prompts: written, todos, permissions } of compactions) {
      const messages = fake.requests[request]?.messages ?? [];
      // Every message the person wrote, verbatim, in order, as their own messages.
      expect(personMessages(messages)).toEqual(written);
      // The state message follows the system prompt and carries the pinned state verbatim.
      expect(messages[0]).toEqual({ role: "system", content: "You are a coding agent." });
      const state = messages[1]?.content ?? "";
      expect(state.startsWith("<compaction-state>")).toBe(true);
      expect(state).toContain(memory);
      expect(state).toContain(permissions);
      expect(todos && state.includes(todos)).toBe(true);
      assertAnswered(messages);
    }
    // The permission mode changed before the third prompt: later compactions carry the new one.
    expect(compactions.at(-1)?.permissions).toContain("acceptEdits");
    // The summary message follows the state message after a summary, and stays there after later stage-1 compactions.
    const summarized = compactions.find(({ event }) => event.stage === "summary");
    expect(fake.requests[summarized?.request ?? -1]?.messages[2]?.content).toMatch(/^<compaction-summary>\n[\s\S]*## Current step/);

    // Every request stayed under the threshold, counted the provider's way (not the compactor's estimate).
    const sent = fake.requests.map((request) => countRequestTokens(request.messages, request.tools, tokenize));
    expect(Math.max(...sent)).toBeLessThanOrEqual(threshold);
  });

  it("without compaction the same session's requests grow past the window", async () => {
    const { fake } = await runSession({ compactor: () => Object.assign(() => undefined, { listen: () => {} }) as unknown as Compactor });
    const sent = fake.requests.map((request) => countRequestTokens(request.messages, request.tools, tokenize));
    expect(Math.max(...sent)).toBeGreaterThan(4 * window);
  });

  it("stage 1 leaves the most recent results intact and puts a placeholder naming the call in the others", async () => {
    const { fake, compactions } = await runSession({ compactor: defaultCompactor({ keepToolResults: 2 }) });
    // The first compaction that was stage 1 alone (no summary before the same request).
    const first = compactions.find(
      ({ event, request }) =>
        event.stage === "tool-results" && !compactions.some((other) => other.request === request && other.event.stage === "summary"),
    );
    const messages = fake.requests[first?.request ?? -1]?.messages ?? [];
    const results = messages.filter((message) => message.role === "tool");
    const cleared = results.filter((message) => message.content.startsWith("[Result cleared to save context]"));
    // The two most recent, and the small ones (TodoWrite's, Write's), are as they were.
    expect(results.slice(-2).every((message) => !cleared.includes(message))).toBe(true);
    expect(cleared.length).toBeGreaterThan(0);
    expect(cleared.every((message) => message.content.length < 300)).toBe(true);
    expect(cleared[0]?.content).toMatch(
      /^\[Result cleared to save context\] (Read\(\{"file_path":"src\/part\d-\d+\.js"\}\)|Bash\(\{"command":"npm test -- part\d-\d+"\}\)) returned 6,\d{3} characters\. Call it again if you need them\.$/,
    );
    // The calls stay.
    const calls = messages.flatMap((message) => message.toolCalls ?? []).map((call) => call.id);
    expect(cleared.every((message) => calls.includes(message.toolCallId ?? ""))).toBe(true);
  });
});

describe("failure, no loop, manual compaction", () => {
  it("a summary call that throws leaves the conversation as it was (but for stage 1) and says so; stage 1 goes on alone meanwhile", async () => {
    const summaries = summarizer({ failures: 1 });
    const { events, fake } = await runSession({ compactor: defaultCompactor({ summaryModel: summaries }) });
    const failed = events.filter((event) => event.error !== undefined);
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({
      stage: "summary",
      error: "the summary call failed (overloaded); the conversation goes on with only old tool results cleared",
    });
    expect(failed[0]?.tokensAfter).toBe(failed[0]?.tokensBefore);
    // After the failure, stage 1 works alone while it gets under the threshold; the summary is tried again (and
    // made) only when it does not.
    const after = events.slice(events.indexOf(failed[0] as CompactionEvent) + 1);
    const nextSummary = after.findIndex((event) => event.stage === "summary");
    expect(nextSummary).toBeGreaterThan(1);
    expect(after.slice(0, nextSummary - 1).every((event) => event.stage === "tool-results" && event.tokensAfter < threshold)).toBe(true);
    expect(after[nextSummary - 1]?.tokensAfter).toBeGreaterThanOrEqual(threshold);
    expect(after[nextSummary]?.error).toBeUndefined();
    // The session completed, each request under the threshold all the same.
    expect(fake.remaining).toBe(0);
    const sent = fake.requests.map((request) => countRequestTokens(request.messages, request.tools, tokenize));
    expect(Math.max(...sent)).toBeLessThanOrEqual(threshold);
  });

  it("summaries that always fail are tried less and less often, not every turn", async () => {
    const summaries = summarizer({ failures: 50 });
    const { compactions, fake } = await runSession({ compactor: defaultCompactor({ summaryModel: summaries }) });
    const attempts = compactions.filter(({ event }) => event.stage === "summary");
    expect(attempts.every(({ event }) => event.error?.startsWith("the summary call failed (overloaded)"))).toBe(true);
    expect(summaries.requests).toHaveLength(attempts.length);
    // After the first failure, stage 1 works alone while it can (the first gap); once the context stays above the
    // threshold, each attempt waits for twice the growth the one before waited for: the gaps grow.
    const gaps = attempts.slice(1).map(({ request }, index) => request - (attempts[index]?.request ?? 0));
    expect(gaps.length).toBeGreaterThanOrEqual(4);
    expect(gaps.every((gap) => gap >= 2)).toBe(true);
    const stalledGaps = gaps.slice(1);
    expect(stalledGaps.every((gap, index) => index === 0 || gap >= (stalledGaps[index - 1] ?? 0))).toBe(true);
    expect(stalledGaps.at(-1)).toBeGreaterThan(3 * (stalledGaps[0] ?? 0));
    expect(attempts.length).toBeLessThan(fake.requests.length / 8);
  });

  it("a compaction that cannot get under the threshold is reported once, and not repeated every turn", async () => {
    const summaries = summarizer();
    const fake = new FakeModel([
      ...Array.from({ length: 3 }, (_, turn) => reply(`look ${turn}`, toolCall("Read", { file_path: `a${turn}` }, `a${turn}`))),
      "Looked.",
      ...Array.from({ length: 8 }, (_, turn) => reply(`step ${turn}`, toolCall("Read", { file_path: `b${turn}` }, `b${turn}`))),
      "Done.",
    ]);
    const model = withTokenCounting(fake, tokenize);
    const compactor = createCompactor({ model, contextWindow: window, summaryModel: summaries });
    const events: CompactionEvent[] = [];
    const agent = new Agent(model, sessionTools(400).registry, {
      maxSteps: 20,
      prepareTurn: compactor,
      onEvent: (event) => {
        compactor.listen(event);
        if (event.type === "compaction") events.push(event);
      },
    });
    const first = await agent.run("Look around.");
    expect(events).toEqual([]);
    // The person's next message alone is above the threshold: a summary cannot free it.
    const huge = codeText(7, 60_000);
    const result = await agent.run(huge, { history: first.messages });
    expect(result.status).toBe("completed");
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ stage: "summary", turn: 0, error: expect.stringMatching(/above the threshold/) });
    expect(events[0]?.tokensAfter).toBeLessThan(events[0]?.tokensBefore as number);
    expect(summaries.requests).toHaveLength(1);
    expect(personMessages(fake.requests.at(-1)?.messages ?? [])).toEqual(["Look around.", huge]);
  });

  it("compactNow(focus) compacts at the next turn, whatever the size, with the focus in the summary request", async () => {
    const summaries = summarizer();
    const fake = new FakeModel([reply("Reading.", toolCall("Read", { file_path: "a.js" }, "r1")), "Read it.", "Sure."]);
    const compactor = createCompactor({ model: fake, contextWindow: 200_000, summaryModel: summaries });
    const events: CompactionEvent[] = [];
    const agent = new Agent(fake, sessionTools(2_000).registry, {
      prepareTurn: compactor,
      onEvent: (event) => event.type === "compaction" && events.push(event),
    });
    const first = await agent.run("Read a.js");
    expect(events).toEqual([]);
    compactor.compactNow("  the parser bug  ");
    const second = await agent.run("What next?", { history: first.messages });
    // The results are small (nothing for stage 1): the summary is made all the same.
    expect(events.map((event) => [event.stage, event.error])).toEqual([["summary", undefined]]);
    const prompt = summaries.requests[0]?.messages.at(-1)?.content ?? "";
    expect(prompt).toContain("The user asked that the summary focus on: the parser bug");
    expect(prompt).toMatch(
      /## Task[\s\S]*## Decisions[\s\S]*## Files touched[\s\S]*## Errors and fixes[\s\S]*## Pending[\s\S]*## Current step/,
    );
    expect(summaries.requests[0]?.tools).toEqual([]);
    // The new prompt is the recent part; the first prompt is carried verbatim after the summary.
    const sent = fake.requests[2]?.messages ?? [];
    expect(sent.map((message) => message.content.slice(0, 20))).toEqual([
      "<compaction-state>\nT",
      "<compaction-summary>",
      "Read a.js",
      "What next?",
    ]);
    expect(second.messages.slice(0, 4)).toEqual(sent);
    // The flag is spent: the turn after is not compacted again.
    await agent.run("Thanks", { history: second.messages }).catch(() => undefined);
    expect(events).toHaveLength(1);
  });

  it("an abort during the summary call rejects the run with an AbortError", async () => {
    const controller = new AbortController();
    const summaries = new FakeModel([
      () => {
        controller.abort();
        return reply("never used");
      },
    ]);
    const fake = new FakeModel([reply("Reading.", toolCall("Read", { file_path: "a.js" }, "r1")), "Read it."]);
    const compactor = createCompactor({ model: fake, summaryModel: summaries, contextWindow: 200_000 });
    const agent = new Agent(fake, sessionTools(2_000).registry, { prepareTurn: compactor });
    const first = await agent.run("Read a.js");
    compactor.compactNow();
    await expect(agent.run("Next", { history: first.messages, signal: controller.signal })).rejects.toBeInstanceOf(AbortError);
  });
});

describe("usage and measurement", () => {
  it("the summary call is a child run named compaction: its tokens count in the run's usage", async () => {
    const summaries = summarizer({ usage: { inputTokens: 1_000, outputTokens: 200 } });
    const fake = new FakeModel([
      withUsage(reply("Reading.", toolCall("Read", { file_path: "a.js" }, "r1")), { inputTokens: 100, outputTokens: 10 }),
      withUsage(reply("Reading more.", toolCall("Read", { file_path: "b.js" }, "r2")), { inputTokens: 400, outputTokens: 10 }),
      withUsage(reply("Done."), { inputTokens: 600, outputTokens: 5 }),
    ]);
    const compactor = createCompactor({ model: fake, summaryModel: summaries, contextWindow: 200_000 });
    const events: AgentEvent[] = [];
    const agent = new Agent(fake, sessionTools(2_000).registry, {
      prepareTurn: compactor,
      onEvent: (event) => {
        events.push(event);
        // The person types /compact while the second call runs.
        if (event.type === "tool-call-end" && event.toolCall.id === "r2") compactor.compactNow();
      },
    });
    const result = await agent.run("Read a.js and b.js");
    expect(result.usage).toEqual({ inputTokens: 2_100, outputTokens: 225 });
    expect(events.filter((event) => event.type === "compaction")).toMatchObject([{ turn: 2, stage: "summary" }]);
    const child = events.find((event) => event.type === "run-start" && event.name === "compaction");
    expect(child).toMatchObject({ parentRunId: result.runId });
    expect(events.find((event) => event.type === "run-end" && event.runId === child?.runId)).toMatchObject({
      usage: { inputTokens: 1_000, outputTokens: 200 },
    });
  });

  it("compactNow with nothing to summarise says so, once", async () => {
    const summaries = summarizer();
    const fake = new FakeModel(["Hello.", "Again."]);
    const compactor = createCompactor({ model: fake, summaryModel: summaries });
    const events: CompactionEvent[] = [];
    const agent = new Agent(fake, new ToolRegistry(), {
      prepareTurn: compactor,
      onEvent: (event) => event.type === "compaction" && events.push(event),
    });
    compactor.compactNow();
    const first = await agent.run("Hi");
    await agent.run("Hi again", { history: first.messages });
    expect(events).toMatchObject([{ turn: 0, stage: "summary", error: expect.stringMatching(/^nothing to summarise/) }]);
    expect(summaries.requests).toEqual([]);
  });

  it("measures from the provider's count of the last call plus an estimate of what was added (with or without the listener)", async () => {
    const system = "s".repeat(16_000);
    for (const listening of [true, false]) {
      const measured: number[] = [];
      const fake = new FakeModel([
        withUsage(reply("a", toolCall("Read", { file_path: "x" }, "r1")), { inputTokens: 5_000, outputTokens: 1 }),
        withUsage(reply("b", toolCall("Read", { file_path: "y" }, "r2")), { inputTokens: 7_000, outputTokens: 1 }),
        "c",
      ]);
      const compactor = createCompactor({ model: fake, contextWindow: 200_000 });
      const registry = sessionTools(4_000).registry;
      const agent = new Agent(fake, registry, {
        system,
        prepareTurn: async (context) => {
          await compactor(context);
          measured.push(compactor.contextTokens ?? -1);
        },
        ...(listening && { onEvent: compactor.listen }),
      });
      await agent.run("go");
      // Before any count: the estimate (characters / 4, and 3 tokens a message and a call).
      expect(measured[0]).toBe(3 + 4_000 + 3 + 1);
      // Then the count for what call 1 was sent, plus what was added since (the reply and its result): estimated,
      // at the ratio of count to estimate seen on call 1 (the tool schemas' estimate set apart, when the listener
      // heard them), and taken 15 % high.
      const schemas = listening ? Math.ceil(JSON.stringify(registry.schemas()).length / 4) : 0;
      const ratio = (5_000 - schemas) / (measured[0] as number);
      const added = (fake.requests[1]?.messages ?? []).slice(2);
      expect(added.map((message) => message.role)).toEqual(["assistant", "tool"]);
      const addedEstimate = 3 + 1 + 3 + 1 + Math.ceil(JSON.stringify({ file_path: "x" }).length / 4) + 3 + 1_000;
      expect(measured[1]).toBe(5_000 + Math.ceil(1.15 * ratio * addedEstimate));
      const secondRatio = (7_000 - schemas) / ((measured[0] as number) + addedEstimate);
      expect(measured[2]).toBe(7_000 + Math.ceil(1.15 * secondRatio * addedEstimate));
    }
  });

  it("a sub-agent's calls heard by the listener do not move the measure", async () => {
    const child = new Agent(new FakeModel([withUsage(reply("child"), { inputTokens: 90_000, outputTokens: 1 })]), new ToolRegistry());
    const registry = new ToolRegistry().add({
      name: "Delegate",
      description: "Runs a sub-agent",
      parameters: { type: "object", properties: {} },
      execute: async (_args, context) => (await child.run("sub-task", { parent: context })).final,
    });
    const fake = new FakeModel([
      withUsage(reply("", toolCall("Delegate", {}, "d1")), { inputTokens: 1_000, outputTokens: 1 }),
      withUsage(reply("done"), { inputTokens: 1_010, outputTokens: 1 }),
    ]);
    const compactor = createCompactor({ model: fake, contextWindow: 100_000 });
    const measured: number[] = [];
    const result = await new Agent(fake, registry, {
      prepareTurn: async (context) => {
        await compactor(context);
        measured.push(compactor.contextTokens ?? -1);
      },
      onEvent: compactor.listen,
    }).run("delegate it");
    expect(result.usage.inputTokens).toBe(92_010);
    expect(measured[1]).toBeLessThan(1_100);
  });
});

describe("sessions", () => {
  let home: ReturnType<typeof makeTemporaryHome>;
  let store: JsonLinesSessionStore;
  beforeEach(() => {
    home = makeTemporaryHome();
    store = new JsonLinesSessionStore({ directory: home.directory });
  });
  afterEach(() => home.remove());

  it("the file keeps the full history; loading gives the compacted view; a resumed session goes on from it", async () => {
    const { registry } = sessionTools(6_000);
    const fake = new FakeModel(scriptRun(1, 14, 800));
    const model = withTokenCounting(fake, tokenize);
    const compactor = createCompactor({
      model,
      contextWindow: window,
      summaryModel: summarizer({ usage: { inputTokens: 900, outputTokens: 90 } }),
      target: 0.2,
    });
    const recorder = new SessionRecorder({ store, cwd: home.cwd, env: {} });
    const events: CompactionEvent[] = [];
    const agent = new Agent(model, registry, {
      system: "sys",
      maxSteps: 50,
      prepareTurn: compactor,
      onEvent: (event) => {
        compactor.listen(event);
        recorder.listen(event);
        if (event.type === "compaction") events.push(event);
      },
    });
    const result = await agent.run(prompts[0] as string);
    expect(events.map((event) => event.stage)).toContain("summary");
    const loaded = await store.load(recorder.sessionId);
    expect(loaded.messages).toEqual(result.messages);
    expect(loaded.compactions).toBeGreaterThanOrEqual(1);
    expect(loaded.usage).toEqual(result.usage);
    // The full results are still in the file, before the compaction lines.
    const lines = readFileSync(store.sessionPath(home.cwd, recorder.sessionId), "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    const firstCompaction = lines.findIndex((line) => line.type === "compaction");
    const fullResults = lines
      .slice(0, firstCompaction)
      .filter((line) => line.type === "message" && line.message.role === "tool" && line.message.content.length >= 6_000);
    expect(fullResults.length).toBeGreaterThanOrEqual(3);
    expect(loaded.messages.some((message) => message.content === fullResults[0].message.content)).toBe(false);

    // Resume in a "new process": a new compactor, and the conversation goes on from the compacted view.
    const opened = await openSession(store, { resume: recorder.sessionId, env: {} });
    const next = new FakeModel(["Going on."]);
    const resumed = createCompactor({ model: next, contextWindow: window });
    await new Agent(next, registry, { prepareTurn: resumed }).run("Carry on", { history: opened.history, onEvent: opened.recorder.listen });
    expect(next.requests[0]?.messages).toEqual([...result.messages, { role: "user", content: "Carry on" }]);
    expect(next.requests[0]?.messages[1]?.content).toMatch(/^<compaction-state>/);
    expect(personMessages(next.requests[0]?.messages ?? [])).toEqual([prompts[0], "Carry on"]);
    expect((await store.load(recorder.sessionId)).messages.at(-1)).toEqual({ role: "assistant", content: "Going on." });
  });
});

describe("chainPrepareTurns", () => {
  it("runs each in order on the conversation the ones before left; later tools and toolChoice win", async () => {
    const seen: number[] = [];
    const chained = chainPrepareTurns(
      ({ messages }) => ({ messages: [...messages, { role: "user", content: "memory" }], tools: ["Read"] }),
      undefined,
      ({ messages }) => {
        seen.push(messages.length);
        return { toolChoice: "auto" };
      },
    );
    const fake = new FakeModel(["ok"]);
    const result = await new Agent(fake, sessionTools(10).registry, { prepareTurn: chained }).run("hi");
    expect(seen).toEqual([2]);
    expect(fake.requests[0]?.messages.map((message) => message.content)).toEqual(["hi", "memory"]);
    expect(fake.requests[0]?.tools.map((tool) => tool.name)).toEqual(["Read"]);
    expect(fake.requests[0]?.toolChoice).toBe("auto");
    expect(result.final).toBe("ok");
  });
});
