import { execFile } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.js";
import { JsonFileExporter, parseTrace } from "../../src/trace/json-file-exporter.js";
import type { Trace } from "../../src/trace/trace.js";
import { fakeIo } from "../helpers/fake-io.js";
import { temporaryFolder } from "../helpers/temporary-folder.js";
import { wideTrace } from "../trace/large-traces.js";

const temporaryFile = (name: string) => join(temporaryFolder("minagent-cli-"), name);

async function demoTrace(): Promise<{ path: string; stdout: string; stderr: string }> {
  const path = temporaryFile("out.json");
  const { io, stdout, stderr } = fakeIo();
  expect(await main(["demo", "react", "--trace", path], io)).toBe(0);
  return { path, stdout: stdout(), stderr: stderr() };
}

describe("minagent demo react --trace", () => {
  it("writes the demo's trace and prints the same trajectory as without it", async () => {
    const plain = fakeIo();
    await main(["demo", "react"], plain.io);
    const { path, stdout, stderr } = await demoTrace();
    expect(stdout).toBe(plain.stdout());
    expect(stderr).toBe(`Trace written to ${path}; view it with: minagent trace show ${path}\n`);
    const trace = parseTrace(readFileSync(path, "utf8"));
    expect(trace.spans.map((span) => span.type)).toEqual([
      "run",
      ...["turn", "model-call", "tool-call", "tool-execution"],
      ...["turn", "model-call", "tool-call", "tool-execution"],
      ...["turn", "model-call"],
    ]);
  });

  it("rejects a --trace without a file and unknown options", async () => {
    const missing = fakeIo();
    expect(await main(["demo", "react", "--trace"], missing.io)).toBe(2);
    expect(missing.stderr()).toMatch(/--trace needs a file name/);
    const unknown = fakeIo();
    expect(await main(["demo", "react", "--fast"], unknown.io)).toBe(2);
    expect(unknown.stderr()).toMatch(/unknown option "--fast"/);
  });
});

