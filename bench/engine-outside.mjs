// The engine measured from outside, the way a user's own harness does it (issue 29): one fresh process per
// framework and N, the package imported by its name (`import "minagent"`, resolved through package.json's
// exports from a folder whose node_modules/minagent links to the built package), one Agent with one JSON
// Schema tool, a scripted model that asks for one tool call per step N − 1 times and then answers, and the
// run's wall time divided by its N model calls. Beside it the bare loop (bench/baseline-loop.mjs) doing the
// same in its own process. No warm-up beyond what the process itself does: that is what such a harness sees.
//   node bench/engine-outside.mjs                          every kind × N = 10, 100, 500, 7 processes each
//   node bench/engine-outside.mjs --ns=500 --processes=3 --kinds=bare,minagent-model
//   node bench/engine-outside.mjs child <kind> <n> <runs>  one process: prints its JSON line
// MINAGENT_ROOT=<dir> measures another build (bench/run.mjs passes its snapshot of dist/).
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = fileURLToPath(new URL(".", import.meta.url));

/**
 * What each process runs. `runs` runs one after another in the process, each with a new model and a new Agent
 * (a script is used up by one run); the first is the cold run, the later ones show what warm-up buys.
 */
export const kinds = {
  bare: { label: "bare loop (bench/baseline-loop.mjs)" },
  "minagent-model": { label: "minagent Agent, hand-written Model" },
  "minagent-fake": { label: "minagent Agent, FakeModel" },
};

/** The one tool every kind offers: a JSON Schema object parameter, as a user writes one without zod. */
const stepParameters = { type: "object", properties: { i: { type: "integer" } }, required: ["i"] };

/** The model's answer at call `call` of a run of `n` model calls: a tool call, or (the last) the final text. */
function scriptedResponse(call, n) {
  if (call < n - 1)
    return {
      message: { role: "assistant", content: "", toolCalls: [{ id: `call_${call}`, name: "step", arguments: { i: call } }] },
      stopReason: "tool_use",
      usage: { inputTokens: 1, outputTokens: 1 },
    };
  return { message: { role: "assistant", content: "done" }, stopReason: "end_turn", usage: { inputTokens: 1, outputTokens: 1 } };
}

/** One run of `kind` with n model calls; returns its wall time in ms, after checking it did the work. */
export async function makeRunner(kind) {
  if (kind === "bare") {
    const { runBareLoop } = await import(pathToFileURL(path.join(here, "baseline-loop.mjs")).href);
    return async (n) => {
      const state = { calls: 0, toolRuns: 0 };
      const model = { complete: async () => scriptedResponse(state.calls++, n) };
      const tools = new Map([
        ["step", { name: "step", description: "Carries out step i.", parameters: stepParameters, execute: stepTool(state) }],
      ]);
      const cpu = processCpuMs();
      const start = performance.now();
      const { final } = await runBareLoop(model, tools, "Do the task.", n + 1);
      const ms = performance.now() - start;
      return verify({ ms, cpuMs: processCpuMs() - cpu }, final, state, n);
    };
  }
  const { Agent, FakeModel, ToolRegistry } = await import("minagent");
  return async (n) => {
    const state = { calls: 0, toolRuns: 0 };
    let model;
    if (kind === "minagent-fake") {
      const fake = new FakeModel(Array.from({ length: n }, (_, call) => scriptedResponse(call, n)));
      // FakeModel counts its own calls; read them after the run.
      model = fake;
      state.fake = fake;
    } else model = { provider: "bench", modelId: "scripted", complete: async () => scriptedResponse(state.calls++, n) };
    const registry = new ToolRegistry().add({
      name: "step",
      description: "Carries out step i.",
      parameters: stepParameters,
      execute: stepTool(state),
    });
    const agent = new Agent(model, registry, { maxSteps: n + 1 });
    const cpu = processCpuMs();
    const start = performance.now();
    const { final } = await agent.run("Do the task.");
    const ms = performance.now() - start;
    if (state.fake) state.calls = state.fake.requests.length;
    return verify({ ms, cpuMs: processCpuMs() - cpu }, final, state, n);
  };
}

function stepTool(state) {
  return ({ i }) => {
    if (i !== state.toolRuns) throw new Error(`step ${i} out of order (expected ${state.toolRuns})`);
    state.toolRuns++;
    return `step ${i} done`;
  };
}

/**
 * Milliseconds of CPU the process has used, all its threads (the compiler's and the GC's helpers too). Unlike wall
 * time it leaves out the time other processes had the CPU, which on a shared machine is most of the noise: read beside
 * wall time, never instead of it.
 */
