// npm run bench:code-cli — `minagent code -p` side by side with Claude Code and OpenAI's Codex on the same three-turn
// task (list the files, read notes.txt, answer), all driven offline by our own scripted model servers on 127.0.0.1,
// each run in a fresh project folder with a fresh HOME (code-cli-run.mjs):
//   minagent code -p on Anthropic's wire (Bash, Read)      ─┐ scripted Messages API (code-cli-server.mjs)
//   Claude Code (Bash, Read)                               ─┘
//   minagent code -p on OpenAI's Responses wire (Bash, Read) ─┐ scripted Responses API (code-cli-responses-server.mjs)
//   Codex: `codex exec`, its shell tool twice (ls, cat)      ─┘ in a loopback-only network namespace (code-cli-codex.mjs)
// Per program: the bytes of each model request and of its tool schemas and system prompt, the wall time of the whole
// task (spawn to exit) and of each turn, the peak resident memory, the session file written; then minagent's time to
// the first request when resuming a session of 10,000 messages (code-cli-resume.mjs), and the wall time of each
// program's `--version` beside `node -e 0`, the interactive start on a pty, the engine from outside beside the bare
// loop (engine-outside.mjs, N = 100 and 500) and `import "minagent"` and `"minagent/code"` by name. The ratios are
// checked against issue 12's and issue 29's aims.
//   node bench/code-cli.mjs [--rounds 5] [--model <id>: minagent and Claude Code on this model]
//     [--openai-model <id>: minagent and Codex on this one, default gpt-5.5] [--json] [--smoke: 1 round, no warm-up]
// Claude Code: npm install --prefix /tmp/cc @anthropic-ai/claude-code@latest (or CLAUDE_CODE_BIN / CLAUDE_CODE_PREFIX,
// see code-cli-clients.mjs). Without it, minagent's figures are printed beside the issue's reference figures, labelled so.
// Codex: npm install --prefix /tmp/codex @openai/codex (or CODEX_BIN / CODEX_PREFIX, see code-cli-codex.mjs).
// A peer that is missing or fails is reported as not measured, and the run goes on; minagent failing is exit 1.
// We measure the peers' requests by size only; none of their text is kept.
import { spawnSync } from "node:child_process";
import { copyFileSync, rmSync } from "node:fs";
import { availableParallelism, loadavg } from "node:os";
import { join } from "node:path";
import { claudeCodeClient, defaultModel, defaultOpenAIModel, minagentClient } from "./code-cli-clients.mjs";
import { codexClient, codexEnv } from "./code-cli-codex.mjs";
import { measureResume, resumedMessages } from "./code-cli-resume.mjs";
import { measureProcess, memorySource, openWorkspace, runTask } from "./code-cli-run.mjs";
import { formatOutside, makeConsumerFolder, measureOutside } from "./engine-outside.mjs";
import { measureInteractiveStart } from "./interactive-start.mjs";
import { minagentRoot } from "./minagent-root.mjs";

const options = parseOptions(process.argv.slice(2));
const warmUp = !options.smoke;

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
/** Issue 29's aims: against Codex, and minagent's time to its first request against a bare Node's start. */
const codexAims = { wallMs: 1, peakBytes: 1, firstRequestPerNodeStart: 2.5, interactiveStartMs: 200, enginePerBareLoop: 3 };

const claude = claudeCodeClient(options.model);
const codex = codexClient(options.openaiModel);
const log = options.json ? () => {} : (line = "") => console.log(line);
const failures = new Map();
const fail = (client, error) => failures.set(client, error instanceof Error ? error.message : String(error));
// Codex runs in its own network namespace (its runTask); the others directly.
const measure = (client) => (client.runTask ? client.runTask() : runTask(client));

// minagent and Claude Code talk to the same model: --model, else the one Claude Code picks by default (as a user runs
// it, and as the issue measured it; its prompt differs by model), found by its first run: the warm-up, or with
// --smoke its one measured run.
let claudeFirst;
if (!("missing" in claude)) claudeFirst = await measure(claude).catch((error) => void fail(claude, error));
const minagent = minagentClient(options.model ?? claudeFirst?.model ?? defaultModel);
const minagentOpenAI = minagentClient(options.openaiModel, { wire: "responses" });
const present = (client) => !("missing" in client) && !failures.has(client);
const clients = [minagent, minagentOpenAI, ...[claude, codex].filter(present)];
const ourClients = [minagent, minagentOpenAI];

