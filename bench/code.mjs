// npm run bench:code — minagent/code's Bash, Grep and Glob measured side by side with their references, in one run:
//   Bash: per-call time of the tool against a bare child_process.spawn("bash", ["-c", cmd]) of the same command.
//   Grep and Glob: on this repository's node_modules against ripgrep (rg, and rg --files), with the result counts
//   compared. Without rg those rows are skipped (CI installs it: apt-get install -y ripgrep).
// Each pair alternates round by round (reference, tool, reference, tool…) so that load from elsewhere hits both
// alike; the figures are medians. The build measured is MINAGENT_CODE_BUILD (a folder holding the compiled src/,
// i.e. with code/tools/grep.js in it), else MINAGENT_ROOT's or this repository's dist/. To measure without touching
// dist/: npx tsc -p tsconfig.json --outDir /tmp/minagent-code && ln -s "$PWD/node_modules" /tmp/minagent-code/
//       MINAGENT_CODE_BUILD=/tmp/minagent-code node bench/code.mjs
import { spawn, spawnSync } from "node:child_process";
import { fileURLToPath, pathToFileURL } from "node:url";
import { minagentRoot } from "./minagent-root.mjs";

const build = process.env.MINAGENT_CODE_BUILD ?? `${minagentRoot}/dist`;
const load = (path) => import(pathToFileURL(`${build}/${path}`).href);
const { Workspace } = await load("code/workspace.js");
const { createBashTool } = await load("code/tools/bash.js");
const { createGrepTool } = await load("code/tools/grep.js");
const { createGlobTool } = await load("code/tools/glob.js");

const repository = fileURLToPath(new URL("..", import.meta.url)).replace(/\/$/, "");
const rounds = Number(process.env.ROUNDS ?? 7);
const workspace = new Workspace({ root: repository });
const context = { signal: new AbortController().signal, toolCallId: "bench" };

console.log(`minagent/code bench — build: ${build}`);
console.log(`node ${process.version}, ${(await import("node:os")).availableParallelism()} CPUs, ${rounds} rounds per row, medians\n`);

// ---------------------------------------------------------------------------------------------------------------
// Bash

/** The reference: spawn bash -c, wait for it to close, keep its output. */
function bareSpawn(command) {
  return new Promise((resolve, reject) => {
    const child = spawn("bash", ["-c", command]);
    let output = "";
    child.stdout.on("data", (chunk) => {
      output += chunk;
    });
    child.on("error", reject);
    child.on("close", () => resolve(output));
  });
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** Median milliseconds per call of `reference` and of `tool`, alternating blocks of `perRound` calls. */
async function sideBySide(reference, tool, perRound) {
  const times = { reference: [], tool: [] };
  for (let round = -1; round < rounds; round += 1) {
    for (const [name, run] of [
      ["reference", reference],
      ["tool", tool],
    ]) {
      const started = performance.now();
      let result;
      for (let call = 0; call < perRound; call += 1) result = await run();
      if (round >= 0) times[name].push((performance.now() - started) / perRound);
      times[`${name}Result`] = result;
    }
  }
  return {
    reference: median(times.reference),
    tool: median(times.tool),
    referenceResult: times.referenceResult,
    toolResult: times.toolResult,
  };
}

const rows = [];
const bash = createBashTool(workspace);
for (const command of ["true", "echo hi"]) {
  const measured = await sideBySide(
    () => bareSpawn(command),
    () => bash.execute({ command }, context),
    30,
  );
  rows.push({
    row: `Bash ${JSON.stringify(command)}`,
    against: "spawn bash -c",
    ...measured,
    check: measured.toolResult.includes("Exit code: 0") ? "ok" : "FAILED",
  });
}

// ---------------------------------------------------------------------------------------------------------------
// Grep and Glob against ripgrep

/** rg with the settings that make it search what Grep and Glob search (see the note printed after the table). */
function rg(args) {
  return new Promise((resolve, reject) => {
    const child = spawn("rg", ["--no-config", "--hidden", "--no-ignore-parent", "-g", "!.git", ...args, "node_modules"], {
      cwd: repository,
    });
    let output = "";
    child.stdout.setEncoding("utf8").on("data", (chunk) => {
      output += chunk;
    });
    child.on("error", reject);
    child.on("close", () => resolve(output));
  });
}

function countFiles() {
  return spawnSync("rg", ["--no-config", "--hidden", "--no-ignore-parent", "-g", "!.git", "--files", "node_modules"], {
    cwd: repository,
    encoding: "utf8",
    maxBuffer: 1 << 28,
  })
    .stdout.split("\n")
    .filter(Boolean).length;
}

const lines = (output) => output.split("\n").filter(Boolean);
const countOf = (output) =>
  Number(/^Found ([\d,]+)/m.exec(output)?.[1]?.replaceAll(",", "") ?? (output.startsWith("No ") ? 0 : Number.NaN));
const globTotal = (output) =>
  Number(/of ([\d,]+) files/.exec(output)?.[1]?.replaceAll(",", "") ?? (output.startsWith("No files") ? 0 : lines(output).length));
const countTotal = (output) => Number(/^Found ([\d,]+) matching lines?/m.exec(output)?.[1]?.replaceAll(",", "") ?? 0);
const rgCountTotal = (output) => lines(output).reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(":") + 1)), 0);

