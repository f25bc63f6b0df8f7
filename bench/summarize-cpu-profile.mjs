// `node bench/summarize-cpu-profile.mjs <file.cpuprofile> [top]` — the hot frames of a `node --cpu-prof` profile:
// self time and total (inclusive) time per function, so a regression can be named without opening DevTools.
import { readFileSync } from "node:fs";

const [file, topArgument = "25"] = process.argv.slice(2);
const profile = JSON.parse(readFileSync(file, "utf8"));
const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
const parents = new Map();
for (const node of profile.nodes) for (const child of node.children ?? []) parents.set(child, node.id);

// Sample i lasted timeDeltas[i + 1] µs (the delta before the next sample).
const selfMicros = new Map();
profile.samples.forEach((id, index) => {
  const micros = profile.timeDeltas[index + 1] ?? 0;
  selfMicros.set(id, (selfMicros.get(id) ?? 0) + micros);
});
const total = [...selfMicros.values()].reduce((sum, value) => sum + value, 0);

const frameName = (node) => {
  const { functionName, url, lineNumber } = node.callFrame;
  const where = url ? `${url.replace(/^.*\/(node_modules|dist|bench)\//, "$1/")}:${lineNumber + 1}` : "";
  return `${functionName || "(anonymous)"} ${where}`.trim();
};

const self = new Map();
const inclusive = new Map();
for (const [id, micros] of selfMicros) {
  const name = frameName(nodes.get(id));
  self.set(name, (self.get(name) ?? 0) + micros);
  // Count each function once per sample stack, however deeply it recurses.
  const seen = new Set();
  for (let current = id; current !== undefined; current = parents.get(current)) {
    const ancestor = frameName(nodes.get(current));
    if (seen.has(ancestor)) continue;
    seen.add(ancestor);
    inclusive.set(ancestor, (inclusive.get(ancestor) ?? 0) + micros);
  }
}

const top = Number(topArgument);
const print = (title, map) => {
  process.stdout.write(`\n${title} (of ${(total / 1000).toFixed(0)} ms sampled)\n`);
  for (const [name, micros] of [...map].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    process.stdout.write(`${((micros / total) * 100).toFixed(1).padStart(5)} %  ${(micros / 1000).toFixed(1).padStart(8)} ms  ${name}\n`);
  }
};
print("self time", self);
print("total time", inclusive);