log(`minagent code vs Claude Code and Codex — three-turn task (list, read, answer) against scripted model APIs on 127.0.0.1`);
log(
  `node ${process.version}, ${availableParallelism()} CPUs, load ${loadavg()
    .map((value) => value.toFixed(2))
    .join(" ")}; ${options.rounds} round${options.rounds === 1 ? "" : "s"}${warmUp ? " after a warm-up" : ", no warm-up"}, ` +
    `alternating; memory: ${memorySource}`,
);
const modelSource = options.model ? "--model" : claudeFirst ? "Claude Code's default" : "the bench's default";
log(`models: ${minagent.model} on Anthropic's wire (${modelSource}); ${minagentOpenAI.model} on OpenAI's Responses wire`);
log(`minagent ${minagent.version}: ${minagent.args()[0]}`);
log("missing" in claude ? `Claude Code: not measured: ${claude.missing}` : `Claude Code ${claude.version}: ${claude.command}`);
log(
  "missing" in codex
    ? `Codex: not measured: ${codex.missing}`
    : `Codex ${codex.version}: ${codex.command} (codex exec, read-only sandbox, approval never; in a loopback-only network namespace)`,
);
log();

const runs = new Map(clients.map((client) => [client, []]));
// Claude Code's first run was its warm-up; with --smoke there is none, and it is its measured run.
if (!warmUp && claudeFirst) runs.get(claude).push(claudeFirst);
for (let round = warmUp ? -1 : 0; round < options.rounds; round += 1) {
  // Alternate who goes first, so that none always runs on the heels of the same one.
  const order = round % 2 === 0 ? clients : [...clients].reverse();
  for (const client of order) {
    if (failures.has(client) || (round === (warmUp ? -1 : 0) && client === claude)) continue; // its first run is above
    try {
      const run = await measure(client);
      if (round >= 0) runs.get(client).push(run);
    } catch (error) {
      fail(client, error);
    }
  }
}
const figures = new Map([...runs].filter(([client]) => !failures.has(client)).map(([client, list]) => [client, summarize(list)]));
const resume = await measureResume(options.rounds, minagent.model);
const nodeStartMs = await measureNodeStart(options.rounds);
const versions = await measureVersions(options.rounds);
const interactive = await measureInteractiveStart(options.smoke ? 1 : Math.max(options.rounds, 5));
// The engine as a user's own harness sees it (bench/engine-outside.mjs), and the package's imports by name.
const outside = measureOutside({
  packageRoot: minagentRoot,
  ns: options.smoke ? [100] : [100, 500],
  processes: options.smoke ? 1 : 7,
  kindIds: ["bare", "minagent-model"],
});
const imports = measureImports(options.smoke ? 1 : 7);
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
const aimChecks = checkAims();

// minagent's own figures must all be numbers: a NaN is a broken measurement, and fails the run as minagent failing does.
const broken = [
  ...ourClients.flatMap((client) =>
    figures.has(client)
      ? Object.entries(figures.get(client))
          .filter(([, value]) => typeof value === "number" && !Number.isFinite(value))
          .map(([key]) => `${client.name}: ${key}`)
      : [],
  ),
  ...Object.entries(resumeFigures)
    .filter(([, value]) => !Number.isFinite(value))
    .map(([key]) => `resume: ${key}`),
  ...(Number.isFinite(versions.medians.minagent) ? [] : ["minagent --version"]),
  ...("skipped" in interactive || Number.isFinite(interactive.promptMs) ? [] : ["interactive start"]),
  ...outside.failures.map((failure) => `engine from outside (${failure.kind}, N = ${failure.n})`),
  ...Object.entries(imports)
    .filter(([, value]) => !Number.isFinite(value))
    .map(([specifier]) => `import "${specifier}"`),
];

if (options.json) {
  const named = Object.fromEntries(
    [...figures].map(([client, value]) => [client.name, { version: client.version, model: client.model, wire: client.wire, ...value }]),
  );
  const failed = Object.fromEntries([...failures].map(([client, message]) => [client.name, message]));
  const result = {
    model: minagent.model,
    openaiModel: minagentOpenAI.model,
    smoke: options.smoke,
    rounds: options.rounds,
    figures: named,
    failed,
    claudeCodeMissing: "missing" in claude ? claude.missing : undefined,
    codexMissing: "missing" in codex ? codex.missing : undefined,
    resume: resumeFigures,
    versionMs: versions.medians,
    interactiveStart: interactive,
    engineOutside: outside.rows,
    importMs: imports,
    versionFailed: versions.failed,
    aimChecks,
    broken,
    issueReference,
    aims,
    codexAims,
  };
  console.log(JSON.stringify(result, null, 2));
} else report();
const ourFailures = ourClients.filter((client) => failures.has(client));
if (options.json && broken.length > 0) console.error(`minagent figures that are not numbers: ${broken.join(", ")}`);
process.exitCode = ourFailures.length > 0 || broken.length > 0 ? 1 : 0;

