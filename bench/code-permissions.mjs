// node bench/code-permissions.mjs — µs per permission decision of minagent/code's permissions (issue 11).
// Compiles src/code/permissions with tsc into node_modules/.cache (the package need not be built), then times
// `canUseTool` on representative calls: the median CPU time over batches of many decisions, after a warm-up.
//   node bench/code-permissions.mjs            15 batches of 2,000 decisions per call
//   node bench/code-permissions.mjs --quick    5 batches of 200 (a smoke run)
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { compileSources } from "./compile-sources.mjs";

const _root = fileURLToPath(new URL("..", import.meta.url));
const quick = process.argv.includes("--quick");
const batches = quick ? 5 : 15;
const perBatch = quick ? 200 : 2_000;

const load = compileSources("minagent-bench-permissions", ["code/permissions/index.ts"]);
const { createCodePermissions, loadBashParser, analyzeBashCommand } = await load("code/permissions/index.ts");

const workspace = mkdtempSync(join(os.tmpdir(), "minagent-bench-"));
try {
  const permissions = await createCodePermissions({
    workspace: { root: workspace, directories: [workspace] },
    settingsFiles: [],
    home: os.tmpdir(),
    rules: {
      allow: ["Edit(src/**)", "Bash(npm test)", "Bash(npm run build:*)", "Bash(git diff *)", "Bash(tee build.log)", "Bash(echo *)"],
      ask: ["Bash(git push *)", "Edit(**/*.lock)", "Bash(npm publish *)"],
      deny: ["Read(./secrets/**)", "Edit(//etc/**)", "Bash(rm -rf /)", "Bash(curl *)", "Read(~/.ssh/**)"],
    },
  });
  const parser = await loadBashParser();
  const context = {
    runId: "bench",
    tool: { name: "x", description: "", parameters: {}, execute: () => "" },
    signal: new AbortController().signal,
    needsApproval: false,
  };
  const cases = [
    {
      label: "simple read (Read src/index.ts)",
      call: { id: "1", name: "Read", arguments: { file_path: "src/index.ts" } },
      expect: "allow",
    },
    {
      label: "file edit with path rules (Edit src/code/a.ts)",
      call: { id: "2", name: "Edit", arguments: { file_path: "src/code/a.ts", old_string: "a", new_string: "b" } },
      expect: "allow",
    },
    { label: "simple bash (npm test)", call: { id: "3", name: "Bash", arguments: { command: "npm test" } }, expect: "allow" },
    {
      label: "compound bash, 5 parts",
      call: { id: "4", name: "Bash", arguments: { command: "cd src && npm run build 2>&1 | tee build.log; git diff --stat && echo done" } },
      expect: "allow",
    },
  ];
  await permissions.canUseTool(cases[2].call, context); // loads the shell parser once
  const rows = [];
  for (const { label, call, expect } of cases) {
    const decision = await permissions.canUseTool(call, context);
    if (decision.behavior !== expect) throw new Error(`${label}: expected ${expect}, got ${JSON.stringify(decision)}`);
    rows.push({ label, micros: time(() => permissions.canUseTool(call, context)) });
  }
  const compound = cases[3].call.arguments.command;
  rows.push({ label: "  of which: parse + split the 5-part line", micros: time(() => analyzeBashCommand(parser, compound)) });
  console.log(
    `µs of CPU per permission decision, median of ${batches} batches × ${perBatch} (node ${process.version}, ${os.cpus()[0]?.model ?? "cpu"}, load ${os.loadavg()[0]?.toFixed(1)})`,
  );
  for (const { label, micros } of rows) console.log(`${label.padEnd(48)} ${micros.toFixed(1).padStart(7)} µs`);
} finally {
  rmSync(workspace, { recursive: true, force: true });
}

// CPU time (user + system) rather than wall time: on a shared machine, time spent descheduled is not the decision's.
function time(run) {
  for (let index = 0; index < perBatch; index++) run();
  const samples = [];
  for (let batch = 0; batch < batches; batch++) {
    const start = process.cpuUsage();
    for (let index = 0; index < perBatch; index++) run();
    const spent = process.cpuUsage(start);
    samples.push((spent.user + spent.system) / perBatch);
  }
  samples.sort((first, second) => first - second);
  return samples[Math.floor(samples.length / 2)];
}
