// What tracing costs per agent run, off and on. Node 20 cannot run TypeScript, so compile first:
//   npx tsc -p bench/tsconfig.json && node node_modules/.cache/minagent-bench/bench/tracing-overhead.js
// The workload is the book's ReAct demo (3 model calls, 2 tool calls) on FakeModel, so the figures are
// the engine's own overhead: a real model call takes 10^5–10^6 times longer.
import { type Agent, FakeModel, ReActAgent, ToolRegistry } from "../src/index.js";
import { reply, toolCall, withUsage } from "../src/testing/index.js";
import { MemoryTraceExporter } from "../src/trace/memory-trace-exporter.js";
import { Tracer } from "../src/trace/tracer.js";

const registry = new ToolRegistry().add({
  name: "weather",
  description: "查询某城市当前天气",
  parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  execute: ({ city }) => (city === "北京" ? "晴 24°C" : "多云 27°C"),
});

const script = () => [
  withUsage(reply("Thought: 先查北京。", toolCall("weather", { city: "北京" }, "c1")), { inputTokens: 92, outputTokens: 31 }),
  withUsage(reply("Thought: 再查上海。", toolCall("weather", { city: "上海" }, "c2")), { inputTokens: 141, outputTokens: 29 }),
  withUsage(reply("北京晴 24°C，上海多云 27°C。"), { inputTokens: 188, outputTokens: 24 }),
];

type Setup = { name: string; agent: (model: FakeModel) => Agent };

// One exporter for all "on" runs; it is emptied after every round so memory stays flat.
const memory = new MemoryTraceExporter();
const tracer = new Tracer({ exporters: [memory] });
const quietTracer = new Tracer({ exporters: [memory], recordPayloads: false });

const setups: Setup[] = [
  { name: "off (no listener)", agent: (model) => new ReActAgent(model, registry) },
  { name: "off again (noise floor)", agent: (model) => new ReActAgent(model, registry) },
  // Any listener makes the model stream its deltas: this separates that cost from tracing's own.
  { name: "no-op listener", agent: (model) => new ReActAgent(model, registry, { onEvent: () => {} }) },
  { name: "on, payloads off", agent: (model) => new ReActAgent(model, registry, { onEvent: quietTracer.listener({ model }) }) },
  { name: "on (payloads, scrubbing)", agent: (model) => new ReActAgent(model, registry, { onEvent: tracer.listener({ model }) }) },
];

async function timeRuns(setup: Setup, runs: number): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < runs; i++) await setup.agent(new FakeModel(script())).run("对比北京和上海的天气");
  return ((performance.now() - started) / runs) * 1000; // microseconds per run
}

const runsPerRound = 400;
const rounds = 25;
for (const setup of setups) await timeRuns(setup, 1_000); // warm up the JIT on every path
const samples = new Map(setups.map((setup) => [setup.name, [] as number[]]));
for (let round = 0; round < rounds; round++) {
  // Interleaved, so drift (thermal, GC, other processes) hits every setup alike.
  for (const setup of setups) samples.get(setup.name)?.push(await timeRuns(setup, runsPerRound));
  memory.traces.length = 0;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};
const quartiles = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return [sorted[Math.floor(sorted.length / 4)] ?? Number.NaN, sorted[Math.floor((sorted.length * 3) / 4)] ?? Number.NaN];
};
const baseline = median(samples.get(setups[0]?.name ?? "") ?? []);
console.log(
  `Node ${process.version}; ${rounds} rounds × ${runsPerRound} runs of the ReAct demo per setup; µs per run (median, interquartile range)\n`,
);
for (const setup of setups) {
  const values = samples.get(setup.name) ?? [];
  const [low, high] = quartiles(values);
  const change = ((median(values) - baseline) / baseline) * 100;
  console.log(
    `${setup.name.padEnd(26)} ${median(values).toFixed(1).padStart(7)} µs  [${low?.toFixed(1)}–${high?.toFixed(1)}]  ${change >= 0 ? "+" : ""}${change.toFixed(1)}%`,
  );
}