async function measureSearches() {
  const grep = createGrepTool(workspace);
  const glob = createGlobTool(workspace, { maxResults: 100 });
  const grepRows = [
    ["literal", ["-l", "useState"], { pattern: "useState" }],
    ["regex", ["-l", "function\\s+\\w+Async"], { pattern: "function\\s+\\w+Async" }],
    ["case-insensitive", ["-l", "-i", "readable"], { pattern: "readable", "-i": true }],
    ["glob filter *.ts", ["-l", "-g", "*.ts", "interface"], { pattern: "interface", glob: "*.ts" }],
    ["count mode", ["-c", "createContext"], { pattern: "createContext", output_mode: "count" }],
  ];
  for (const [name, rgArgs, grepArgs] of grepRows) {
    const count = grepArgs.output_mode === "count";
    const measured = await sideBySide(
      () => rg(rgArgs),
      () => grep.execute({ ...grepArgs, path: "node_modules", head_limit: 0 }, context),
      1,
    );
    const expected = count ? rgCountTotal(measured.referenceResult) : lines(measured.referenceResult).length;
    const got = count ? countTotal(measured.toolResult) : countOf(measured.toolResult);
    rows.push({ row: `Grep ${name}`, against: `rg ${rgArgs.join(" ")}`, ...measured, check: agreement(expected, got) });
  }
  const globRows = [
    ["**/*.ts", ["-g", "*.ts"]],
    ["**/*", []],
  ];
  for (const [pattern, rgArgs] of globRows) {
    for (const sorted of [false, true]) {
      const args = ["--files", ...rgArgs, ...(sorted ? ["--sortr", "modified"] : [])];
      const measured = await sideBySide(
        () => rg(args),
        () => glob.execute({ pattern, path: "node_modules" }, context),
        1,
      );
      const check = agreement(lines(measured.referenceResult).length, globTotal(measured.toolResult));
      rows.push({ row: `Glob ${pattern}`, against: `rg ${args.join(" ")}`, ...measured, check });
    }
  }
}

/** "same" when the counts agree, else both and the difference. */
function agreement(expected, got) {
  if (expected === got) return `same (${expected})`;
  const percent = ((100 * (got - expected)) / Math.max(expected, 1)).toFixed(2);
  return `rg ${expected}, tool ${got} (${percent}%)`;
}

const rgVersion = spawnSync("rg", ["--version"], { encoding: "utf8" });
if (rgVersion.error || rgVersion.status !== 0) {
  console.log("rg (ripgrep) is not installed: the Grep and Glob rows are skipped (apt-get install -y ripgrep).\n");
} else {
  console.log(`${rgVersion.stdout.split("\n")[0]}; corpus: node_modules (${countFiles()} files rg would search)\n`);
  await measureSearches();
}

// ---------------------------------------------------------------------------------------------------------------
// Report

const ms = (value) => (value < 10 ? value.toFixed(2) : value.toFixed(0));
const table = [
  ["row", "reference", "reference ms", "tool ms", "ratio", "counts"],
  ...rows.map((row) => [row.row, row.against, ms(row.reference), ms(row.tool), `${(row.tool / row.reference).toFixed(2)}×`, row.check]),
];
const widths = table[0].map((_, column) => Math.max(...table.map((cells) => cells[column].length)));
for (const [index, cells] of table.entries()) {
  console.log(
    cells.map((cell, column) => (column >= 2 && column <= 4 ? cell.padStart(widths[column]) : cell.padEnd(widths[column]))).join("  "),
  );
  if (index === 0) console.log(widths.map((width) => "-".repeat(width)).join("  "));
}
console.log(`
Targets: Bash ≤ 1.2× a bare spawn; Grep ≤ 3× rg. rg runs with --hidden (Grep and Glob include dot files),
--no-ignore-parent (a folder asked for by name, node_modules, is searched with the ignore files inside it only:
the repository's "dist/" rule does not apply inside it) and -g '!.git'. Counts may still differ where rg and Grep
tell binary files apart differently (rg stops at the first NUL byte it reads and keeps earlier matches; Grep skips
any file with a NUL byte) or where a file is over Grep's 50 MB limit. rg --files --sortr modified is the like-for-like
reference for Glob, which reads every match's modification time to list the newest first.`);
