// npm run bench:patterns — what each reasoning pattern costs in model calls and tokens, on scripted tasks.
// Tokens are counted with the real o200k_base tokenizer over what each request sends (messages + tool schemas)
// and each reply, so the figures are comparable offline. Run `npm run build` first (the npm script does).
import { Agent, FakeModel, PlanAndSolveAgent, ReActAgent, ReflexionAgent, ToolRegistry } from "../dist/index.js";
import { loadO200kTokenizer, reply, toolCall, withTokenCounting } from "../dist/testing/index.js";

const facts = {
  北京: "晴 24°C",
  上海: "多云 27°C",
  "population:Vienna": "2.0M",
  "population:Graz": "0.3M",
  "population:Linz": "0.2M",
  "population:Salzburg": "0.16M",
  "population:Innsbruck": "0.13M",
};

function registry() {
  return new ToolRegistry()
    .add({
      name: "weather",
      description: "Current weather of a city",
      parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
      execute: ({ city }) => facts[city] ?? "unknown",
    })
    .add({
      name: "lookup",
      description: "Looks up a fact by key, e.g. population:Vienna",
      parameters: { type: "object", properties: { key: { type: "string" } }, required: ["key"] },
      execute: ({ key }) => facts[key] ?? "unknown",
    })
    .add({
      name: "multiply",
      description: "Multiplies two numbers",
      parameters: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] },
      execute: ({ a, b }) => a * b,
    });
}

// A task is its tool turns (each with the thought a ReAct model would write), the plan steps a planner would write,
// and the final answer. Task 3 also has a first attempt that fails.
const tasks = [
  {
    name: "two-city weather comparison (book 5.1.4)",
    input: "对比北京和上海的天气",
    plan: ["查北京天气", "查上海天气", "对比并回答"],
    turns: [
      { thought: "Thought: 用户要比两城天气，先查北京。", calls: [["weather", { city: "北京" }]] },
      { thought: "Thought: 北京拿到了，再查上海。", calls: [["weather", { city: "上海" }]] },
    ],
    final: "北京晴 24°C，上海多云 27°C，两地都适合出行。",
  },
  {
    name: "multi-step lookup (5 tool calls)",
    input: "What is the total population of Austria's five largest cities?",
    plan: ["Look up Vienna", "Look up Graz", "Look up Linz", "Look up Salzburg", "Look up Innsbruck", "Add them up"],
    turns: ["Vienna", "Graz", "Linz", "Salzburg", "Innsbruck"].map((city, i) => ({
      thought: `Thought: I have ${i} of the five populations; next I need ${city}'s, so I will look it up before adding anything.`,
      calls: [["lookup", { key: `population:${city}` }]],
    })),
    final: "About 2.79 million people live in the five largest cities.",
  },
  {
    name: "fails once, then succeeds",
    input: "What is 17 × 23?",
    plan: ["Multiply 17 by 23 with the tool", "Report the product"],
    turns: [
      { thought: "Thought: I will multiply, passing the numbers as text.", calls: [["multiply", { a: "17", b: "23" }]] },
      { thought: "Thought: The tool wants numbers, not strings. Retrying with numbers.", calls: [["multiply", { a: 17, b: 23 }]] },
    ],
    final: "17 × 23 = 391",
    // Reflexion's version of the failure: a first trial that guesses, judged wrong, then a reflection.
    failedAttempt: "17 × 23 = 381",
    reflection: "I answered from memory and got it wrong. Next time I will use the multiply tool with numeric arguments.",
  },
];

function toolTurns(task, withThoughts, turns = task.turns) {
  return turns.map((turn, t) =>
    reply(withThoughts ? turn.thought : "", ...turn.calls.map(([name, args], c) => toolCall(name, args, `call_${t}_${c}`))),
  );
}

function scriptFor(pattern, task) {
  switch (pattern) {
    case "Agent":
      return [...toolTurns(task, false), task.final];
    case "ReActAgent":
      return [...toolTurns(task, true), task.final];
    case "PlanAndSolveAgent":
      // The planner writes its plan with the write_plan tool, which its first turn must call.
      return [reply("", toolCall("write_plan", { steps: task.plan }, "plan")), ...toolTurns(task, false), task.final];
    case "ReflexionAgent":
      // Reflexion retries whole trials instead of recovering inside one: a failing trial, a reflection, a clean trial.
      return task.failedAttempt
        ? [task.failedAttempt, task.reflection, ...toolTurns(task, false, task.turns.slice(1)), task.final]
        : [...toolTurns(task, false), task.final];
  }
}

function agentFor(pattern, model, task) {
  const options = { system: "You are a helpful assistant. Use the tools.", maxSteps: 10 };
  switch (pattern) {
    case "Agent":
      return new Agent(model, registry(), options);
    case "ReActAgent":
      return new ReActAgent(model, registry(), { ...options, system: `${options.system} Think before you act.` });
    case "PlanAndSolveAgent":
      return new PlanAndSolveAgent(model, registry(), options);
    case "ReflexionAgent":
      return new ReflexionAgent(model, registry(), {
        ...options,
        evaluate: (result) => ({ pass: result.final === task.final, feedback: "Wrong product." }),
      });
  }
}

const patterns = ["Agent", "ReActAgent", "PlanAndSolveAgent", "ReflexionAgent"];
const tokenizer = await loadO200kTokenizer();
const lines = [`# Reasoning patterns: model calls and tokens (o200k_base), scripted runs — ${new Date().toISOString().slice(0, 10)}`, ""];
for (const task of tasks) {
  lines.push(
    `## ${task.name}`,
    "",
    "| pattern | model calls | input tokens | output tokens | total | × Agent |",
    "| --- | ---: | ---: | ---: | ---: | ---: |",
  );
  let baseline;
  for (const pattern of patterns) {
    const fake = new FakeModel(scriptFor(pattern, task));
    const result = await agentFor(pattern, withTokenCounting(fake, tokenizer), task).run(task.input);
    if (result.final !== task.final) throw new Error(`${pattern} did not finish "${task.name}" (final: ${JSON.stringify(result.final)})`);
    if (fake.remaining !== 0) throw new Error(`${pattern} left ${fake.remaining} scripted replies unused on "${task.name}"`);
    const total = result.usage.inputTokens + result.usage.outputTokens;
    baseline ??= total;
    lines.push(
      `| ${pattern} | ${fake.requests.length} | ${result.usage.inputTokens} | ${result.usage.outputTokens} | ${total} | ${(total / baseline).toFixed(2)} |`,
    );
  }
  lines.push("");
}
console.log(lines.join("\n"));
