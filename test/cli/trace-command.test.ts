import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.js";
import { parseTrace } from "../../src/trace/json-file-exporter.js";
import { fakeIo } from "../helpers/fake-io.js";

const temporaryFile = (name: string) => join(mkdtempSync(join(tmpdir(), "minagent-cli-")), name);

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

  it("says what is wrong with a missing or foreign file, and how to use the command", async () => {
    const missing = fakeIo();
    expect(await main(["trace", "show", temporaryFile("nope.json")], missing.io)).toBe(1);
    expect(missing.stderr()).toMatch(/^minagent trace show: ENOENT/);
    const foreign = temporaryFile("package.json");
    writeFileSync(foreign, '{"name": "x"}');
    const notTrace = fakeIo();
    expect(await main(["trace", "show", foreign], notTrace.io)).toBe(1);
    expect(notTrace.stderr()).toMatch(/is not a minagent trace/);
    const noFile = fakeIo();
    expect(await main(["trace", "show"], noFile.io)).toBe(2);
    expect(noFile.stderr()).toMatch(/name one trace file[\s\S]*Usage: minagent trace show <file>/);
    const help = fakeIo();
    expect(await main(["trace", "--help"], help.io)).toBe(0);
    expect(help.stdout()).toMatch(/^Usage: minagent trace show <file>/);
    const top = fakeIo();
    await main(["--help"], top.io);
    expect(top.stdout()).toMatch(/minagent trace show <file>\s+draw a trace file as a tree of spans/);
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
