// One framework × one scenario in a fresh process: `node --expose-gc bench/worker.mjs <framework> <scenario> '<settings json>'`.
// Prints one JSON line: the figures, or { error } when a run failed its verification (exit code 1).

import { startChatCompletionsServer } from "./chat-completions-server.mjs";
import { findFramework } from "./frameworks.mjs";
import { parallelWorkload, scriptWeatherTurns, sequentialWorkload, VerificationError, weatherTools, wireInput } from "./workload.mjs";

const [frameworkId, scenario, settingsJson = "{}"] = process.argv.slice(2);
const settings = JSON.parse(settingsJson);
const framework = findFramework(frameworkId);
const adapter = await import(framework.module);
const create = (options) => adapter.create({ ...options, variant: framework.variant });

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

async function runVerified(agent, workload) {
  workload.reset();
  const { final, result } = await agent.run("Do the task.");
  const problem = workload.verify(final);
  if (problem) throw new VerificationError(`${framework.id}: ${problem}`);
  return result;
}

/** S1: per-step time of n sequential tool turns then an answer, after warm-up; a step is one turn (model call + its tool call). */
async function measureSequential(n) {
  const workload = sequentialWorkload(n);
  const agent = await create({ tools: workload.tools, respond: workload.respond, maxSteps: n + 2 });
  // Warm-up: at least `warmupRuns` runs and `warmupMs`, within `warmupCapMs`, so the JIT has settled on every path.
  const warmStart = performance.now();
  let warmRuns = 0;
  while (warmRuns < settings.warmupRuns || (performance.now() - warmStart < settings.warmupMs && warmRuns < 10_000)) {
    await runVerified(agent, workload);
    warmRuns++;
    if (performance.now() - warmStart > settings.warmupCapMs) break;
  }
  const runMs = (performance.now() - warmStart) / warmRuns;
  // A sample is a batch of runs lasting about `sampleMs`, so that fast runs are not lost in timer resolution.
  const batch = Math.max(1, Math.min(20_000, Math.round(settings.sampleMs / runMs)));
  // Runs of seconds (the slow peers at N = 500) get fewer samples, so the whole bench stays within minutes.
  const sampleCount = runMs > settings.slowRunMs ? Math.min(settings.samples, settings.slowSamples) : settings.samples;
  const samples = [];
  for (let sample = 0; sample < sampleCount; sample++) {
    const start = performance.now();
    for (let run = 0; run < batch; run++) await runVerified(agent, workload);
    samples.push(((performance.now() - start) * 1000) / (batch * (n + 1)));
  }
  return {
    n,
    perStepUs: median(samples),
    minUs: Math.min(...samples),
    maxUs: Math.max(...samples),
    samples: samples.length,
    batch,
    verifiedRuns: warmRuns + batch * samples.length,
  };
}

/** S2: `calls` tools of `toolMs` each in one turn; overhead is the wall time beyond the tool's duration. */
async function measureParallel() {
  const { calls, toolMs } = settings;
  const workload = parallelWorkload(calls, toolMs);
  const agent = await create({ tools: workload.tools, respond: workload.respond, maxSteps: 4 });
  for (let run = 0; run < settings.warmupRuns; run++) await runVerified(agent, workload);
  const overTool = [];
  const overSlowest = [];
  let concurrency = calls;
  for (let run = 0; run < settings.samples; run++) {
    const start = performance.now();
    await runVerified(agent, workload);
    const wall = performance.now() - start;
    overTool.push(wall - toolMs);
    overSlowest.push(wall - workload.state.slowest);
    concurrency = Math.min(concurrency, workload.state.maxInFlight);
  }
  return {
    calls,
    toolMs,
    overheadMs: median(overTool),
    overheadBeyondSlowestMs: median(overSlowest),
    maxConcurrent: concurrency,
    samples: overTool.length,
  };
}

/** S3: every request body a framework sends to a local Chat Completions server for 3 tool turns then an answer. */
async function captureWire() {
  if (!adapter.createWire) throw new Error(`${framework.id} has no S3 adapter`);
  const { turns, modelId } = settings;
  const counter = { toolRuns: 0 };
  const server = await startChatCompletionsServer(scriptWeatherTurns(turns));
  try {
    const agent = await adapter.createWire({
      baseURL: `${server.url}/v1`,
      tools: weatherTools(counter),
      maxSteps: turns + 2,
      modelId,
      variant: framework.variant,
    });
    const { final } = await agent.run(wireInput);
    const problems = [];
    if (counter.toolRuns !== turns) problems.push(`tool executed ${counter.toolRuns} times, expected ${turns}`);
    if (server.requests.length !== turns + 1) problems.push(`model called ${server.requests.length} times, expected ${turns + 1}`);
    if (final !== "done") problems.push(`final answer ${JSON.stringify(final)}, expected "done"`);
    if (problems.length > 0) throw new VerificationError(`${framework.id}: ${problems.join("; ")}`);
    return { requests: server.requests.map((request) => ({ path: request.path, body: request.body })) };
  } finally {
    await server.close();
  }
}

