import { JsonLinesSessionStore, SessionRecorder } from "../../../src/code/sessions/index.js";
import { Agent, FakeModel, type FakeModelScriptItem, type Model, type ToolContext, ToolRegistry } from "../../../src/index.js";
import { reply, toolCall, withUsage } from "../../../src/testing/index.js";
import { JsonFileExporter } from "../../../src/trace/json-file-exporter.js";
import { Tracer } from "../../../src/trace/tracer.js";

/** A scripted model with a real model id, so that spans are named after it and priced. */
function scripted(modelId: string, script: readonly FakeModelScriptItem[]): Model {
  const fake = new FakeModel(script);
  return { provider: "anthropic", modelId, complete: (messages, tools, options) => fake.complete(messages, tools, options) };
}

/**
 * A clock that moves forward by a different but fixed amount at each reading (20 to 620 ms), so that a trace
 * drawn from it looks like a real run and is the same every time.
 */
function steppingClock(start: number): () => number {
  let now = start;
  let readings = 0;
  return () => {
    readings++;
    now += 20 + ((readings * 7919) % 600);
    return now;
  };
}

const wait = (milliseconds: number) => new Promise((resolve) => setTimeout(resolve, milliseconds));

/** A `weather` tool that takes a few milliseconds and fails for Atlantis, so calls overlap and one errs. */
function weatherRegistry(): ToolRegistry {
  return new ToolRegistry().add({
    name: "weather",
    description: "Current weather of a city",
    parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
    execute: async ({ city }) => {
      await wait(15);
      if (city === "Atlantis") throw new Error("no forecast for Atlantis");
      return `sunny, 24°C in ${city as string}`;
    },
  });
}

/**
 * Runs a real agent traced into `directory`: two parallel weather calls (one failing), then a `research`
 * call that runs a sub-agent as a child run (`agent.run(task, { parent: context })`), then an answer.
 * Returns the file written.
 */
export async function writeResearchTrace(directory: string, options: { question?: string; startTime?: number } = {}): Promise<string> {
  const { startTime } = options;
  // With a start time, a clock of its own and a file name without the random trace id: the same picture every run.
  const exporter = new JsonFileExporter(
    startTime === undefined
      ? { directory }
      : { directory, fileName: () => `${new Date(startTime).toISOString().replaceAll(":", "-")}-weather-bot.json` },
  );
  const tracer = new Tracer({ exporters: [exporter], ...(startTime !== undefined && { now: steppingClock(startTime) }) });
  const researcher = () =>
    new Agent(
      scripted("claude-haiku-4-5", [
        withUsage(reply("Looking up Paris.", toolCall("weather", { city: "Paris" }, "w3")), { inputTokens: 120, outputTokens: 14 }),
        withUsage(reply("Paris is sunny and mild."), { inputTokens: 160, outputTokens: 9 }),
      ]),
      weatherRegistry(),
    );
  const registry = weatherRegistry().add({
    name: "research",
    description: "Researches a topic with a sub-agent",
    parameters: { type: "object", properties: { topic: { type: "string" } }, required: ["topic"] },
    execute: async ({ topic }, context: ToolContext) => (await researcher().run(`Research ${topic as string}`, { parent: context })).final,
  });
  const model = scripted("claude-sonnet-4-5", [
    withUsage(
      {
        ...reply(
          "Checking both cities at once.",
          toolCall("weather", { city: "Beijing" }, "w1"),
          toolCall("weather", { city: "Atlantis" }, "w2"),
        ),
        message: {
          role: "assistant",
          content: "Checking both cities at once.",
          toolCalls: [toolCall("weather", { city: "Beijing" }, "w1"), toolCall("weather", { city: "Atlantis" }, "w2")],
          reasoning: [{ text: "The user wants two forecasts; I can ask for both in parallel." }],
        },
      },
      { inputTokens: 900, outputTokens: 60, cacheReadTokens: 512 },
    ),
    withUsage(reply("Atlantis has no forecast; let me research Paris instead.", toolCall("research", { topic: "Paris" }, "r1")), {
      inputTokens: 1100,
      outputTokens: 40,
    }),
    withUsage(reply("Beijing: sunny, 24°C. Atlantis: no forecast. Paris: sunny and mild."), { inputTokens: 1300, outputTokens: 30 }),
  ]);
  const agent = new Agent(model, registry, { onEvent: tracer.listener({ agentName: "weather-bot" }) });
  // A run attribute, as a durable run's workflow id: the viewer shows whatever the run span carries.
  await agent.run(options.question ?? "Compare the weather in Beijing, Atlantis and Paris", {
    attributes: { "dbos.workflow.id": "wf-7f3a" },
    ...(startTime !== undefined && { runId: "run_7d2c5e8a-weather-bot" }),
  });
  await tracer.flush();
  const file = exporter.written.at(-1);
  if (file === undefined) throw new Error("the tracer wrote no trace");
  return file;
}

/** A session being recorded: its file, and a way to go on with the conversation (a new prompt, a new run). */
export type RecordedSession = { file: string; continueWith: (prompt: string) => Promise<void> };

/**
 * Runs a real agent recorded by a `minagent code` session recorder (two prompts, a tool call and a failing one)
 * into a JsonLinesSessionStore under `home`. `continueWith` runs one more prompt into the same session file.
 */
export async function writeSession(home: string, options: { startTime?: number } = {}): Promise<RecordedSession> {
  const store = new JsonLinesSessionStore({ directory: home });
  const cwd = "/home/me/app";
  const { startTime } = options;
  const clock = startTime === undefined ? undefined : steppingClock(startTime);
  const recorder = new SessionRecorder({
    store,
    cwd,
    env: {},
    ...(clock && { now: () => new Date(clock()), sessionId: "3f0c9a4e-5b6d-4c7e-8f90-a1b2c3d4e5f6" }),
  });
  const model = scripted("claude-sonnet-4-5", [
    withUsage(
      reply("Checking both cities.", toolCall("weather", { city: "Oslo" }, "s1"), toolCall("weather", { city: "Atlantis" }, "s2")),
      {
        inputTokens: 400,
        outputTokens: 20,
      },
    ),
    withUsage(reply("Oslo is sunny; Atlantis has no forecast."), { inputTokens: 500, outputTokens: 12 }),
    withUsage(reply("You are welcome."), { inputTokens: 520, outputTokens: 5 }),
    withUsage(reply("Still sunny in Oslo."), { inputTokens: 540, outputTokens: 6 }),
  ]);
  const agent = new Agent(model, weatherRegistry());
  let history = (await agent.run("Weather in Oslo and Atlantis?", { onEvent: recorder.listen })).messages;
  history = (await agent.run("Thanks!", { history, onEvent: recorder.listen })).messages;
  return {
    file: store.sessionPath(cwd, recorder.sessionId),
    continueWith: async (prompt) => {
      history = (await agent.run(prompt, { history, onEvent: recorder.listen })).messages;
    },
  };
}
