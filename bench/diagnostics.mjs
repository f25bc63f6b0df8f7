// npm run bench:diagnostics (issue 25) — the time diagnostics after edits add to an Edit, measured side by side in
// one run with the real CodingAgent of dist/ and the real typescript-language-server (a devDependency) on a
// TypeScript project in a temporary folder (removed at the end): 60 modules of ~80 lines importing each other and a
// main.ts that imports them all, the file every Edit changes. Two copies of the project, one agent each: diagnostics
// on and off. The Edit tool is called as the registry has it (wrapped as in a session, hooks and all), without a
// model. Measured:
//   1. the first Edit with diagnostics on: the server starts, loads the project and diagnoses the file twice (cold);
//   2. warm Edits that keep the file clean, beside the same Edits with diagnostics off (arms interleaved, medians);
//   3. warm Edits that bring a type error (its line is in the result) and fix it again, beside the same off;
//   4. warm Edits of files the session has just read, 1 s later (the model's turn, during which the Read's background
//      diagnosis runs), beside the same off.
// The server runs outside the sandbox; the page cache is warm. A markdown table is printed, then the aim.
//   MINAGENT_ROOT=<dir>  another build than dist/
//   EDITS=<n> (edits per arm and kind, default 15)
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, cpus, release, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { minagentRoot, minagentUrl } from "./minagent-root.mjs";

const edits = Number(process.env.EDITS ?? 15);
/** What a warm server may add to an Edit: the typescript-language-server's own debounce is ~200 ms of it. */
const addedAimMs = 600;

const { CodingAgent } = await import(minagentUrl("dist/code/index.js"));
const { FakeModel } = await import(minagentUrl("dist/index.js"));
const serverFolder = join(fileURLToPath(new URL("..", import.meta.url)), "node_modules", ".bin");

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};
const ms = (value) => `${value.toFixed(value < 10 ? 2 : 0)} ms`;
const benchStart = performance.now();
const progress = (step) => process.stderr.write(`${((performance.now() - benchStart) / 1000).toFixed(1)} s: ${step}\n`);

// ---- the project ----
const modules = 60;
function moduleText(index) {
  const lines = [`import { value${(index + 1) % modules} } from "./module${(index + 1) % modules}.js";`, ""];
  lines.push(`export const value${index}: number = ${index};`);
  for (let fn = 0; fn < 12; fn++) {
    lines.push(`export function compute${index}x${fn}(items: readonly number[], scale: number): number {`);
    lines.push("  let total = 0;");
    lines.push(`  for (const item of items) total += item * scale + value${(index + 1) % modules};`);
    lines.push(`  return total > ${fn * 10} ? total : -total;`);
    lines.push("}", "");
  }
  return `${lines.join("\n")}\n`;
}
const mainText = [
  ...Array.from({ length: modules }, (_, index) => `import { compute${index}x0 } from "./module${index}.js";`),
  "",
  "export const scale: number = 1;",
  `export const totals: number[] = [${Array.from({ length: modules }, (_, index) => `compute${index}x0([1, 2, 3], scale)`).join(", ")}];`,
  "",
].join("\n");

function makeProject(base, name) {
  const root = join(base, name);
  mkdirSync(join(root, "src"), { recursive: true });
  writeFileSync(
    join(root, "tsconfig.json"),
    JSON.stringify({ compilerOptions: { strict: true, target: "ES2022", module: "NodeNext", noEmit: true }, include: ["src"] }),
  );
  for (let index = 0; index < modules; index++) writeFileSync(join(root, "src", `module${index}.ts`), moduleText(index));
  writeFileSync(join(root, "src", "main.ts"), mainText);
  return root;
}

// ---- the agents ----
async function agentOn(root, diagnostics) {
  const agent = await CodingAgent.create(new FakeModel([]), {
    workspace: root,
    settingsFiles: [],
    mode: "bypassPermissions",
    sandbox: { enabled: false },
    memory: false,
    subagents: false,
    compaction: false,
    diagnostics,
  });
  let calls = 0;
  const context = () => ({ signal: new AbortController().signal, toolCallId: `call${calls++}`, run: undefined });
  await agent.registry.get("Read").execute({ file_path: "src/main.ts" }, context());
  const edit = async (from, to, file = "src/main.ts") => {
    const start = performance.now();
    const result = await agent.registry.get("Edit").execute({ file_path: file, old_string: from, new_string: to }, context());
    return { ms: performance.now() - start, result: String(result) };
  };
  const read = (file) => agent.registry.get("Read").execute({ file_path: file }, context());
  return { agent, edit, read };
}