function processCpuMs() {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

function verify(times, final, state, n) {
  if (final !== "done" || state.calls !== n || state.toolRuns !== n - 1)
    throw new Error(
      `run did not do the work: final ${JSON.stringify(final)}, ${state.calls} model calls, ${state.toolRuns} tool runs (n = ${n})`,
    );
  return times;
}

async function child(kind, n, runs) {
  const importStart = performance.now();
  const run = await makeRunner(kind);
  const importMs = performance.now() - importStart;
  const runMs = [];
  const cpuMs = [];
  for (let index = 0; index < runs; index++) {
    const times = await run(n);
    runMs.push(times.ms);
    cpuMs.push(times.cpuMs);
  }
  process.stdout.write(`${JSON.stringify({ kind, n, importMs, runMs, cpuMs })}\n`);
}

/** A folder with node_modules/minagent linked to the built package, so that `import "minagent"` resolves as a user's does. */
export function makeConsumerFolder(packageRoot) {
  const folder = mkdtempSync(path.join(os.tmpdir(), "minagent-outside-"));
  mkdirSync(path.join(folder, "node_modules"));
  symlinkSync(packageRoot, path.join(folder, "node_modules", "minagent"), "dir");
  writeFileSync(path.join(folder, "package.json"), '{ "type": "module", "private": true }\n');
  return folder;
}

export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/**
 * Runs every kind × n in `processes` fresh processes each, interleaved (kind after kind, then the next round), so
 * that the load of other processes on the machine falls on every kind alike. Returns per kind and n the µs per model
 * call of the median of a process's `runs` runs, and of its first run alone, each the median over processes.
 */
export function measureOutside({
  packageRoot,
  ns,
  processes,
  runs = 5,
  kindIds = Object.keys(kinds),
  node = process.execPath,
  env = process.env,
}) {
  const folder = makeConsumerFolder(packageRoot);
  // The child script is copied into the consumer folder: `import "minagent"` resolves from the importing file's
  // folder, and from bench/ it would be the working tree's own package (a self-reference), not `packageRoot`.
  const script = path.join(folder, "engine-outside.mjs");
  copyFileSync(fileURLToPath(import.meta.url), script);
  copyFileSync(path.join(here, "baseline-loop.mjs"), path.join(folder, "baseline-loop.mjs"));
  const samples = new Map();
  const failures = [];
  try {
    for (let round = 0; round < processes; round++)
      for (const n of ns)
        for (const kind of kindIds) {
          const childRun = spawnSync(node, [script, "child", kind, String(n), String(runs)], {
            cwd: folder,
            env: { ...env, NODE_ENV: "production" },
            encoding: "utf8",
            timeout: 120_000,
          });
          const key = `${kind} ${n}`;
          if (childRun.status !== 0) {
            failures.push({ kind, n, error: `${childRun.stderr}`.slice(-1500) });
            continue;
          }
          const { runMs, importMs } = JSON.parse(childRun.stdout.trim().split("\n").at(-1));
          if (!samples.has(key)) samples.set(key, { first: [], median: [], importMs: [] });
          const entry = samples.get(key);
          entry.first.push((runMs[0] * 1000) / n);
          entry.median.push((median(runMs) * 1000) / n);
          entry.importMs.push(importMs);
        }
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
  const rows = [];
  for (const kind of kindIds)
    for (const n of ns) {
      const entry = samples.get(`${kind} ${n}`);
      if (!entry) continue;
      rows.push({
        kind,
        n,
        medianUs: median(entry.median),
        firstUs: median(entry.first),
        medianRange: [Math.min(...entry.median), Math.max(...entry.median)],
        importMs: median(entry.importMs),
        processes: entry.median.length,
      });
    }
  return { rows, failures, runs };
}

export function formatOutside({ rows, runs }) {
  const ns = [...new Set(rows.map((row) => row.n))];
  const find = (kind, n) => rows.find((row) => row.kind === kind && row.n === n);
  const lines = [];
  const cell = (row, base, field) =>
    row ? `${row[field].toFixed(2)} µs${base ? ` (${(row[field] / base[field]).toFixed(1)}×)` : ""}` : "—";
  for (const field of ["medianUs", "firstUs"]) {
    lines.push(
      field === "medianUs"
        ? `µs per model call: the median of ${runs} runs in a fresh process (each a new Agent and model), median over processes:`
        : "The first run of each process alone (the coldest):",
    );
    lines.push(`| kind | ${ns.map((n) => `N = ${n}`).join(" | ")} |`, `| --- | ${ns.map(() => "---:").join(" | ")} |`);
    for (const kind of [...new Set(rows.map((row) => row.kind))])
      lines.push(
        `| ${kinds[kind].label} | ${ns.map((n) => cell(find(kind, n), kind === "bare" ? undefined : find("bare", n), field)).join(" | ")} |`,
      );
    lines.push("");
  }
  return lines.join("\n");
}

if (process.argv[2] === "child") {
  const [, , , kind, n, runs] = process.argv;
  await child(kind, Number(n), Number(runs));
} else if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const option = (name, fallback) => process.argv.find((argument) => argument.startsWith(`--${name}=`))?.split("=")[1] ?? fallback;
  const packageRoot = process.env.MINAGENT_ROOT ?? fileURLToPath(new URL("..", import.meta.url));
  const outcome = measureOutside({
    packageRoot,
    ns: option("ns", "10,100,500").split(",").map(Number),
    processes: Number(option("processes", "7")),
    runs: Number(option("runs", "5")),
    kindIds: option("kinds", Object.keys(kinds).join(",")).split(","),
  });
  process.stdout.write(`Node ${process.version}, ${packageRoot}\n\n${formatOutside(outcome)}`);
  for (const failure of outcome.failures) process.stderr.write(`FAILED ${failure.kind} N=${failure.n}: ${failure.error}\n`);
  if (outcome.failures.length) process.exitCode = 1;
}