function report() {
  for (const [client, message] of failures) log(`${client.name}: FAILED, not measured: ${message}\n`);
  const ours = figures.get(minagent);
  const oursOpenAI = figures.get(minagentOpenAI);
  const claudes = figures.get(claude);
  const codexes = figures.get(codex);
  const reference = issueReference;
  const name = (client, label) => (figures.has(client) ? `${label} ${client.version}` : `${label} (not measured)`);
  const rows = [
    [
      "",
      "minagent code -p (Anthropic wire)",
      "minagent code -p (OpenAI Responses wire)",
      name(claude, "Claude Code"),
      name(codex, "Codex"),
      "minagent (Anthropic) / Claude Code",
      "aim",
      "",
      "minagent (Responses) / Codex",
      "aim",
      "",
      `issue's reference figures (Claude Code ${reference.version})`,
      "ratio",
    ],
    ["---", "---:", "---:", "---:", "---:", "---:", "---:", ":---:", "---:", "---:", ":---:", "---:", "---:"],
  ];
  const ratioCells = (value, peer, aim) => {
    const ratio = value === undefined || peer === undefined ? undefined : value / peer;
    return [
      ratio === undefined ? "—" : ratio.toFixed(2),
      aim === undefined ? "" : `≤ ${fraction(aim)}`,
      aim === undefined || ratio === undefined ? "" : ratio <= aim ? "✓" : "✗",
    ];
  };
  // key: a figure of summarize(); the Claude Code ratio is of minagent on the same wire, and so is Codex's.
  const row = (label, format, key, { aim, codexAim, referenceValue } = {}) => {
    const value = (figure) => figure?.[key];
    const referenceRatio = referenceValue === undefined || ours === undefined ? undefined : ours[key] / referenceValue;
    rows.push([
      label,
      ...[ours, oursOpenAI, claudes, codexes].map((figure) => (value(figure) === undefined ? "—" : format(value(figure)))),
      ...ratioCells(value(ours), value(claudes), aim),
      ...ratioCells(value(oursOpenAI), value(codexes), codexAim),
      referenceValue === undefined ? "—" : format(referenceValue),
      referenceRatio === undefined ? "—" : `${referenceRatio.toFixed(2)}${aim === undefined ? "" : referenceRatio <= aim ? " ✓" : " ✗"}`,
    ]);
  };
  row("bytes per request (mean of 3)", kb, "requestBytes", { aim: aims.requestBytes, referenceValue: reference.requestBytes });
  row("  of which tool schemas", kb, "toolBytes", { referenceValue: reference.toolBytes });
  row("  of which system prompt", kb, "systemBytes", { referenceValue: reference.systemBytes });
  row("  tools offered", String, "toolCount", { referenceValue: reference.toolCount });
  row("wall time, whole task (median)", seconds, "wallMs", {
    aim: aims.wallMs,
    codexAim: codexAims.wallMs,
    referenceValue: mean(reference.wallMs),
  });
  row("  start → first model request", ms, "firstTurnMs");
  row("  first → second request (ls: Bash, Codex's shell)", ms, "bashStepMs");
  row("  second → third request (Read; Codex: cat)", ms, "readStepMs");
  row("  third request → exit", ms, "exitMs");
  row("peak resident memory (median)", megabytes, "peakBytes", {
    aim: aims.peakBytes,
    codexAim: codexAims.peakBytes,
    referenceValue: reference.peakBytes,
  });
  row("session file written", kb, "sessionBytes", { aim: aims.sessionBytes, referenceValue: reference.sessionBytes });
  row("everything written under HOME", kb, "homeBytes");
  for (const line of rows) log(`| ${line.join(" | ")} |`);
  log();
  const measured = [
    [minagent, "minagent (Anthropic)"],
    [minagentOpenAI, "minagent (Responses)"],
    [claude, "Claude Code"],
    [codex, "Codex"],
  ].filter(([client]) => figures.has(client));
  const spread = (value) => `${seconds(value.wallRange[0])}–${seconds(value.wallRange[1])}`;
  log(
    `wall time range: ${measured.map(([client, label]) => `${label} ${spread(figures.get(client))}`).join(", ")}; issue's reference 0.37–0.52 s`,
  );
  const others = (value) => `${value.otherRequests} (${kb(value.otherRequestBytes)})`;
  log(`requests besides the 3 model turns: ${measured.map(([client, label]) => `${label} ${others(figures.get(client))}`).join(", ")}`);
  log(`KB = 1,000 bytes, MB = 1,000,000; request parts are the JSON of the body's tools and system fields as sent`);
  log(
    `(on the Responses wire the system prompt is \`instructions\` and the developer items opening \`input\`, where Codex puts its prompt)`,
  );
  if (!claudes) log(`The issue's reference figures were measured earlier, not by this run; ratios to them are only indicative.`);
  log();
  const within = resumeFigures.bodyMs < aims.resumeMs ? "✓" : "✗";
  log(
    `resume a session of ${resumedMessages.toLocaleString("en-US")} messages (${kb(resumeFigures.fileBytes)} file) with -p --resume: ` +
      `first request at ${ms(resumeFigures.headersMs)} (headers), ${ms(resumeFigures.bodyMs)} (whole body, ` +
      `${kb(resumeFigures.requestBytes)}, ${resumeFigures.requestMessages.toLocaleString("en-US")} messages); aim < ${aims.resumeMs} ms ${within}; ` +
      `whole run ${ms(resumeFigures.wallMs)}, peak ${megabytes(resumeFigures.peakBytes)}`,
  );
  log(`for scale: a new session's first request came at ${cell(ours?.firstTurnMs, ms)}; \`node -e 0\` alone takes ${ms(nodeStartMs)} here`);
  log();
  const versionRounds = `median of ${options.rounds}${warmUp ? " after a warm-up" : ""}, interleaved`;
  log(`| \`--version\` wall time (${versionRounds}) | ${versions.programs.map((program) => program.label).join(" | ")} |`);
  log(`| --- | ${versions.programs.map(() => "---:").join(" | ")} |`);
  log(`| spawn → exit | ${versions.programs.map((program) => cell(versions.medians[program.key], ms)).join(" | ")} |`);
  for (const [label, message] of Object.entries(versions.failed)) log(`${label}: not measured: ${message}`);
  log();
  if ("skipped" in interactive) log(`interactive start: not measured (${interactive.skipped})`);
  else
    log(
      `interactive start, spawn → prompt drawn on a pty (median of ${interactive.runs}): minagent code ${ms(interactive.promptMs)}, ` +
        `\`node -e 0\` ${ms(interactive.nodeMs)} on the same pty; load ${loadavg()[0].toFixed(2)} on ${availableParallelism()} CPUs`,
    );
  log();
  log(`the engine from outside (bench/engine-outside.mjs: a fresh process per run set, \`import "minagent"\` by name, a scripted`);
  log(`model asking for one tool call per step; ${plural(outside.rows[0]?.processes ?? 0, "process", "processes")} each, interleaved):`);
  log(formatOutside(outside).trimEnd());
  log();
  log(
    `import by name from a fresh process (median of ${options.smoke ? 1 : 7}): ` +
      Object.entries(imports)
        .map(([specifier, value]) => `"${specifier}" ${ms(value)}`)
        .join(", "),
  );
  log();
  log("aims (ratios measured in this run):");
  for (const check of aimChecks) log(`  ${check.pass === undefined ? "–" : check.pass ? "✓" : "✗"} ${check.text}`);
}

