// npm run bench:code — minagent/code's Bash, Grep and Glob measured side by side with their references, in one run:
//   Bash: per-call time of the tool against a bare child_process.spawn("bash", ["-c", cmd]) of the same command.
//   Grep and Glob: on this repository's node_modules against ripgrep (rg, and rg --files), with the result counts
//   compared. Without rg those rows are skipped (CI installs it: apt-get install -y ripgrep).
//   Grep's engine: the tool as built (JavaScript's RegExp, a watchdog killing a thread stuck on one file) against the
//   same tool with re2js (linear time) in its search thread, on a tree made for the run, ordinary and catastrophic
//   patterns; what re2js cannot compile; its import time (GREP_ENGINE_ROUNDS rounds, default min(ROUNDS, 5)).
// Each pair alternates round by round (reference, tool, reference, tool…) so that load from elsewhere hits both
// alike; the figures are medians. The build measured is MINAGENT_CODE_BUILD (a folder holding the compiled src/,
// i.e. with code/tools/grep.js in it), else MINAGENT_ROOT's or this repository's dist/. To measure without touching
// dist/: npx tsc -p tsconfig.json --outDir /tmp/minagent-code && ln -s "$PWD/node_modules" /tmp/minagent-code/
//       MINAGENT_CODE_BUILD=/tmp/minagent-code node bench/code.mjs
import { spawn, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
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

// ---------------------------------------------------------------------------------------------------------------
// Grep's engine: JavaScript's RegExp with the watchdog (the tool as built) against re2js (linear time)
//
// The same tool twice: as built, and a copy of the build whose search thread runs re2js instead of RegExp
// (bench/grep-re2js-regexp.cjs stands in for RegExp there; nothing else changes: the walk, the literal prefilter,
// the threads, the output). The corpus is a tree made for the run: this repository's src/, test/ and docs/ and a few
// packages of node_modules. Then a pattern that backtracks catastrophically, what re2js cannot compile, its import.

const { compileSearchPattern } = await load("code/tools/grep.js");
// re2js is no dependency of the package: without it these rows are skipped; `npm install --no-save re2js@2.10.0` brings it.
const re2jsRegExp = fileURLToPath(new URL("./grep-re2js-regexp.cjs", import.meta.url));
const { Re2RegExp } = await import("re2js").then(
  () => createRequire(import.meta.url)(re2jsRegExp),
  () => ({}),
);
const engineRounds = Number(process.env.GREP_ENGINE_ROUNDS ?? Math.min(rounds, 5));
const threadSource = `${build}/code/tools/grep/search-thread.cjs`;
if (Re2RegExp === undefined) {
  console.log("\nGrep's engine: skipped (re2js is not installed: npm install --no-save re2js@2.10.0).");
} else if (!existsSync(threadSource)) {
  console.log(`\nGrep's engine: skipped (${threadSource} is missing: a build from before Grep's search thread was a module of its own).`);
} else {
  const scratch = mkdtempSync(join(tmpdir(), "minagent-grep-bench-"));
  try {
    await measureEngines(scratch);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

async function measureEngines(scratch) {
  // The re2js copy of the build, resolving its packages from this repository's node_modules.
  cpSync(build, join(scratch, "re2js-build"), { recursive: true, filter: (path) => !path.endsWith("/node_modules") });
  symlinkSync(join(repository, "node_modules"), join(scratch, "node_modules"));
  const patched = join(scratch, "re2js-build/code/tools/grep/search-thread.cjs");
  const original = readFileSync(patched, "utf8");
  const swapped = original.replaceAll("new RegExp(settings.source", "new Re2RegExp(settings.source");
  if (swapped.split("new Re2RegExp(").length !== 3) throw new Error(`${patched}: expected two new RegExp(settings.source, …) to swap`);
  const adapter = `const { Re2RegExp } = require(${JSON.stringify(re2jsRegExp)});\n`;
  writeFileSync(patched, swapped.startsWith('"use strict";\n') ? swapped.replace("\n", `\n${adapter}`) : adapter + swapped);
  const { createGrepTool: createRe2Grep } = await import(pathToFileURL(join(scratch, "re2js-build/code/tools/grep.js")).href);

  // The corpus.
  const corpus = join(scratch, "corpus");
  const packages = ["zod", "yaml", "diff", "picomatch", "vite", "vitest", "@langchain/core"];
  for (const folder of ["src", "test", "docs"]) cpSync(join(repository, folder), join(corpus, folder), { recursive: true });
  for (const name of packages)
    if (existsSync(join(repository, "node_modules", name)))
      cpSync(join(repository, "node_modules", name), join(corpus, "packages", name), { recursive: true, dereference: true });
  const corpusWorkspace = new Workspace({ root: scratch });
  const regexpGrep = createGrepTool(corpusWorkspace);
  const re2Grep = createRe2Grep(corpusWorkspace);
  const listing = await regexpGrep.execute({ pattern: "^", path: "corpus", output_mode: "count", head_limit: 0 }, context);
  const textFiles = Number(/ in ([\d,]+) files?\.$/.exec(listing)?.[1]?.replaceAll(",", "") ?? Number.NaN);
  const megabytes = Number(spawnSync("du", ["-sm", "--apparent-size", corpus], { encoding: "utf8" }).stdout.split("\t")[0]);
  console.log(
    `\nGrep's engine — corpus: src/, test/, docs/ and node_modules' ${packages.join(", ")} (${textFiles.toLocaleString("en-US")} text files, ${megabytes} MB);`,
  );
  console.log(`${engineRounds} rounds per row, alternating, medians; re2js ${readPackageVersion("re2js")}\n`);

  const engineRows = [];
  const resultOf = (output) => {
    const slow = /\[(Gave up on|The search stopped)[^\]]*\]/.exec(output);
    const shownLines = /^\[Showing the first (\d+) of ([\d,]+) lines/m.exec(output);
    const found = output.startsWith("No ")
      ? "none found"
      : (output.split("\n").find((line) => line.startsWith("Found ")) ??
        (shownLines
          ? `${shownLines[1]} of ${shownLines[2]} lines shown`
          : `${lines(output).filter((line) => !line.startsWith("[")).length} lines`));
    return slow
      ? `${found.replace(/\.$/, "")}; ${slow[1] === "Gave up on" ? "gave up a file" : "stopped"} (watchdog)`
      : found.replace(/\.$/, "");
  };
  const compare = async (name, args) => {
    const measured = await timeAlternating(
      () => regexpGrep.execute(args, context),
      () => re2Grep.execute(args, context),
    );
    const [regexpResult, re2Result] = [resultOf(measured.firstResult), resultOf(measured.secondResult)];
    engineRows.push({
      name,
      regexp: measured.first,
      re2: measured.second,
      results: regexpResult === re2Result ? `same: ${regexpResult}` : `RegExp: ${regexpResult} | re2js: ${re2Result}`,
    });
  };
  const ordinary = [
    ["literal, files (default mode)", { pattern: "useState" }],
    ["regex with a literal, files", { pattern: "function\\s+\\w+Async" }],
    ["anchored regex, files", { pattern: "^\\s*export (async )?function" }],
    ["-i (no literal to prefilter), count", { pattern: "readable", "-i": true, output_mode: "count" }],
    ["alternation (no literal), count", { pattern: "TODO|FIXME|XXX", output_mode: "count" }],
    ["two words on a line, count", { pattern: "\\bimport\\b.*\\bfrom\\b", output_mode: "count" }],
    ["content, 250 lines", { pattern: "\\w+Error\\(", output_mode: "content" }],
  ];
  for (const [name, args] of ordinary)
    await compare(name, { ...args, path: "corpus", head_limit: args.output_mode === "content" ? 250 : 0 });

  // Patterns that backtrack catastrophically on one long line that ends otherwise, in a file beside a copy of src/.
  const catastrophic = [
    ["(a+)+$", "a 100,000-a line", `${"a".repeat(100_000)}!\n`],
    ["^(\\w+\\s?)*$", "a 20,000-word line", `${"word ".repeat(20_000)}!\n`],
  ];
  for (const [index, [pattern, what, line]] of catastrophic.entries()) {
    const folder = join(scratch, `catastrophic-${index}`);
    cpSync(join(repository, "src"), join(folder, "src"), { recursive: true });
    writeFileSync(join(folder, "long-line.txt"), line);
    await compare(`${pattern}: src/ and ${what}`, { pattern, path: `catastrophic-${index}`, head_limit: 0 });
  }
  // One small file: mostly the threads' start-up, where each re2js thread imports re2js.
  writeFileSync(join(scratch, "one.txt"), "needle\n");
  await compare("one small file (thread start-up)", { pattern: "needle", path: "one.txt" });

  const cells = [
    ["Grep", "RegExp + watchdog ms", "re2js ms", "re2js / RegExp", "results"],
    ...engineRows.map((row) => [row.name, ms(row.regexp), ms(row.re2), `${(row.re2 / row.regexp).toFixed(2)}×`, row.results]),
  ];
  printTable(cells, [1, 2, 3]);

  // How RegExp's exponential time grows with the line, where re2js's stays linear (engines alone, one thread).
  const growth = [];
  /(a+)+$/mu.test(`${"a".repeat(16)}!`); // compiled and warmed up first
  new Re2RegExp("(a+)+$", "m").test(`${"a".repeat(16)}!`);
  for (const length of [20, 22, 24, 26]) {
    const line = `${"a".repeat(length)}!`;
    const started = performance.now();
    /(a+)+$/mu.test(line);
    const regexpMs = performance.now() - started;
    const re2Started = performance.now();
    new Re2RegExp("(a+)+$", "m").test(line);
    growth.push(`${length} a's: RegExp ${ms(regexpMs)} ms, re2js ${ms(performance.now() - re2Started)} ms`);
  }
  const long = `${"a".repeat(1_000_000)}!`;
  const longStarted = performance.now();
  new Re2RegExp("(a+)+$", "m").test(long);
  growth.push(`1,000,000 a's: re2js ${ms(performance.now() - longStarted)} ms`);
  console.log(`\n(a+)+$ on a line of n a's and a "!", one call, engines alone: ${growth.join("; ")}.`);

  // What re2js cannot take: patterns as Grep compiles them, RegExp against re2js (translated, with lookbehinds).
  const gaps = [
    ["backreference", "(['\"])use strict\\1", "'use strict'"],
    ["named backreference", "(?<q>['\"])x\\k<q>", '"x"'],
    ["lookahead", "import(?= type)", "import type X"],
    ["negative lookahead", "^import (?!type)", "import { x }"],
    ["lookbehind", "(?<=@)\\w+", "@decorator"],
    ["negative lookbehind", "(?<!\\.)\\bthen\\(", "x then("],
    ["capture in a lookbehind", "(?<=(a))b", "ab"],
    ["repeat over 1,000", "a{1001}", "a".repeat(1001)],
    ["[\\b] (backspace)", "[\\b]", "\b"],
    ["\\p{L}, \\u00e9, [^], \\cJ", "\\p{L}\\u00e9[^]\\cJ", "xé\n\n"],
    ["named group, lazy, \\b\\d\\s\\w", "(?<n>\\bfoo)\\s+?\\d\\w", "foo 1x"],
  ];
  const gapLines = [];
  for (const [name, pattern, sample] of gaps) {
    const { source, flags } = compileSearchPattern(pattern, { ignoreCase: false, multiline: false });
    const regexp = new RegExp(source, flags).test(sample);
    let re2;
    try {
      re2 = new Re2RegExp(source, flags).test(sample) === regexp ? "same" : `**different** (RegExp ${regexp}, re2js ${!regexp})`;
    } catch (error) {
      re2 = `error: ${String(error.message)
        .replace(/^error parsing regexp: /, "")
        .replace(/: `\(\?m\)/, ": `")}`;
    }
    gapLines.push(`  ${name.padEnd(34)} ${pattern.padEnd(26)} ${re2}`);
  }
  console.log(`\nPatterns RegExp takes, under re2js (each tried on a sample RegExp matches):\n${gapLines.join("\n")}`);

  // Import cost: a fresh process importing re2js against one that imports nothing.
  const importTimes = { bare: [], re2js: [] };
  for (let round = 0; round < 9; round += 1)
    for (const [name, code] of [
      ["bare", "0"],
      ["re2js", "await import('re2js')"],
    ]) {
      const started = performance.now();
      spawnSync(process.execPath, ["--input-type=module", "-e", code], { cwd: repository });
      importTimes[name].push(performance.now() - started);
    }
  const size = readFileSync(join(repository, "node_modules/re2js/build/index.js")).length;
  console.log(
    `\nImport: node -e "await import('re2js')" ${ms(median(importTimes.re2js))} ms against ${ms(median(importTimes.bare))} ms for node -e 0 (median of 9; +${ms(median(importTimes.re2js) - median(importTimes.bare))} ms); build/index.js ${(size / 1024).toFixed(0)} KB. Each Grep thread would pay it on every call.`,
  );
}

/** Median ms of `first` and `second`, alternating one call each per round after one warm-up round. */
async function timeAlternating(first, second) {
  const times = { first: [], second: [] };
  const results = {};
  for (let round = -1; round < engineRounds; round += 1) {
    for (const [name, run] of [
      ["first", first],
      ["second", second],
    ]) {
      const started = performance.now();
      results[name] = await run();
      if (round >= 0) times[name].push(performance.now() - started);
    }
  }
  return { first: median(times.first), second: median(times.second), firstResult: results.first, secondResult: results.second };
}

function printTable(table, rightAligned) {
  const widths = table[0].map((_, column) => Math.max(...table.map((cells) => cells[column].length)));
  for (const [index, cells] of table.entries()) {
    console.log(
      cells.map((cell, column) => (rightAligned.includes(column) ? cell.padStart(widths[column]) : cell.padEnd(widths[column]))).join("  "),
    );
    if (index === 0) console.log(widths.map((width) => "-".repeat(width)).join("  "));
  }
}

function readPackageVersion(name) {
  return JSON.parse(readFileSync(join(repository, "node_modules", name, "package.json"), "utf8")).version;
}
