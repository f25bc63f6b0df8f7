import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.js";
import type { Trace } from "../../src/trace/index.js";
import { fakeIo } from "../helpers/fake-io.js";

const kinds = (output: string) => [...output.matchAll(/^\[(\d+)\] (\S+)/gm)].map((match) => `${match[1]}:${match[2]}`);

describe("pattern demos", () => {
  it("plan-and-solve prints the plan steps, then the solving trajectory", async () => {
    const { io, stdout } = fakeIo();
    expect(await main(["demo", "plan-and-solve"], io)).toBe(0);
    expect(kinds(stdout())).toEqual([
      "0:plan",
      "0:plan",
      "0:plan",
      "1:action",
      "1:observation",
      "2:action",
      "2:observation",
      "3:action",
      "3:observation",
      "4:final",
    ]);
    expect(stdout()).toMatch(/\[0\] plan {8}Look up the population of Vienna\./);
    expect(stdout()).toMatch(/Final answer: Vienna has about 4,834 people per km²/);
  });

  it("reflexion prints the failed trial, the reflection and the passing trial", async () => {
    const { io, stdout } = fakeIo();
    expect(await main(["demo", "reflexion"], io)).toBe(0);
    expect(kinds(stdout())).toEqual(["0:final", "1:reflection", "2:action", "2:observation", "3:final"]);
    expect(stdout()).toMatch(/trials: 2, passed: true\n$/);
  });

  it("reflexion --trace writes one trace that keeps every trial and the reflection, each a named child run", async () => {
    const folder = mkdtempSync(join(tmpdir(), "minagent-reflexion-trace-"));
    try {
      const file = join(folder, "r.json");
      const { io } = fakeIo();
      expect(await main(["demo", "reflexion", "--trace", file], io)).toBe(0);
      const trace = JSON.parse(readFileSync(file, "utf8")) as Trace;
      const root = trace.spans[0];
      const runs = trace.spans.filter((span) => span.type === "run" && span.parentSpanId === root?.spanId);
      expect(runs.map((span) => span.name)).toEqual(["invoke_agent trial 1", "invoke_agent reflection 1", "invoke_agent trial 2"]);
      expect(trace.spans.filter((span) => span.type === "model-call")).toHaveLength(4);
      expect(root?.attributes["minagent.run.status"]).toBe("completed");
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it("plan-mode --yes: the write is refused while planning, the plan is approved, then the write succeeds", async () => {
    const { io, stdout } = fakeIo();
    expect(await main(["demo", "plan-mode", "--yes"], io)).toBe(0);
    const output = stdout();
    expect(output).toMatch(/Approve this plan\? \[y\/N, or type feedback\] y \(--yes\)/);
    expect(output).toMatch(/\[1\] observation "write_file" is not allowed in plan mode/);
    expect(output).toMatch(/\[2\] observation The user approved the plan/);
    expect(output).toMatch(/\[3\] observation wrote notes\.txt/);
  });

  it("plan-mode reads the approval from standard input", async () => {
    const approved = fakeIo({}, ["y"]);
    expect(await main(["demo", "plan-mode"], approved.io)).toBe(0);
    expect(approved.stdout()).toMatch(/\[3\] observation wrote notes\.txt/);

    const rejected = fakeIo({}, ["keep a backup first"]);
    expect(await main(["demo", "plan-mode"], rejected.io)).toBe(0);
    expect(rejected.stdout()).toMatch(/The user rejected the plan\. Their feedback: keep a backup first/);
    expect(rejected.stdout()).not.toMatch(/wrote notes\.txt/);

    const endOfInput = fakeIo({}, []);
    expect(await main(["demo", "plan-mode"], endOfInput.io)).toBe(0);
    expect(endOfInput.stdout()).toMatch(/The user rejected the plan/);
  });
});