/**
 * Every aim as a line: the figures it compares and whether it was met; `pass` is undefined when a peer was not measured.
 * @returns {{ aim: string, pass: boolean | undefined, ratio: number | undefined, limit: number, text: string }[]}
 */
function checkAims() {
  const checks = [];
  const labelOf = (client) =>
    client === minagent ? "minagent (Anthropic wire)" : client === minagentOpenAI ? "minagent (Responses wire)" : client.name;
  const compare = (aim, key, format, client, peer, peerLabel, limit) => {
    const ours = figures.get(client)?.[key];
    const theirs = figures.get(peer)?.[key];
    const unmeasured = ours === undefined ? `${labelOf(client)} failed` : theirs === undefined ? whyNot(peer, peerLabel) : undefined;
    const ratio = unmeasured ? undefined : ours / theirs;
    const bound = limit === 1 ? `${peerLabel}'s` : `${fraction(limit)} of ${peerLabel}'s`;
    const text = unmeasured
      ? `${aim}: ${labelOf(client)} ≤ ${bound}: not measured (${unmeasured})`
      : `${aim}: ${labelOf(client)} ${format(ours)} vs ${peerLabel} ${format(theirs)}: ratio ${ratio.toFixed(2)}, aim ≤ ${limit === 1 ? "1" : fraction(limit)}`;
    checks.push({ aim, client: client.name, peer: peerLabel, pass: ratio === undefined ? undefined : ratio <= limit, ratio, limit, text });
  };
  compare("bytes per request", "requestBytes", kb, minagent, claude, "Claude Code", aims.requestBytes);
  compare("task wall time", "wallMs", seconds, minagent, claude, "Claude Code", aims.wallMs);
  for (const client of ourClients) compare("task wall time", "wallMs", seconds, client, codex, "Codex", codexAims.wallMs);
  for (const client of ourClients) {
    const first = figures.get(client)?.firstTurnMs;
    const ratio = first === undefined ? undefined : first / nodeStartMs;
    const limit = codexAims.firstRequestPerNodeStart;
    checks.push({
      aim: "spawn → first model request",
      client: client.name,
      peer: "node -e 0",
      pass: ratio === undefined ? undefined : ratio <= limit,
      ratio,
      limit,
      text:
        ratio === undefined
          ? `spawn → first model request: ${labelOf(client)} failed`
          : `spawn → first model request: ${labelOf(client)} ${ms(first)} vs \`node -e 0\` ${ms(nodeStartMs)}: ${ratio.toFixed(2)} ×, aim ≤ ${limit} ×`,
    });
  }
  for (const client of ourClients) compare("peak memory", "peakBytes", megabytes, client, claude, "Claude Code", aims.peakBytes);
  for (const client of ourClients) compare("peak memory", "peakBytes", megabytes, client, codex, "Codex", codexAims.peakBytes);
  compare("session file", "sessionBytes", kb, minagent, claude, "Claude Code", aims.sessionBytes);
  const resumePass = resumeFigures.bodyMs < aims.resumeMs;
  checks.push({
    aim: "resume 10,000 messages",
    client: minagent.name,
    peer: undefined,
    pass: resumePass,
    ratio: undefined,
    limit: aims.resumeMs,
    text: `resume ${resumedMessages.toLocaleString("en-US")} messages: first request's whole body at ${ms(resumeFigures.bodyMs)}, aim < ${aims.resumeMs} ms`,
  });
  if (!("skipped" in interactive))
    checks.push({
      aim: "interactive start",
      client: "minagent code",
      peer: undefined,
      pass: interactive.promptMs <= codexAims.interactiveStartMs,
      ratio: undefined,
      limit: codexAims.interactiveStartMs,
      text: `interactive start: prompt drawn at ${ms(interactive.promptMs)}, aim ≤ ${codexAims.interactiveStartMs} ms on a quiet machine (load ${loadavg()[0].toFixed(2)})`,
    });
  for (const row of outside.rows.filter((row) => row.kind !== "bare")) {
    const bare = outside.rows.find((other) => other.kind === "bare" && other.n === row.n);
    const ratio = bare ? row.medianUs / bare.medianUs : undefined;
    const limit = codexAims.enginePerBareLoop;
    checks.push({
      aim: `engine per step from outside, N = ${row.n}`,
      client: "minagent Agent",
      peer: "bare loop",
      pass: ratio === undefined ? undefined : ratio <= limit,
      ratio,
      limit,
      text:
        ratio === undefined
          ? `engine per step from outside, N = ${row.n}: the bare loop failed`
          : `engine per step from outside, N = ${row.n}: minagent Agent ${row.medianUs.toFixed(2)} µs vs the bare loop ${bare.medianUs.toFixed(2)} µs: ${ratio.toFixed(2)} ×, aim ≤ ${limit} ×`,
    });
  }
  return checks;
}

