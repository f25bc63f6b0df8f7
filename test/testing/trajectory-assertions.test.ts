import { AssertionError } from "node:assert";
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { Agent, FakeModel, ReActAgent, type RunResult, ToolRegistry } from "../../src/index.js";
import {
  assertConvergedWithin,
  assertFinalAnswer,
  assertNoErrorObservations,
  assertStepKinds,
  assertToolCalled,
  reply,
  toolCall,
} from "../../src/testing/index.js";

const registry = () =>
  new ToolRegistry().add({
    name: "weather",
    description: "Current weather of a city",
    parameters: {
      type: "object",
      properties: { city: { type: "string" }, days: { type: "array", items: { type: "number" } } },
      required: ["city"],
    },
    execute: ({ city }) =>
      city === "北京" ? "晴 24°C" : city === "上海" ? "多云 27°C" : Promise.reject(new Error(`unknown city ${city as string}`)),
  });

async function demoRun(): Promise<RunResult> {
  const model = new FakeModel([
    reply("先查北京。", toolCall("weather", { city: "北京", days: [1, 2] }, "c1")),
    reply("再查上海。", toolCall("weather", { city: "上海" }, "c2")),
    "北京晴 24°C，上海多云 27°C。",
  ]);
  return new ReActAgent(model, registry()).run("对比北京和上海的天气");
}

/** Runs `assertion` and returns the AssertionError it throws. */
function failure(assertion: () => void): AssertionError {
  try {
    assertion();
  } catch (error) {
    expect(error).toBeInstanceOf(AssertionError);
    return error as AssertionError;
  }
  throw new Error("expected the assertion to fail");
}

describe("trajectory assertions pass on a good run", () => {
  it("accepts the demo's trajectory", async () => {
    const result = await demoRun();
    assertStepKinds(result, ["thought", "action", "observation", "thought", "action", "observation", "final"]);
    assertToolCalled(result, "weather", { city: "北京" });
    assertToolCalled(result, "weather", { city: /上/ });
    assertToolCalled(result, "weather", { days: [1, expect.any(Number)] });
    assertToolCalled(result, "weather");
    assertNoErrorObservations(result);
    assertConvergedWithin(result, 3);
    assertFinalAnswer(result, "北京晴 24°C，上海多云 27°C。");
    assertFinalAnswer(result, /上海多云/);
  });
});

describe("trajectory assertions fail with readable messages", () => {
  it("assertStepKinds shows a +/- diff and the steps", async () => {
    const result = await demoRun();
    const failed = failure(() => assertStepKinds(result, ["thought", "action", "observation", "final"]));
    expect(failed.message).toContain("The run's step kinds differ from the expected ones.");
    expect(failed.message).toContain("+ actual - expected");
    expect(failed.message).toMatch(/\+ {3}'thought'/);
    expect(failed.message).toContain('[1] action      weather({"city":"上海"})');
    expect(failed.actual).toEqual(["thought", "action", "observation", "thought", "action", "observation", "final"]);
    expect(failed.expected).toEqual(["thought", "action", "observation", "final"]);
  });

  it("assertToolCalled lists the calls that were made", async () => {
    const result = await demoRun();
    const failed = failure(() => assertToolCalled(result, "weather", { city: "广州" }));
    expect(failed.message).toBe(
      'Expected a call to tool "weather" with arguments including {"city":"广州"}.\n\nTool calls made:\n  1. weather({"city":"北京","days":[1,2]})\n  2. weather({"city":"上海"})',
    );
    expect(failure(() => assertToolCalled(result, "search")).message).toMatch(/^Expected a call to tool "search"\./);
    expect(() => assertToolCalled(result, "weather", { city: "北京", days: [1] })).toThrow(AssertionError); // arrays match whole
  });

  it("assertNoErrorObservations names the failed call and what the model read", async () => {
    const model = new FakeModel([reply("", toolCall("weather", { city: "Atlantis" }, "c1"), toolCall("forecast", {}, "c2")), "sorry"]);
    const result = await new Agent(model, registry()).run("go");
    const failed = failure(() => assertNoErrorObservations(result));
    expect(failed.message).toBe(
      'Expected no error observations, found 2:\n  weather({"city":"Atlantis"})\n    → Error: unknown city Atlantis\n  forecast({})\n    → Unknown tool "forecast". Available tools: weather.',
    );
  });

  it("assertConvergedWithin says how many turns it took, or how the run ended", async () => {
    const result = await demoRun();
    expect(failure(() => assertConvergedWithin(result, 2)).message).toBe("Expected the run to converge within 2 turn(s), but it took 3.");
    const stuck = await new Agent(new FakeModel([reply("", toolCall("weather", { city: "北京" }, "c1"))]), registry(), { maxSteps: 1 }).run(
      "go",
    );
    expect(failure(() => assertConvergedWithin(stuck, 5)).message).toBe(
      "Expected the run to converge within 5 turn(s), but it never gave a final answer. It ended with [1] error: Did not converge within maxSteps (1 model calls).",
    );
  });

  it("assertFinalAnswer shows the difference", async () => {
    const result = await demoRun();
    const failed = failure(() => assertFinalAnswer(result, "北京晴 24°C，上海小雨 20°C。"));
    expect(failed.message).toContain("The final answer differs from the expected one.");
    expect(failed.message).toContain("+ '北京晴 24°C，上海多云 27°C。'\n- '北京晴 24°C，上海小雨 20°C。'");
    expect(failure(() => assertFinalAnswer(result, /广州/)).message).toBe(
      'Expected the final answer to match /广州/, got "北京晴 24°C，上海多云 27°C。".',
    );
  });
});

describe("trajectory assertions under node:test", () => {
  const fixture = new URL("./fixtures/node-test-usage.mjs", import.meta.url);
  it("run in node's own test runner from the built package, failing with the same messages", async () => {
    expect(
      existsSync(new URL("../../dist/testing/index.js", import.meta.url)),
      "dist/ is missing: npm test builds it first (npm run build)",
    ).toBe(true);
    const outcome = await promisify(execFile)(process.execPath, ["--test", "--test-reporter=tap", fixture.pathname]).catch(
      (error: { stdout: string; code: number }) => error,
    );
    expect(outcome.stdout).toMatch(/# pass 1\n/);
    expect(outcome.stdout).toMatch(/# fail 1\n/); // the fixture's second test fails on purpose…
    expect(outcome.stdout).toContain("The run's step kinds differ from the expected ones."); // …with our message
  });
});
