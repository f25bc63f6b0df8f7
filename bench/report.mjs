// Turns the bench's JSON into tables: figures with ratios to the bare loop of the same run, the targets of
// issue 6 checked, the versions and the machine. The same markdown is printed and written to RESULTS.md.
import { kinds as outsideKinds } from "./engine-outside.mjs";
import { frameworks } from "./frameworks.mjs";

const label = (id) => frameworks.find((framework) => framework.id === id)?.label ?? id;
const minagentRows = ["minagent-agent", "minagent-react", "minagent-tracing"];

export function renderReport(results) {
  const find = (scenario, id) => results.runs.find((run) => run.scenario === scenario && run.framework === id);
  const sections = [
    outsideSection(results),
    perStepSection(find),
    parallelSection(find),
    wireSection(find),
    memorySection(find),
    startupSection(results),
  ].filter(Boolean);
  const targets = targetsSection(results, find);
  const failures = results.failures.map((failure) => `- **${failure.framework} ${failure.scenario}**: ${firstLine(failure.error)}`);
  const body = [targets, ...sections, failures.length > 0 ? `## Failed runs (not figures)\n\n${failures.join("\n")}` : ""].filter(Boolean);
  const text = body.join("\n\n");
  return { text, markdown: `${header(results)}\n\n${text}\n\n${footer(results)}\n` };
}

function header({ machine, versions, smoke }) {
  const list = Object.entries(versions)
    .map(([name, version]) => `\`${name}\` ${version}`)
    .join(", ");
  return `# minagent side-by-side benchmark${smoke ? " (smoke run: tiny N, not figures)" : ""}

Measured ${machine.date.slice(0, 10)} on ${machine.cpu}, ${machine.cores} cores, ${machine.memoryGb} GB, ${machine.os}, Node ${machine.node}.
Load average at start ${machine.loadAverageAtStart.join(" / ")}, at end ${machine.loadAverageAtEnd?.join(" / ")} (a shared machine: compare ratios, which come from the same run).
Versions: ${list}.

Every framework runs each scenario in its own fresh \`node\` process, with an instant scripted model that implements
that framework's own model interface, so the times are the engines' own overhead. Every run is verified (the tool ran
N times, the model was called N + 1 times, the final answer arrived); a run that was not is listed as a failure, never as a figure.
Ratios (×) are to the hand-written 30-line loop (\`bench/baseline-loop.mjs\`) measured in the same run.`;
}

function footer({ settings }) {
  return `## How to rerun

\`\`\`sh
npm run bench                     # build, then node bench/run.mjs: every scenario (about 10–15 minutes on 2 cores); writes this file
npm run bench -- --smoke          # tiny N, one repetition (CI): exits 1 if any run fails its verification
node bench/run.mjs --only=baseline,minagent-agent --scenarios=s1    # a subset (after npm run build)
\`\`\`

Settings of this run: \`${JSON.stringify(settings)}\`.
Definitions: a *step* is one turn (a model call and the tool call it asked for); per-step time is a run's wall time
divided by its N + 1 turns, the median of batched samples after warm-up. S2's overhead is the run's wall time minus the tool's 50 ms
(and, in brackets, minus the slowest tool's measured time, which removes timer lateness). S4's retained memory is
\`heapUsed\` after \`gc()\` with the result held minus after it is released; growth is the heap after gc across repeated runs.
S3 counts o200k_base tokens of the raw JSON body of every request.`;
}

function perStepSection(find) {
  const base = find("s1", "baseline");
  if (!base) return "";
  const ns = base.steps.map((step) => step.n);
  const rows = frameworks
    .map((framework) => find("s1", framework.id))
    .filter(Boolean)
    .map((run) => {
      const cells = ns.map((n) => {
        const step = run.steps.find((candidate) => candidate.n === n);
        const reference = base.steps.find((candidate) => candidate.n === n);
        return step ? `${formatMicros(step.perStepUs)} (${ratio(step.perStepUs, reference.perStepUs)})` : "—";
      });
      const first = run.steps[0];
      const last = run.steps.at(-1);
      return `| ${label(run.framework)} | ${cells.join(" | ")} | ${ratio(last.perStepUs, first.perStepUs)} |`;
    });
  const tracing = tracingCost(find);
  return `## S1 — per-step overhead, warm (µs per step, N sequential tool calls then an answer)

One process per framework, one agent reused, timed after a warm-up of hundreds of runs (\`s1\` in the settings below):
the optimised steady state, which a harness that starts a process and times a few runs does not reach (*S1 from outside*).

| framework | ${ns.map((n) => `N = ${n}`).join(" | ")} | N = ${ns.at(-1)} vs N = ${ns[0]} |
| --- | ${ns.map(() => "---:").join(" | ")} | ---: |
${rows.join("\n")}
${tracing ? `\nTracing cost (minagent Agent + Tracer with a no-op exporter, minus the plain Agent): ${tracing}.` : ""}`;
}

