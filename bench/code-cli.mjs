// npm run bench:code-cli — `minagent code -p` side by side with Claude Code on the same three-turn task (a Bash call,
// then a Read call, then the answer), both driven offline by our own scripted Messages API on 127.0.0.1
// (code-cli-server.mjs), each run in a fresh project folder with a fresh HOME (code-cli-run.mjs). Per program: the
// bytes of each model request and of its tool schemas and system prompt, the wall time of the whole task (spawn to
// exit), the peak resident memory, the session file written; then minagent's time to the first request when resuming
// a session of 10,000 messages (code-cli-resume.mjs). The ratios are checked against issue 12's aims.
//   node bench/code-cli.mjs [--rounds 5] [--model <id>: both on this model] [--json]
// Claude Code: npm install --prefix /tmp/cc @anthropic-ai/claude-code@latest (or CLAUDE_CODE_BIN / CLAUDE_CODE_PREFIX,
// see code-cli-clients.mjs). Without it, minagent's figures are printed beside the issue's reference figures, labelled so.
// We measure Claude Code's requests by size only; none of its text is kept.
import { availableParallelism, loadavg } from "node:os";
import { claudeCodeClient, defaultModel, minagentClient } from "./code-cli-clients.mjs";
import { measureResume, resumedMessages } from "./code-cli-resume.mjs";
import { measureProcess, memorySource, openWorkspace, runTask } from "./code-cli-run.mjs";

const options = parseOptions(process.argv.slice(2));

/** Claude Code 2.1.332 as issue 12 quotes it, measured earlier on this kind of machine: not measured by this run. */
const issueReference = {
  version: "2.1.332",
  requestBytes: 49_000,
  toolBytes: 32_000,
  systemBytes: 7_400,
  toolCount: 12,
  wallMs: [370, 520],
  peakBytes: 225_000_000,
  sessionBytes: 149_000,
};
const aims = { requestBytes: 1 / 4, wallMs: 1, peakBytes: 1 / 2, sessionBytes: 1 / 10, resumeMs: 200 };

const claude = claudeCodeClient(options.model);
const log = options.json ? () => {} : (line = "") => console.log(line);
const failures = new Map();
const fail = (client, error) => failures.set(client, error instanceof Error ? error.message : String(error));

// Both programs talk to the same model: --model, else the one Claude Code picks by default (as a user runs it, and
// as the issue measured it; its prompt differs by model), found by its warm-up run.
let claudeWarmUp;
if (!("missing" in claude)) claudeWarmUp = await runTask(claude).catch((error) => void fail(claude, error));
const minagent = minagentClient(options.model ?? claudeWarmUp?.model ?? defaultModel);
const clients = [minagent, ...("missing" in claude || failures.has(claude) ? [] : [claude])];

log(`minagent code vs Claude Code — three-turn task (Bash, Read, answer) against a scripted Messages API on 127.0.0.1`);
log(
  `node ${process.version}, ${availableParallelism()} CPUs, load ${loadavg()
    .map((value) => value.toFixed(2))
    .join(" ")}; ${options.rounds} rounds after a warm-up, alternating; memory: ${memorySource}`,
);
const modelSource = options.model ? "--model" : claudeWarmUp ? "Claude Code's default" : "the bench's default";
log(`model: ${minagent.model} (${modelSource})`);
log(`minagent ${minagent.version}: ${minagent.args()[0]}`);
log("missing" in claude ? `Claude Code: not measured: ${claude.missing}` : `Claude Code ${claude.version}: ${claude.command}`);
log();

const runs = new Map(clients.map((client) => [client, []]));
for (let round = -1; round < options.rounds; round += 1) {
  // Alternate who goes first, so that neither always runs on the heels of the other.
  const order = round % 2 === 0 ? clients : [...clients].reverse();
  for (const client of order) {
    if (failures.has(client) || (round === -1 && client === claude)) continue; // its warm-up ran above
    try {
      const run = await runTask(client);
      if (round >= 0) runs.get(client).push(run);
    } catch (error) {
      fail(client, error);
    }
  }
}
const figures = new Map([...runs].filter(([client]) => !failures.has(client)).map(([client, list]) => [client, summarize(list)]));
const resume = await measureResume(options.rounds, minagent.model);
const nodeStartMs = await measureNodeStart(options.rounds);
const resumeFigures = {
  headersMs: median(resume.samples.map((sample) => sample.headersMs)),
  bodyMs: median(resume.samples.map((sample) => sample.bodyMs)),
  wallMs: median(resume.samples.map((sample) => sample.wallMs)),
  peakBytes: median(resume.samples.map((sample) => sample.peakBytes)),
  fileBytes: resume.fileBytes,
  requestBytes: resume.requestBytes,
  requestMessages: resume.requestMessages,
  nodeStartMs,
};