const base = mkdtempSync(join(tmpdir(), "minagent-bench-diagnostics-"));
const rows = [];
let failures = 0;
try {
  progress("writing two projects");
  const on = await agentOn(makeProject(base, "on"), { searchPath: serverFolder, startTimeoutMs: 60_000 });
  const off = await agentOn(makeProject(base, "off"), false);
  progress("first Edit, server cold");
  const cold = await on.edit("scale: number = 1;", "scale: number = 2;");
  const coldOff = await off.edit("scale: number = 1;", "scale: number = 2;");
  rows.push(["first Edit (server starts, loads the project)", cold.ms, coldOff.ms]);
  // Each arm's file is in the same state before each pair of Edits: the arms alternate which goes first.
  const clean = { on: [], off: [] };
  let scale = 2;
  progress(`${edits} clean Edits per arm`);
  for (let index = 0; index < edits; index++) {
    const from = `scale: number = ${scale};`;
    const to = `scale: number = ${scale + 1};`;
    const arms = index % 2 === 0 ? [on, off] : [off, on];
    for (const arm of arms) {
      const outcome = await arm.edit(from, to);
      (arm === on ? clean.on : clean.off).push(outcome.ms);
      if (outcome.result.includes("error")) failures++;
    }
    scale++;
  }
  rows.push(["warm Edit, file stays clean", median(clean.on), median(clean.off)]);
  const broken = { on: [], off: [] };
  const fixed = { on: [], off: [] };
  progress(`${edits} breaking and fixing Edits per arm`);
  for (let index = 0; index < edits; index++) {
    const arms = index % 2 === 0 ? [on, off] : [off, on];
    for (const arm of arms) {
      const breaking = await arm.edit(`scale: number = ${scale};`, `scale: number = "${scale}";`);
      const fixing = await arm.edit(`scale: number = "${scale}";`, `scale: number = ${scale};`);
      (arm === on ? broken.on : broken.off).push(breaking.ms);
      (arm === on ? fixed.on : fixed.off).push(fixing.ms);
      if (arm === on && !breaking.result.includes("error TS2322")) failures++;
      if (fixing.result.includes("error")) failures++;
    }
  }
  rows.push(["warm Edit bringing a type error (reported)", median(broken.on), median(broken.off)]);
  rows.push(["warm Edit fixing it", median(fixed.on), median(fixed.off)]);
  // A file the session has not diagnosed yet is diagnosed twice: when Read (in the background, during the model's
  // next turn: a second here) and after the Edit.
  const other = { on: [], off: [] };
  progress(`${edits} Edits of files not diagnosed before`);
  for (let index = 0; index < Math.min(edits, modules); index++) {
    const file = `src/module${index}.ts`;
    const arms = index % 2 === 0 ? [on, off] : [off, on];
    for (const arm of arms) {
      await arm.read(file);
      // The model's next turn, not counted: the Read started the file's first diagnosis meanwhile.
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      const outcome = await arm.edit(`value${index}: number = ${index};`, `value${index}: number = ${index + 1};`, file);
      (arm === on ? other.on : other.off).push(outcome.ms);
      if (outcome.result.includes("error")) failures++;
    }
  }
  rows.push(["warm Edit of a file just read (first diagnosed during the turn)", median(other.on), median(other.off)]);
  const running = await on.agent.diagnostics.running();
  progress("closing");
  const closeStart = performance.now();
  await on.agent.close();
  const closeMs = performance.now() - closeStart;
  await off.agent.close();
  const left = running.filter(({ pid }) => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  });

  console.log(`\n## Diagnostics after edits (typescript-language-server 6.0.2), ${edits} Edits per arm and kind, medians\n`);
  console.log(
    `${cpus()[0]?.model ?? "cpu"} × ${availableParallelism()}, Linux ${release()}, Node ${process.version}, build ${minagentRoot}\n`,
  );
  console.log("| Edit (src/main.ts imports 60 modules) | diagnostics on | off | added | ratio |");
  console.log("|---|---:|---:|---:|---:|");
  for (const [what, onMs, offMs] of rows)
    console.log(`| ${what} | ${ms(onMs)} | ${ms(offMs)} | ${ms(onMs - offMs)} | ${(onMs / offMs).toFixed(0)}× |`);
  console.log(`\nServers started: ${running.length}; close() took ${ms(closeMs)}; processes left after close: ${left.length}.`);
  const warmAdded = Math.max(...rows.slice(1).map(([, onMs, offMs]) => onMs - offMs));
  console.log(
    `Aim: a warm server adds at most ${addedAimMs} ms to an Edit — ${warmAdded <= addedAimMs ? "met" : "NOT met"} (${ms(warmAdded)} at most).`,
  );
  console.log(`Results as expected (errors shown when brought, none otherwise): ${failures === 0 ? "yes" : `NO, ${failures} wrong`}.`);
  if (failures > 0 || left.length > 0) process.exitCode = 1;
} finally {
  rmSync(base, { recursive: true, force: true });
}