/** S1 as a user's own harness sees it (bench/engine-outside.mjs): fresh processes, no warm-up, import by name. */
function outsideSection({ outside }) {
  if (!outside || outside.rows.length === 0) return "";
  const ns = [...new Set(outside.rows.map((row) => row.n))];
  const find = (kind, n) => outside.rows.find((row) => row.kind === kind && row.n === n);
  const table = (field) =>
    Object.keys(outsideKinds)
      .filter((kind) => outside.rows.some((row) => row.kind === kind))
      .map((kind) => {
        const cells = ns.map((n) => {
          const row = find(kind, n);
          const base = find("bare", n);
          if (!row) return "—";
          return kind === "bare" || !base ? formatMicros(row[field]) : `${formatMicros(row[field])} (${ratio(row[field], base[field])})`;
        });
        return `| ${outsideKinds[kind].label} | ${cells.join(" | ")} |`;
      })
      .join("\n");
  const processes = Math.min(...outside.rows.map((row) => row.processes));
  return `## S1 from outside — per step as a user's harness sees it (µs per model call)

\`bench/engine-outside.mjs\`: a fresh \`node\` process per kind and N (${processes} each, interleaved), \`import { Agent, FakeModel, ToolRegistry } from "minagent"\`
resolved through the package's exports, one JSON Schema tool, a model that asks for one call per step N − 1 times and then
answers; a run's wall time divided by its N model calls. Each process makes ${outside.runs} runs (a new Agent and model each),
no warm-up: the median of its runs, then the median over processes. The bare loop runs the same in its own processes.

| kind | ${ns.map((n) => `N = ${n}`).join(" | ")} |
| --- | ${ns.map(() => "---:").join(" | ")} |
${table("medianUs")}

The first run of each process alone (the coldest, what a harness that times one run sees):

| kind | ${ns.map((n) => `N = ${n}`).join(" | ")} |
| --- | ${ns.map(() => "---:").join(" | ")} |
${table("firstUs")}`;
}

function tracingCost(find) {
  const plain = find("s1", "minagent-agent");
  const traced = find("s1", "minagent-tracing");
  if (!plain || !traced) return "";
  return traced.steps
    .map((step) => {
      const reference = plain.steps.find((candidate) => candidate.n === step.n);
      return `N = ${step.n}: +${formatMicros(step.perStepUs - reference.perStepUs)} µs per step (${ratio(step.perStepUs, reference.perStepUs)} the untraced Agent)`;
    })
    .join("; ");
}

function parallelSection(find) {
  const base = find("s2", "baseline");
  if (!base) return "";
  const rows = frameworks
    .map((framework) => find("s2", framework.id))
    .filter(Boolean)
    .map(
      (run) =>
        `| ${label(run.framework)} | ${run.maxConcurrent} of ${run.calls} | ${run.overheadMs.toFixed(2)} (${ratio(run.overheadMs, base.overheadMs)}) | ${run.overheadBeyondSlowestMs.toFixed(2)} |`,
    );
  return `## S2 — parallel tool calls (${base.calls} × ${base.toolMs} ms tools in one turn, median of ${base.samples})

| framework | ran at once | overhead beyond ${base.toolMs} ms (ms) | beyond the slowest tool's measured time (ms) |
| --- | ---: | ---: | ---: |
${rows.join("\n")}`;
}