if (options.json) {
  const named = Object.fromEntries([...figures].map(([client, value]) => [client.name, { version: client.version, ...value }]));
  const missing = "missing" in claude ? claude.missing : undefined;
  const failed = Object.fromEntries([...failures].map(([client, message]) => [client.name, message]));
  const result = { model: minagent.model, figures: named, failed, claudeCodeMissing: missing, resume: resumeFigures, issueReference, aims };
  console.log(JSON.stringify(result, null, 2));
} else report();
process.exitCode = failures.has(minagent) ? 1 : 0;

function report() {
  for (const [client, message] of failures) log(`${client.name}: FAILED, not measured: ${message}\n`);
  const ours = figures.get(minagent);
  const theirs = figures.get(claude);
  const theirName = theirs ? `Claude Code ${claude.version}` : "Claude Code (not measured)";
  const reference = issueReference;
  const rows = [
    ["", "minagent code -p", theirName, "ratio", "aim", "", `issue's reference figures (Claude Code ${reference.version})`, "ratio"],
    ["---", "---:", "---:", "---:", "---:", ":---:", "---:", "---:"],
  ];
  const row = (label, format, aim, ourValue, theirValue, referenceValue) => {
    const ratio = theirValue === undefined ? undefined : ourValue / theirValue;
    const referenceRatio = referenceValue === undefined ? undefined : ourValue / referenceValue;
    rows.push([
      label,
      format(ourValue),
      theirValue === undefined ? "—" : format(theirValue),
      ratio === undefined ? "—" : ratio.toFixed(2),
      aim === undefined ? "" : `≤ ${aim === 1 ? "1" : `1/${Math.round(1 / aim)}`}`,
      aim === undefined || ratio === undefined ? "" : ratio <= aim ? "✓" : "✗",
      referenceValue === undefined ? "—" : format(referenceValue),
      referenceRatio === undefined ? "—" : `${referenceRatio.toFixed(2)}${aim === undefined ? "" : referenceRatio <= aim ? " ✓" : " ✗"}`,
    ]);
  };
  row("bytes per request (mean of 3)", kb, aims.requestBytes, ours.requestBytes, theirs?.requestBytes, reference.requestBytes);
  row("  of which tool schemas", kb, undefined, ours.toolBytes, theirs?.toolBytes, reference.toolBytes);
  row("  of which system prompt", kb, undefined, ours.systemBytes, theirs?.systemBytes, reference.systemBytes);
  row("  tools offered", String, undefined, ours.toolCount, theirs?.toolCount, reference.toolCount);
  row("wall time, whole task (median)", seconds, aims.wallMs, ours.wallMs, theirs?.wallMs, mean(reference.wallMs));
  row("  start → first model request", ms, undefined, ours.firstTurnMs, theirs?.firstTurnMs);
  row("  first → second request (Bash)", ms, undefined, ours.bashStepMs, theirs?.bashStepMs);
  row("  second → third request (Read)", ms, undefined, ours.readStepMs, theirs?.readStepMs);
  row("  third request → exit", ms, undefined, ours.exitMs, theirs?.exitMs);
  row("peak resident memory (median)", megabytes, aims.peakBytes, ours.peakBytes, theirs?.peakBytes, reference.peakBytes);
  row("session file written", kb, aims.sessionBytes, ours.sessionBytes, theirs?.sessionBytes, reference.sessionBytes);
  row("everything written under HOME", kb, undefined, ours.homeBytes, theirs?.homeBytes);
  for (const line of rows) log(`| ${line.join(" | ")} |`);
  log();
  const spread = (value) => `${seconds(value.wallRange[0])}–${seconds(value.wallRange[1])}`;
  log(`wall time range: minagent ${spread(ours)}${theirs ? `, Claude Code ${spread(theirs)}` : ""}; issue's reference 0.37–0.52 s`);
  const others = (value) => `${value.otherRequests} (${kb(value.otherRequestBytes)})`;
  log(`requests besides the 3 model turns: minagent ${others(ours)}${theirs ? `, Claude Code ${others(theirs)}` : ""}`);
  log(`KB = 1,000 bytes, MB = 1,000,000; request parts are the JSON of the body's tools and system fields as sent`);
  if (!theirs) log(`The issue's reference figures were measured earlier, not by this run; ratios to them are only indicative.`);
  log();
  const within = resumeFigures.bodyMs < aims.resumeMs ? "✓" : "✗";
  log(
    `resume a session of ${resumedMessages.toLocaleString("en-US")} messages (${kb(resumeFigures.fileBytes)} file) with -p --resume: ` +
      `first request at ${ms(resumeFigures.headersMs)} (headers), ${ms(resumeFigures.bodyMs)} (whole body, ` +
      `${kb(resumeFigures.requestBytes)}, ${resumeFigures.requestMessages.toLocaleString("en-US")} messages); aim < ${aims.resumeMs} ms ${within}; ` +
      `whole run ${ms(resumeFigures.wallMs)}, peak ${megabytes(resumeFigures.peakBytes)}`,
  );
  log(`for scale: a new session's first request came at ${ms(ours.firstTurnMs)}; \`node -e 0\` alone takes ${ms(nodeStartMs)} here`);
}