function plural(count, one, many) {
  return `${count} ${count === 1 ? one : many}`;
}

/** Median ms of a fresh process's `import()` of minagent's entry points by name, from a folder that depends on it. */
function measureImports(rounds) {
  const consumer = makeConsumerFolder(minagentRoot);
  const script = join(consumer, "import-time.mjs");
  copyFileSync(new URL("import-time.mjs", import.meta.url), script);
  const specifiers = ["minagent", "minagent/code"];
  const samples = Object.fromEntries(specifiers.map((specifier) => [specifier, []]));
  try {
    for (let round = 0; round < rounds; round++)
      for (const specifier of specifiers) {
        const run = spawnSync(process.execPath, [script, specifier], { cwd: consumer, encoding: "utf8" });
        samples[specifier].push(run.status === 0 ? JSON.parse(run.stdout).ms : Number.NaN);
      }
  } finally {
    rmSync(consumer, { recursive: true, force: true });
  }
  return Object.fromEntries(specifiers.map((specifier) => [specifier, median(samples[specifier])]));
}

/** Why a peer has no figures, in short (the whole reason is printed at the top). */
function whyNot(peer, label) {
  if ("missing" in peer) return `${label} is not installed or cannot run here; see above`;
  if (failures.has(peer)) return `${label} failed; see above`;
  return `${label} not measured`;
}