function wireSection(find) {
  const runs = frameworks.map((framework) => find("s3", framework.id)).filter(Boolean);
  if (runs.length === 0) return "";
  const rows = runs.map((run) => {
    const bytes = sum(run.bodies, "bytes");
    const tokens = sum(run.bodies, "tokens");
    const bareTokens = sum(run.bodies, "bareTokens");
    const added = tokens - bareTokens;
    return `| ${label(run.framework)} | ${run.bodies.length} | ${bytes.toLocaleString("en")} B | ${tokens.toLocaleString("en")} (${signed(added)}, ${signed((added / bareTokens) * 100, 1)} %) | ${run.differences.length === 0 ? "nothing" : run.differences.map(escapeCell).join("<br>")} |`;
  });
  const bare = runs.find((run) => run.bodies);
  const bareTokens = bare ? sum(bare.bodies, "bareTokens") : 0;
  return `## S3 — wire overhead (Chat Completions on a local server, 3 tool calls then an answer)

The bare request (model + messages + tools with their schemas as given) totals ${bareTokens.toLocaleString("en")} o200k tokens over the 4 requests.
Differences: \`+\` added by the framework, \`−\` left out, \`~\` changed; paths fold array indices, (×n) counts occurrences over all requests.

| framework | requests | body bytes | body tokens (vs bare) | what differs from the bare request |
| --- | ---: | ---: | ---: | --- |
${rows.join("\n")}`;
}

function memorySection(find) {
  const base = find("s4", "baseline");
  if (!base) return "";
  const rows = frameworks
    .map((framework) => find("s4", framework.id))
    .filter(Boolean)
    .map((run) => {
      const long = run.long.finished
        ? `${formatMs(run.long.ms)} (${ratio(run.long.ms, base.long.ms)}) | ${formatBytes(run.long.retainedBytes)} (${ratio(run.long.retainedBytes, base.long.retainedBytes)})`
        : `unfinished: ${run.long.stepsDone.toLocaleString("en")} of ${run.long.n.toLocaleString("en")} steps in the ${formatMs(run.long.budgetMs)} budget | —`;
      return `| ${label(run.framework)} | ${formatBytes(run.result.retainedBytes)} (${ratio(run.result.retainedBytes, base.result.retainedBytes)}) | ${signed(run.growth.bytesPerRun / 1024, 1)} KB | ${long} |`;
    });
  return `## S4 — memory and a long run

| framework | retained by one ${base.result.n}-step result | heap growth per run (${base.growth.runs} runs of N = ${base.growth.n}) | ${base.long.n.toLocaleString("en")}-step run: time | its retained result |
| --- | ---: | ---: | ---: | ---: |
${rows.join("\n")}`;
}

function startupSection({ startup }) {
  if (!startup) return "";
  const base = startup.imports.find((target) => target.id === "baseline");
  const rows = startup.imports.map((target) => `| \`${target.label}\` | ${target.ms.toFixed(1)} | ${ratio(target.ms, base.ms)} |`);
  return `## S5 — import time and CLI start (fresh process each, median of ${startup.runs})

| import | ms | × bare loop module |
| --- | ---: | ---: |
${rows.join("\n")}

\`minagent demo react\` end to end: ${startup.demoMs.toFixed(0)} ms wall, against ${startup.bareNodeMs.toFixed(0)} ms for a bare \`node -e 0\` in the same run (minagent's part: ${(startup.demoMs - startup.bareNodeMs).toFixed(0)} ms).`;
}

