// npm run bench — minagent side by side with the hand-written loop and the big frameworks (issue 6).
// Every framework × scenario runs in its own fresh node process; the figures come back as JSON and are
// printed as tables (with ratios to the bare loop of the same run) and written to bench/RESULTS.md.
//   node bench/run.mjs                 the full bench (about 10–15 minutes on 2 cores)
//   node bench/run.mjs --smoke         tiny N, one repetition, every scenario (CI); exits 1 if any run fails verification
//   node bench/run.mjs --only=minagent-agent,baseline --scenarios=s1,s5     a subset, for profiling
//   node bench/run.mjs --scenarios=outside                                   only S1 from outside (bench/engine-outside.mjs)
// Run `npm run build` first: the bench measures the built package (a snapshot of dist/, see minagent-root.mjs).
import { spawn, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import { fileURLToPath, pathToFileURL } from "node:url";
import { makeConsumerFolder, measureOutside } from "./engine-outside.mjs";
import { frameworks } from "./frameworks.mjs";
import { renderReport } from "./report.mjs";
import { describeDifference, diffJson, foldDifferences } from "./wire-diff.mjs";
import { bareWireRequest } from "./workload.mjs";

/** Everything after this line of RESULTS.md is other benches' and survives a full run. */
const keptSectionsMarker = "<!-- npm run bench keeps everything below: other benches' sections -->";

const root = fileURLToPath(new URL("..", import.meta.url));
const argv = process.argv.slice(2);
const flag = (name) =>
  argv
    .find((argument) => argument.startsWith(`--${name}=`))
    ?.split("=")[1]
    ?.split(",");
const smoke = argv.includes("--smoke") || process.env.BENCH_SMOKE === "1";
const only = flag("only");
const scenarioFilter = flag("scenarios");

const settings = smoke
  ? {
      s1: { ns: [5], warmupRuns: 1, warmupMs: 0, warmupCapMs: 1_000, sampleMs: 0, samples: 1, slowRunMs: 1_000, slowSamples: 1 },
      s2: { calls: 8, toolMs: 50, warmupRuns: 0, samples: 1 },
      s3: { turns: 3, modelId: "gpt-4o" },
      s4: { resultN: 20, resultCopies: 2, growthN: 5, growthRuns: 3, longN: 50, longBudgetMs: 10_000 },
      s5: { runs: 1 },
      outside: { ns: [5], processes: 1, runs: 2 },
      workerTimeoutMs: 60_000,
    }
  : {
      s1: {
        ns: [10, 100, 500],
        warmupRuns: 3,
        warmupMs: 500,
        warmupCapMs: 10_000,
        sampleMs: 100,
        samples: 9,
        slowRunMs: 1_000,
        slowSamples: 3,
      },
      s2: { calls: 8, toolMs: 50, warmupRuns: 3, samples: 15 },
      s3: { turns: 3, modelId: "gpt-4o" },
      s4: { resultN: 500, resultCopies: 5, growthN: 100, growthRuns: 45, longN: 10_000, longBudgetMs: 60_000 },
      s5: { runs: 7 },
      // S1 as a user's own harness sees it: fresh processes, no warm-up (see bench/engine-outside.mjs).
      outside: { ns: [10, 100, 500], processes: 9, runs: 5 },
      workerTimeoutMs: 15 * 60_000,
    };

let tokenizer; // loaded on first use by S3's analysis (about a second)
const snapshot = snapshotPackage();
// Interrupted (Ctrl-C, a CI timeout): remove the snapshot all the same.
for (const signal of ["SIGINT", "SIGTERM"]) {
  process.once(signal, () => {
    rmSync(snapshot, { recursive: true, force: true });
    process.exit(130);
  });
}
const environment = { ...process.env, MINAGENT_ROOT: snapshot, NODE_ENV: "production" };
const selected = frameworks.filter((framework) => !only || only.includes(framework.id));
const wants = (scenario) => !scenarioFilter || scenarioFilter.includes(scenario);
const results = { smoke, machine: describeMachine(), versions: readVersions(), settings, runs: [], failures: [] };

try {
  for (const scenario of ["s1", "s2", "s3", "s4"]) {
    if (!wants(scenario)) continue;
    for (const framework of selected) {
      if (!framework.scenarios.includes(scenario)) continue;
      process.stderr.write(`${scenario} ${framework.id} …`);
      const started = performance.now();
      const outcome = await runWorker(framework.id, scenario, settings[scenario]);
      process.stderr.write(` ${((performance.now() - started) / 1000).toFixed(1)} s${outcome.error ? " FAILED" : ""}\n`);
      if (outcome.error) results.failures.push(outcome);
      else results.runs.push(scenario === "s3" ? await analyseWire(outcome) : outcome);
    }
  }
  if (wants("outside") && (!only || only.some((id) => id === "baseline" || id.startsWith("minagent")))) {
    process.stderr.write("outside (S1 from a user's harness) …");
    const started = performance.now();
    results.outside = measureOutside({ packageRoot: snapshot, ...settings.outside });
    process.stderr.write(` ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
    for (const failure of results.outside.failures)
      results.failures.push({ framework: failure.kind, scenario: "outside", error: failure.error });
  }
  if (wants("s5")) results.startup = measureStartup(settings.s5.runs);
} finally {
  rmSync(snapshot, { recursive: true, force: true });
}
results.machine.loadAverageAtEnd = os.loadavg().map((load) => Number(load.toFixed(2)));

const report = renderReport(results);
process.stdout.write(`\n${report.text}\n`);
if (!smoke && !only && !scenarioFilter) {
  // Other benches keep their sections below the marker (bench:sandbox, bench:code's Grep engine): a full run
  // rewrites the side-by-side part above it and keeps theirs.
  const resultsFile = new URL("RESULTS.md", import.meta.url);
  const previous = existsSync(resultsFile) ? readFileSync(resultsFile, "utf8") : "";
  const kept = previous.includes(keptSectionsMarker) ? previous.slice(previous.indexOf(keptSectionsMarker)) : "";
  writeFileSync(resultsFile, kept ? `${report.markdown.trimEnd()}\n\n${kept}` : report.markdown);
  writeFileSync(new URL("results.json", import.meta.url), `${JSON.stringify(results, null, 1)}\n`);
  process.stderr.write("wrote bench/RESULTS.md and bench/results.json\n");
}
if (results.failures.length > 0) {
  for (const failure of results.failures) process.stderr.write(`FAILED ${failure.framework} ${failure.scenario}: ${failure.error}\n`);
  process.exitCode = 1;
}

/** Copies the built package aside, so that a rebuild by someone else mid-bench cannot pull dist/ from under it. */
function snapshotPackage() {
  if (!existsSync(`${root}dist/index.js`)) throw new Error("dist/ is missing: run `npm run build` first (the npm script does).");
  // Inside node_modules/.cache, so that the snapshot's own imports (ajv, openai, zod) resolve to the project's node_modules.
  const directory = `${root}node_modules/.cache/minagent-bench/${process.pid}/minagent`;
  rmSync(directory, { recursive: true, force: true });
  mkdirSync(directory, { recursive: true });
  cpSync(`${root}dist`, `${directory}/dist`, { recursive: true });
  cpSync(`${root}package.json`, `${directory}/package.json`);
  return directory;
}

/** Spawns `node --expose-gc bench/worker.mjs`, bounded by a timeout; resolves to its JSON line or an error record. */
function runWorker(frameworkId, scenario, scenarioSettings) {
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      ["--expose-gc", fileURLToPath(new URL("worker.mjs", import.meta.url)), frameworkId, scenario, JSON.stringify(scenarioSettings)],
      {
        env: environment,
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.stderr.on("data", (chunk) => (stderr += chunk));
    const timer = setTimeout(() => child.kill("SIGKILL"), settings.workerTimeoutMs);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      const line = stdout.trim().split("\n").at(-1) ?? "";
      try {
        const parsed = JSON.parse(line);
        resolve(parsed.error ? { ...parsed, stderr: stderr.slice(-2000) } : parsed);
      } catch {
        const reason = signal ? `killed by ${signal} after ${settings.workerTimeoutMs} ms` : `exit code ${code}`;
        resolve({ framework: frameworkId, scenario, error: `worker produced no result (${reason}): ${stderr.slice(-2000)}` });
      }
    });
  });
}

/** o200k_base token count of a text, with js-tiktoken (minagent's own dependency). */
async function loadTokenizer() {
  if (tokenizer) return tokenizer;
  const [{ Tiktoken }, { default: ranks }] = await Promise.all([import("js-tiktoken/lite"), import("js-tiktoken/ranks/o200k_base")]);
  const encoding = new Tiktoken(ranks);
  tokenizer = (text) => encoding.encode(text).length;
  return tokenizer;
}

/** S3: bytes and tokens of every body, against the bare request of the same conversation, and what differs. */
async function analyseWire(outcome) {
  const count = await loadTokenizer();
  const differences = [];
  const bodies = outcome.requests.map((request, index) => {
    const reference = JSON.stringify(bareWireRequest(index, settings.s3));
    differences.push(...diffJson(JSON.parse(request.body), JSON.parse(reference)));
    return {
      bytes: Buffer.byteLength(request.body),
      tokens: count(request.body),
      bareBytes: Buffer.byteLength(reference),
      bareTokens: count(reference),
    };
  });
  return {
    framework: outcome.framework,
    scenario: outcome.scenario,
    bodies,
    differences: foldDifferences(differences).map(describeDifference),
  };
}

/** S5: `import()` time of each package in fresh processes, and `minagent demo react` end to end next to a bare `node -e 0`. */
function measureStartup(runs) {
  const importTargets = [
    {
      id: "baseline",
      label: "bare loop module",
      specifier: pathToFileURL(fileURLToPath(new URL("baseline-loop.mjs", import.meta.url))).href,
    },
    // minagent's own entry points by name, from a folder whose node_modules/minagent links to the snapshot: the
    // package's exports resolve them, as in a user's project.
    { id: "minagent", label: "minagent", specifier: "minagent", consumer: true },
    { id: "minagent/code", label: "minagent/code", specifier: "minagent/code", consumer: true },
    { id: "minagent/openai", label: "minagent/openai (loads the openai SDK)", specifier: "minagent/openai", consumer: true },
    { id: "ai", label: "ai", specifier: "ai" },
    { id: "@openai/agents", label: "@openai/agents", specifier: "@openai/agents" },
    { id: "@langchain/langgraph", label: "@langchain/langgraph", specifier: "@langchain/langgraph" },
    {
      id: "@langchain/langgraph/prebuilt",
      label: "@langchain/langgraph/prebuilt (createReactAgent)",
      specifier: "@langchain/langgraph/prebuilt",
    },
  ];
  const importScript = fileURLToPath(new URL("import-time.mjs", import.meta.url));
  const consumer = makeConsumerFolder(snapshot);
  cpSync(importScript, `${consumer}/import-time.mjs`);
  const samples = new Map(importTargets.map((target) => [target.id, []]));
  const demo = [];
  const bareNode = [];
  for (let run = 0; run < runs; run++) {
    // Interleaved, so that load from other processes on the machine hits every target alike.
    for (const target of importTargets) {
      const child = spawnSync(process.execPath, [target.consumer ? `${consumer}/import-time.mjs` : importScript, target.specifier], {
        cwd: target.consumer ? consumer : root,
        env: environment,
        encoding: "utf8",
        timeout: 60_000,
      });
      if (child.status !== 0) {
        results.failures.push({ framework: target.id, scenario: "s5", error: `import failed: ${child.stderr.slice(-1000)}` });
        continue;
      }
      samples.get(target.id).push(JSON.parse(child.stdout).ms);
    }
    bareNode.push(timeProcess([process.execPath, "-e", "0"]).ms);
    const cli = timeProcess([process.execPath, `${snapshot}/dist/cli/bin.js`, "demo", "react"]);
    // The demo must really have run: the book's trajectory ends with 7 messages.
    if (cli.status !== 0 || !/消息条数: 7|messages: 7/i.test(cli.stdout)) {
      results.failures.push({
        framework: "minagent",
        scenario: "s5",
        error: `demo react did not print its trajectory (exit ${cli.status}): ${cli.stdout.slice(-500)}${cli.stderr.slice(-500)}`,
      });
    } else demo.push(cli.ms);
  }
  rmSync(consumer, { recursive: true, force: true });
  return {
    imports: importTargets.map(({ consumer: _, ...target }) => ({
      ...target,
      ms: median(samples.get(target.id)),
      samples: samples.get(target.id).length,
    })),
    demoMs: median(demo),
    bareNodeMs: median(bareNode),
    runs,
  };
}

function timeProcess(command) {
  const start = performance.now();
  const child = spawnSync(command[0], command.slice(1), { cwd: root, env: environment, encoding: "utf8", timeout: 60_000 });
  return { ms: performance.now() - start, status: child.status, stdout: child.stdout ?? "", stderr: child.stderr ?? "" };
}

function median(values) {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

function describeMachine() {
  const cpus = os.cpus();
  return {
    cpu: cpus[0]?.model ?? "unknown",
    cores: cpus.length,
    memoryGb: Math.round(os.totalmem() / 2 ** 30),
    node: process.version,
    os: `${os.type()} ${os.release()}`,
    date: new Date().toISOString(),
    loadAverageAtStart: os.loadavg().map((load) => Number(load.toFixed(2))),
  };
}

function readVersions() {
  const read = (path) => JSON.parse(readFileSync(path, "utf8")).version;
  const commit = spawnSync("git", ["rev-parse", "--short", "HEAD"], { cwd: root, encoding: "utf8" }).stdout.trim();
  const dirty = spawnSync("git", ["status", "--porcelain", "--", "src"], { cwd: root, encoding: "utf8" }).stdout.trim() !== "";
  const versions = { minagent: `${read(`${root}package.json`)} (${commit}${dirty ? ", src/ has uncommitted changes" : ""})` };
  for (const name of [
    "ai",
    "@ai-sdk/openai",
    "@openai/agents",
    "@langchain/langgraph",
    "@langchain/core",
    "@langchain/openai",
    "openai",
    "zod",
  ])
    versions[name] = read(`${root}node_modules/${name}/package.json`);
  return versions;
}