describe("minagent trace show", () => {
  it("draws the demo's trace as a tree", async () => {
    const { path } = await demoTrace();
    const { io, stdout } = fakeIo();
    expect(await main(["trace", "show", path, "--no-timeline"], io)).toBe(0);
    const lines = stdout()
      .split("\n")
      .map((line) => line.replace(/^\s*[\d.]+ m?s {2}/, ""));
    expect(lines.slice(1)).toEqual([
      "invoke_agent weather-assistant  ✓ completed in 3 turns · 421 in / 84 out tokens",
      "├─ turn 0",
      "│  ├─ chat fake-model  tool_use · 92 in / 31 out tokens",
      '│  └─ execute_tool weather  {"city":"北京"}',
      "│     └─ weather  → 晴 24°C",
      "├─ turn 1",
      "│  ├─ chat fake-model  tool_use · 141 in / 29 out tokens",
      '│  └─ execute_tool weather  {"city":"上海"}',
      "│     └─ weather  → 多云 27°C",
      "└─ turn 2",
      "   └─ chat fake-model  end_turn · 188 in / 24 out tokens",
      "",
    ]);
  });

  it("says what is wrong with a missing, malformed or foreign file (exit code 2), and how to use the command", async () => {
    const missingPath = temporaryFile("nope.json");
    const missing = fakeIo();
    expect(await main(["trace", "show", missingPath], missing.io)).toBe(2);
    expect(missing.stderr()).toBe(`minagent trace show: ${missingPath}: no such file\n`);
    const broken = temporaryFile("broken.json");
    writeFileSync(broken, '{"format": "minagent-trace", "spans": [');
    const notJson = fakeIo();
    expect(await main(["trace", "show", broken], notJson.io)).toBe(2);
    expect(notJson.stderr()).toMatch(/^minagent trace show: .*broken\.json is not JSON: /);
    const foreign = temporaryFile("package.json");
    writeFileSync(foreign, '{"name": "x"}');
    const notTrace = fakeIo();
    expect(await main(["trace", "show", foreign], notTrace.io)).toBe(2);
    expect(notTrace.stderr()).toMatch(/is not a minagent trace/);
    const noFile = fakeIo();
    expect(await main(["trace", "show"], noFile.io)).toBe(2);
    expect(noFile.stderr()).toMatch(/name one trace file or directory[\s\S]*Usage: minagent trace show <file or directory>/);
    const help = fakeIo();
    expect(await main(["trace", "--help"], help.io)).toBe(0);
    expect(help.stdout()).toMatch(/^Usage: minagent trace show <file or directory>/);
    const top = fakeIo();
    await main(["--help"], top.io);
    expect(top.stdout()).toMatch(
      /minagent trace show\|serve <file or dir>\s+draw a trace as a tree of spans, or see traces and sessions in the browser/,
    );
  });

  it("given a directory, draws the newest trace and says how to draw another", async () => {
    const directory = temporaryFolder("minagent-traces-");
    const exporter = new JsonFileExporter({ directory, fileName: (trace) => `${trace.traceId}.json` });
    const ids = ["a", "b", "c"].map((digit) => digit.repeat(32));
    for (const [index, traceId] of ids.entries()) {
      exporter.export({ ...wideTrace(5), traceId });
      const seconds = 1_800_000_000 + index * 60; // written a minute apart, in this order
      utimesSync(join(directory, `${traceId}.json`), seconds, seconds);
    }
    // Newer still, but not a trace: passed over.
    writeFileSync(join(directory, "package.json"), '{"name": "x"}');
    utimesSync(join(directory, "package.json"), 1_800_000_600, 1_800_000_600);
    mkdirSync(join(directory, "older.json")); // a directory named like a file: not a candidate
    const { io, stdout, stderr } = fakeIo();
    expect(await main(["trace", "show", directory, "--no-timeline"], io)).toBe(0);
    expect(stdout()).toMatch(new RegExp(`^trace ${ids[2]} `));
    expect(stderr()).toBe(
      `Newest trace in ${directory} (of 4 .json files): ${join(directory, `${ids[2]}.json`)}. Passed over 1 newer file that is not a trace. ` +
        `To draw another, name it, e.g. the one before: minagent trace show ${join(directory, `${ids[1]}.json`)}\n`,
    );
    const only = temporaryFolder("minagent-traces-");
    new JsonFileExporter({ directory: only }).export({ ...wideTrace(5), traceId: ids[0] as string });
    const one = fakeIo();
    expect(await main(["trace", "show", only], one.io)).toBe(0);
    expect(one.stderr()).toMatch(/^Newest trace in .* \(of 1 \.json file\): .*\.json\.\n$/);
  });

  it("given a directory without traces, says so with exit code 2 (never a raw EISDIR)", async () => {
    const empty = temporaryFolder("minagent-traces-");
    const none = fakeIo();
    expect(await main(["trace", "show", empty], none.io)).toBe(2);
    expect(none.stderr()).toBe(`minagent trace show: ${empty} is a directory with no trace files (*.json) in it.\n`);
    writeFileSync(join(empty, "package.json"), "{}");
    const foreign = fakeIo();
    expect(await main(["trace", "show", empty], foreign.io)).toBe(2);
    expect(foreign.stderr()).toMatch(/holds no minagent trace among its 1 \.json files \(newest: .*package\.json is not a minagent trace/);
  });

  it("draws a 40,001-span trace, every span under its parent (linear: it took 21 s when quadratic)", async () => {
    const path = temporaryFile("long.json");
    const trace: Trace = wideTrace(40_001);
    writeFileSync(path, JSON.stringify(trace));
    const { io, stdout } = fakeIo();
    const started = performance.now();
    expect(await main(["trace", "show", path, "--no-timeline"], io)).toBe(0);
    const elapsed = performance.now() - started;
    const lines = stdout()
      .split("\n")
      .slice(1, -1)
      .map((line) => line.slice(11));
    expect(lines).toHaveLength(40_001);
    expect(lines.slice(0, 3)).toEqual(["invoke_agent long  ✓ completed in 10000 turns", "├─ turn 0", "│  ├─ chat fake-model  tool_use"]);
    expect(lines.at(-1)).toBe("      └─ weather  → sunny 9999");
    expect(elapsed).toBeLessThan(5_000); // a sanity bound, not a benchmark
  });

  const bin = new URL("../../dist/cli/bin.js", import.meta.url);
  it("the built bin writes and shows a trace end to end", async () => {
    expect(existsSync(bin), "dist/ is missing: npm test builds it first (npm run build)").toBe(true);
    const path = temporaryFile("bin.json");
    await promisify(execFile)(process.execPath, [bin.pathname, "demo", "react", "--trace", path]);
    const { stdout } = await promisify(execFile)(process.execPath, [bin.pathname, "trace", "show", path]);
    expect(stdout).toMatch(/invoke_agent weather-assistant {2}✓ completed in 3 turns/);
    expect(stdout).toMatch(/└─ weather {2}→ 多云 27°C/);
  });
});

describe("minagent demo <name> --help", () => {
  it("shows the demo help, --trace included", async () => {
    const { io, stdout } = fakeIo();
    expect(await main(["demo", "react", "--help"], io)).toBe(0);
    expect(stdout()).toMatch(/--trace <file>\s+write the run's span tree as JSON/);
  });
});