/**
 * Median wall time of each program's `--version` (minagent's CLI, Codex's and Claude Code's native binaries) and of
 * `node -e 0`, interleaved: every round runs each once, the order alternating. A peer that is missing or fails is left out.
 */
async function measureVersions(rounds) {
  const workspace = openWorkspace();
  // Codex's CODEX_HOME and TMPDIR in the workspace (its --version makes its helper folder, and must not in ~/.codex).
  const codexHome = "missing" in codex ? undefined : codexEnv(workspace.home);
  try {
    const base = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: workspace.home, TERM: "dumb" };
    const programs = [
      {
        key: "minagent",
        label: "minagent --version",
        command: process.execPath,
        args: [join(minagentRoot, "dist", "cli", "bin.js"), "--version"],
        env: base,
      },
      ...("missing" in codex
        ? []
        : [{ key: "codex", label: "codex --version", command: codex.command, args: ["--version"], env: { ...base, ...codexHome.env } }]),
      ...("missing" in claude
        ? []
        : [{ key: "claudeCode", label: "Claude Code --version", command: claude.command, args: ["--version"], env: claude.env(base) }]),
      { key: "node", label: "node -e 0", command: process.execPath, args: ["-e", "0"], env: base },
    ];
    const times = new Map(programs.map((program) => [program, []]));
    const failed = {};
    for (let round = warmUp ? -1 : 0; round < rounds; round += 1) {
      const order = round % 2 === 0 ? programs : [...programs].reverse();
      for (const program of order) {
        if (program.label in failed) continue;
        const run = await measureProcess(program.command, program.args, { cwd: workspace.project, env: program.env });
        if (run.exit !== 0 || (program.key !== "node" && !/\d+\.\d+/.test(run.stdout))) {
          failed[program.label] = `exit ${run.exit}: ${(run.stderr || run.stdout).trim().split("\n")[0].slice(0, 200)}`;
          continue;
        }
        if (round >= 0) times.get(program).push(run.wallMs);
      }
    }
    const medians = Object.fromEntries(
      programs.filter((program) => !(program.label in failed)).map((program) => [program.key, median(times.get(program))]),
    );
    return { programs: programs.filter((program) => !(program.label in failed)), medians, failed };
  } finally {
    codexHome?.close();
    workspace.close();
  }
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
  const parsed = { rounds: 5, json: false, smoke: false, model: undefined, openaiModel: defaultOpenAIModel };
  let rounds;
  for (let index = 0; index < args.length; index += 1) {
    if (args[index] === "--json") parsed.json = true;
    else if (args[index] === "--smoke") parsed.smoke = true;
    else if (args[index] === "--rounds") rounds = Number(args[++index]);
    else if (args[index] === "--model") parsed.model = args[++index];
    else if (args[index] === "--openai-model") parsed.openaiModel = args[++index];
    else throw new Error(`unknown option ${args[index]} (use --rounds <n>, --model <id>, --openai-model <id>, --json, --smoke)`);
  }
  // --smoke is one round without a warm-up (CI: every path runs once); --rounds may still ask for more.
  parsed.rounds = rounds ?? (parsed.smoke ? 1 : 5);
  for (const model of [parsed.model, parsed.openaiModel])
    if (model !== undefined && !/^[\w.-]+$/.test(model))
      throw new Error("--model and --openai-model take a model id, e.g. claude-sonnet-4-6");
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
function fraction(aim) {
  return aim === 1 ? "1" : `1/${Math.round(1 / aim)}`;
}
function cell(value, format) {
  return value === undefined ? "—" : format(value);
}
