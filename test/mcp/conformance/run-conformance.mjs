#!/usr/bin/env node
// Runs the MCP maintainers' client conformance suite (@modelcontextprotocol/conformance, pinned in package.json)
// against two adapters: minagent's (minagent-client.mjs, on minagent/mcp's public API) and the baseline on the bare
// SDK (sdk-client.mjs). Prints one line per scenario with both results, and exits 1 when minagent fails any
// scenario, or when the suite no longer lists the scenarios counted here (a new pinned version: look at them).
//
//   node test/mcp/conformance/run-conformance.mjs [--scenario <name>] [--only minagent|sdk] [--verbose]
//
// The suite needs Node 22 or later (on an older Node this runs itself again on the registry's node@22). Its servers
// listen on every interface, so it runs in a network namespace of its own that has only a loopback interface (`unshare -rn`, then `ip link set lo up`): nothing it starts is reachable from elsewhere, and
// nothing it or a client tries leaves the machine. Each scenario's results go to a temporary folder.
import { spawn, spawnSync } from "node:child_process";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const suite = join(dirname(createRequire(import.meta.url).resolve("@modelcontextprotocol/conformance/package.json")), "dist", "index.js");
const expectedScenarioCount = 26;
const adapters = { minagent: join(here, "minagent-client.mjs"), sdk: join(here, "sdk-client.mjs") };

const args = process.argv.slice(2);
if (!args.includes("--in-namespace")) {
  // The suite needs Node 22 or later: an older Node runs it on the registry's node@22 (as CI's other runs do).
  const node =
    Number(process.versions.node.split(".")[0]) >= 22
      ? process.execPath
      : spawnSync("npx", ["-y", "node@22", "-p", "process.execPath"], { encoding: "utf8" }).stdout.trim();
  if (!node) {
    console.error("The conformance suite needs Node 22 or later, and `npx -y node@22` could not fetch it: run this with Node 22.");
    process.exit(2);
  }
  const inside = spawnSync(
    "unshare",
    [
      "-rn",
      "sh",
      "-c",
      'PATH="$PATH:/usr/sbin:/sbin" ip link set lo up && exec "$0" "$@"',
      node,
      fileURLToPath(import.meta.url),
      ...args,
      "--in-namespace",
    ],
    { stdio: "inherit" },
  );
  if (inside.error || inside.status === null) {
    console.error(
      `Could not run the conformance suite in a loopback-only network namespace (${inside.error?.message ?? `signal ${inside.signal}`}): it needs unshare (util-linux), ip (iproute2) and user namespaces.`,
    );
    process.exit(2);
  }
  process.exit(inside.status);
}
const option = (name) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
const verbose = args.includes("--verbose");
const only = option("--only");

function run(command, commandArgs) {
  return new Promise((resolve) => {
    const child = spawn(command, commandArgs, { stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (chunk) => (output += chunk));
    child.stderr.on("data", (chunk) => (output += chunk));
    child.on("close", (code) => resolve({ code, output }));
  });
}

const suiteArgs = (...rest) => [suite, ...rest];

async function clientScenarios() {
  const { output } = await run(process.execPath, suiteArgs("list"));
  const section = output.slice(output.indexOf("Client scenarios"));
  return [...section.matchAll(/^\s+- (\S+)/gm)].map((match) => match[1]);
}

/** One scenario with one adapter: passed when the suite's checks hold no FAILURE and the client did its part. */
async function runScenario(scenario, adapter) {
  const outputDirectory = await mkdtemp(join(tmpdir(), "mcp-conformance-"));
  try {
    const { code, output } = await run(
      process.execPath,
      suiteArgs(
        "client",
        "--command",
        `${process.execPath} ${adapters[adapter]}`,
        "--scenario",
        scenario,
        "--output-dir",
        outputDirectory,
        "--timeout",
        "60000",
      ),
    );
    const failures = [];
    // A scenario named auth/x writes auth/x-<time>/checks.json.
    const files = (await readdir(outputDirectory, { recursive: true })).filter((file) => file.endsWith("checks.json"));
    if (files.length === 0) failures.push("the suite wrote no checks");
    for (const file of files) {
      const checks = JSON.parse(await readFile(join(outputDirectory, file), "utf8"));
      for (const check of checks) if (check.status === "FAILURE") failures.push(`${check.id}: ${check.errorMessage ?? check.description}`);
    }
    return { passed: code === 0 && failures.length === 0, failures, output };
  } finally {
    await rm(outputDirectory, { recursive: true, force: true });
  }
}

const scenarios = option("--scenario") ? [option("--scenario")] : await clientScenarios();
if (!option("--scenario") && scenarios.length !== expectedScenarioCount) {
  console.error(`The suite lists ${scenarios.length} client scenarios, not ${expectedScenarioCount}: ${scenarios.join(", ")}`);
  process.exit(1);
}
const which = only ? [only] : ["minagent", "sdk"];
const failed = { minagent: [], sdk: [] };
// Two at a time: each scenario starts its own servers on free ports, and the machine may have only 2 CPUs.
const results = new Map();
let next = 0;
await Promise.all(
  [0, 1].map(async () => {
    while (next < scenarios.length) {
      const scenario = scenarios[next++];
      const row = {};
      for (const adapter of which) row[adapter] = await runScenario(scenario, adapter);
      results.set(scenario, row);
    }
  }),
);
for (const scenario of scenarios) {
  const row = results.get(scenario);
  const cells = which.map((adapter) => `${adapter} ${row[adapter].passed ? "pass" : "FAIL"}`);
  console.log(`${scenario.padEnd(44)} ${cells.join("   ")}`);
  for (const adapter of which) {
    if (row[adapter].passed) continue;
    failed[adapter].push(scenario);
    for (const failure of row[adapter].failures) console.log(`    ${adapter}: ${failure}`);
    if (verbose || row[adapter].failures.length === 0) console.log(row[adapter].output.replace(/^/gm, `    ${adapter}| `));
  }
}
for (const adapter of which)
  console.log(`${adapter}: ${scenarios.length - failed[adapter].length} of ${scenarios.length} client scenarios pass`);
process.exit(failed.minagent.length > 0 ? 1 : 0);