/** The targets of issue 6, each met or missed with its figure. */
function targetsSection(results, find) {
  const lines = [];
  const check = (name, met, figure) =>
    lines.push(`| ${name} | ${met === undefined ? "not measured" : met ? "met" : "**missed**"} | ${figure} |`);
  const base = find("s1", "baseline");
  for (const id of minagentRows) {
    const run = find("s1", id);
    if (!base || !run) continue;
    const ratios = run.steps.map((step) => step.perStepUs / base.steps.find((candidate) => candidate.n === step.n).perStepUs);
    check(
      `${label(id)}: per step ≤ 3× bare loop`,
      ratios.every((value) => value <= 3),
      run.steps.map((step, index) => `N=${step.n}: ${ratios[index].toFixed(1)}×`).join(", "),
    );
    const growth = run.steps.at(-1).perStepUs / run.steps[0].perStepUs;
    // Medians on a shared 2-core machine move by 10–20 % between runs; growth beyond that is work per history.
    check(
      `${label(id)}: per step flat in N (within 20 % noise)`,
      growth <= 1.2,
      `N=${run.steps.at(-1).n} / N=${run.steps[0].n}: ${growth.toFixed(2)}×`,
    );
  }
  if (results.outside) {
    const at = (kind, n) => results.outside.rows.find((row) => row.kind === kind && row.n === n);
    for (const kind of ["minagent-model", "minagent-fake"]) {
      const figures = [100, 500]
        .filter((n) => at(kind, n) && at("bare", n))
        .map((n) => ({ n, ratio: at(kind, n).medianUs / at("bare", n).medianUs }));
      if (figures.length === 0) continue;
      check(
        `${outsideKinds[kind].label}, from outside: per step ≤ 3× bare loop at N = 100 and 500`,
        figures.every((figure) => figure.ratio <= 3),
        figures.map((figure) => `N=${figure.n}: ${figure.ratio.toFixed(1)}×`).join(", "),
      );
    }
  }
  if (results.startup) {
    const minagent = results.startup.imports.find((target) => target.id === "minagent");
    check('`import "minagent"` < 30 ms', minagent.ms < 30, `${minagent.ms.toFixed(1)} ms`);
    const own = results.startup.demoMs - results.startup.bareNodeMs;
    check(
      "`minagent demo react` < 150 ms end to end",
      results.startup.demoMs < 150,
      `${results.startup.demoMs.toFixed(0)} ms wall; bare \`node -e 0\` alone ${results.startup.bareNodeMs.toFixed(0)} ms, so minagent's part is ${own.toFixed(0)} ms`,
    );
  }
  const memoryBase = find("s4", "baseline");
  for (const id of ["minagent-agent", "minagent-react", "minagent-tracing"]) {
    const run = find("s4", id);
    if (!memoryBase || !run) continue;
    const factor = run.result.retainedBytes / memoryBase.result.retainedBytes;
    check(
      `${label(id)}: retained ${run.result.n}-step result ≤ 2× bare`,
      factor <= 2,
      `${formatBytes(run.result.retainedBytes)} vs ${formatBytes(memoryBase.result.retainedBytes)} (${factor.toFixed(2)}×)`,
    );
    // gc leaves a few hundred bytes of noise per run; a leaked listener or timer per run would exceed 1 KB.
    check(
      `${label(id)}: no heap growth across runs`,
      run.growth.bytesPerRun < 1024,
      `${signed(run.growth.bytesPerRun / 1024, 2)} KB per run over ${run.growth.runs} runs`,
    );
  }
  const parallel = find("s2", "minagent-agent");
  if (parallel)
    check(
      "minagent: 8 parallel tools, overhead < 2 ms",
      parallel.overheadMs < 2 && parallel.maxConcurrent === parallel.calls,
      `${parallel.overheadMs.toFixed(2)} ms, ${parallel.maxConcurrent} at once`,
    );
  for (const id of ["minagent-agent", "minagent-json", "minagent-tracing"]) {
    const wire = find("s3", id);
    if (!wire?.bodies) continue;
    const added = sum(wire.bodies, "tokens") - sum(wire.bodies, "bareTokens");
    check(
      `${label(id)}: zero framework-added wire tokens`,
      added === 0,
      `${signed(added)} tokens over ${wire.bodies.length} requests${wire.differences.length ? `: ${wire.differences.map(escapeCell).join("; ")}` : ""}`,
    );
  }
  if (lines.length === 0) return "";
  return `## Targets (issue 6)

| target | | figure |
| --- | --- | --- |
${lines.join("\n")}`;
}

const sum = (rows, key) => rows.reduce((total, row) => total + row[key], 0);
const ratio = (value, reference) => (reference > 0 ? `${formatRatio(value / reference)}` : "—");

function formatRatio(value) {
  if (value >= 100) return `${Math.round(value).toLocaleString("en")}×`;
  if (value >= 10) return `${value.toFixed(0)}×`;
  return `${value.toFixed(1)}×`;
}

function formatMicros(value) {
  return value >= 100 ? Math.round(value).toLocaleString("en") : value.toFixed(1);
}

function formatMs(value) {
  return value >= 1000 ? `${(value / 1000).toFixed(1)} s` : `${value.toFixed(0)} ms`;
}

function formatBytes(value) {
  return Math.abs(value) >= 2 ** 20 ? `${(value / 2 ** 20).toFixed(2)} MB` : `${(value / 1024).toFixed(0)} KB`;
}

function signed(value, digits = 0) {
  const text = value.toFixed(digits);
  return value > 0 ? `+${text}` : text;
}

function escapeCell(text) {
  return text.replaceAll("|", "\\|");
}

function firstLine(text) {
  return String(text).split("\n")[0];
}