const holder = { result: undefined, results: [] };

// The result is parked in `holder` and never returned: a value an async function awaits stays reachable from
// its suspended frame, which would keep a "released" result alive and hide the figure.
async function runParked(agent, workload) {
  holder.results.push(await runVerified(agent, workload));
}

async function runInto(agent, into) {
  const outcome = await agent.run("Do the task.");
  into.result = outcome.result;
  return outcome.final;
}

function heapAfterGc() {
  globalThis.gc();
  globalThis.gc();
  return process.memoryUsage().heapUsed;
}

/**
 * Heap kept alive by one run's result: heap after gc with `copies` results held at once, minus after they are
 * released, divided by `copies` (holding several at once divides gc noise, a few tens of KB, by as many).
 */
async function measureRetained(agent, workload, copies) {
  holder.results = [];
  const start = performance.now();
  for (let copy = 0; copy < copies; copy++) await runParked(agent, workload);
  const ms = (performance.now() - start) / copies;
  const held = heapAfterGc();
  holder.results = [];
  const released = heapAfterGc();
  return { ms, retainedBytes: (held - released) / copies };
}

/** S4: a long run's time and retained memory, the retained memory of a 500-step result, and heap growth across runs. */
async function measureMemory() {
  if (typeof globalThis.gc !== "function") throw new Error("run the worker with --expose-gc");
  const out = {};
  // Retained memory of one `resultN`-step result (median of 3 trials), after a warm-up run.
  {
    const workload = sequentialWorkload(settings.resultN);
    const agent = await create({ tools: workload.tools, respond: workload.respond, maxSteps: settings.resultN + 2 });
    await runVerified(agent, workload);
    const trials = [];
    for (let trial = 0; trial < 3; trial++) trials.push(await measureRetained(agent, workload, settings.resultCopies));
    out.result = {
      n: settings.resultN,
      retainedBytes: median(trials.map((trial) => trial.retainedBytes)),
      ms: median(trials.map((trial) => trial.ms)),
    };
  }
  // Growth: heap after gc once `growthRuns / 3` runs have warmed everything up, and again after all `growthRuns`.
  {
    const workload = sequentialWorkload(settings.growthN);
    const agent = await create({ tools: workload.tools, respond: workload.respond, maxSteps: settings.growthN + 2 });
    const third = Math.max(1, Math.floor(settings.growthRuns / 3));
    let early = 0;
    for (let run = 0; run < settings.growthRuns; run++) {
      await runVerified(agent, workload);
      if (run + 1 === third) early = heapAfterGc();
    }
    const late = heapAfterGc();
    out.growth = {
      n: settings.growthN,
      runs: settings.growthRuns - third,
      bytes: late - early,
      bytesPerRun: (late - early) / (settings.growthRuns - third),
    };
  }
  // The long run, bounded by `longBudgetMs`: past it the model answers early and the run is reported unfinished.
  {
    const workload = sequentialWorkload(settings.longN);
    const agent = await create({ tools: workload.tools, respond: workload.respond, maxSteps: settings.longN + 2 });
    workload.reset();
    const before = heapAfterGc();
    workload.state.deadline = performance.now() + settings.longBudgetMs;
    const start = performance.now();
    const final = await runInto(agent, holder);
    const ms = performance.now() - start;
    const problem = workload.verify(final);
    const held = heapAfterGc();
    holder.result = undefined;
    const released = heapAfterGc();
    const stepsDone = workload.state.toolRuns;
    // Unfinished is a reported outcome only when the budget ran out; any other shortfall is a failed verification.
    if (problem && !workload.state.stoppedEarly) throw new VerificationError(`${framework.id}: ${problem}`);
    out.long = problem
      ? { n: settings.longN, finished: false, stepsDone, ms, budgetMs: settings.longBudgetMs }
      : {
          n: settings.longN,
          finished: true,
          ms,
          perStepUs: (ms * 1000) / (settings.longN + 1),
          retainedBytes: held - released,
          peakHeldBytes: held - before,
        };
  }
  return out;
}

const scenarios = { s1: async () => ({ steps: await measureAll() }), s2: measureParallel, s3: captureWire, s4: measureMemory };

async function measureAll() {
  const rows = [];
  for (const n of settings.ns) rows.push(await measureSequential(n));
  return rows;
}

try {
  if (!scenarios[scenario]) throw new Error(`unknown scenario "${scenario}"`);
  const figures = await scenarios[scenario]();
  process.stdout.write(`${JSON.stringify({ framework: framework.id, scenario, ...figures })}\n`);
} catch (error) {
  process.stdout.write(
    `${JSON.stringify({ framework: framework.id, scenario, error: String(error?.stack ?? error), verification: error instanceof VerificationError })}\n`,
  );
  process.exitCode = 1;
}