/** Median wall time of a bare `node -e 0`: the floor under any time to a first request. */
async function measureNodeStart(rounds) {
  const workspace = openWorkspace();
  try {
    const times = [];
    for (let round = -1; round < rounds; round += 1) {
      const run = await measureProcess(process.execPath, ["-e", "0"], {
        cwd: workspace.project,
        env: { PATH: process.env.PATH, HOME: workspace.home },
      });
      if (round >= 0) times.push(run.wallMs);
    }
    return median(times);
  } finally {
    workspace.close();
  }
}

function summarize(list) {
  const turns = list.flatMap((run) => run.turns);
  const walls = list.map((run) => run.wallMs);
  return {
    runs: list.length,
    requestBytes: mean(turns.map((turn) => turn.bytes)),
    toolBytes: mean(turns.map((turn) => turn.tools)),
    systemBytes: mean(turns.map((turn) => turn.system)),
    toolCount: Math.max(...turns.map((turn) => turn.toolCount)),
    wallMs: median(walls),
    wallRange: [Math.min(...walls), Math.max(...walls)],
    firstTurnMs: median(list.map((run) => run.turnMs[0])),
    bashStepMs: median(list.map((run) => run.turnMs[1] - run.turnMs[0])),
    readStepMs: median(list.map((run) => run.turnMs[2] - run.turnMs[1])),
    exitMs: median(list.map((run) => run.wallMs - run.turnMs[2])),
    peakBytes: median(list.map((run) => run.peakBytes)),
    sessionBytes: median(list.map((run) => run.sessionBytes)),
    homeBytes: median(list.map((run) => run.homeBytes)),
    otherRequests: median(list.map((run) => run.otherRequests.length)),
    otherRequestBytes: median(list.map((run) => run.otherRequests.reduce((sum, request) => sum + request.bytes, 0))),
  };
}

function parseOptions(args) {
  const parsed = { rounds: 5, json: false, model: undefined };
  for (let index = 0; index < args.length; index += 1) {
    if (args[index] === "--json") parsed.json = true;
    else if (args[index] === "--rounds") parsed.rounds = Number(args[++index]);
    else if (args[index] === "--model") parsed.model = args[++index];
    else throw new Error(`unknown option ${args[index]} (use --rounds <n>, --model <id>, --json)`);
  }
  if (parsed.model !== undefined && !/^[\w.-]+$/.test(parsed.model)) throw new Error("--model takes a model id, e.g. claude-sonnet-4-6");
  if (!Number.isInteger(parsed.rounds) || parsed.rounds < 1) throw new Error("--rounds takes a whole number ≥ 1");
  return parsed;
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}
function mean(values) {
  return values.reduce((sum, value) => sum + value, 0) / values.length;
}
function kb(bytes) {
  return `${(bytes / 1000).toFixed(bytes < 10_000 ? 2 : 1)} KB`;
}
function seconds(milliseconds) {
  return `${(milliseconds / 1000).toFixed(2)} s`;
}
function ms(milliseconds) {
  return `${Math.round(milliseconds)} ms`;
}
function megabytes(bytes) {
  return `${Math.round(bytes / 1_000_000)} MB`;
}
