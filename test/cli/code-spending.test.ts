import { describe, expect, test } from "vitest";
import { createSpendingTracker } from "../../src/cli/code/spending.js";
import type { AgentEvent } from "../../src/index.js";

// The spending of `minagent code`: each model call priced as the model that made it.

const usage = { inputTokens: 1_000_000, outputTokens: 100_000 };

/** One run of `modelId` that makes one call using `usage`. */
function run(runId: string, modelId: string | undefined, provider = "anthropic"): AgentEvent[] {
  return [
    { type: "run-start", runId, input: "", messages: [], model: { provider, ...(modelId !== undefined && { modelId }) } },
    { type: "model-call-start", runId, turn: 0, messages: [], tools: [] },
    { type: "model-call-end", runId, turn: 0, response: { message: { role: "assistant", content: "" }, stopReason: "end_turn", usage } },
    { type: "run-end", runId, status: "completed", final: "", turns: 1, usage },
  ];
}

describe("createSpendingTracker", () => {
  test("a command's run on Haiku is priced as Haiku, the session's runs as the session's model", () => {
    const spending = createSpendingTracker({ modelId: "claude-sonnet-4-5", free: false, budgetUsd: undefined });
    for (const event of [...run("run_1", "claude-haiku-4-5"), ...run("run_2", "claude-sonnet-4-5")]) spending.listen(event);
    // Haiku: $1 + $0.50; Sonnet 4.5: $3 + $1.50.
    expect(spending.costUsd).toBeCloseTo(6, 10);
    expect(spending.usage).toMatchObject({ inputTokens: 2_000_000, outputTokens: 200_000 });
  });

  test("a run's model without a list price is priced as the session's; with neither priced the total is unknown", () => {
    const known = createSpendingTracker({ modelId: "claude-sonnet-4-5", free: false, budgetUsd: undefined });
    for (const event of run("run_1", "claude-next-1")) known.listen(event);
    expect(known.costUsd).toBeCloseTo(4.5, 10);

    const unknown = createSpendingTracker({ modelId: "claude-next-2", free: false, budgetUsd: undefined });
    for (const event of run("run_1", "claude-haiku-4-5")) unknown.listen(event);
    // Only Haiku answered so far: its price is the whole cost.
    expect(unknown.costUsd).toBeCloseTo(1.5, 10);
    for (const event of run("run_2", "claude-next-2")) unknown.listen(event);
    expect(unknown.costUsd).toBeUndefined();
  });

  test("a local session costs nothing, unless a run talks to a priced model", () => {
    const spending = createSpendingTracker({ modelId: "llama3.2", free: true, budgetUsd: undefined });
    for (const event of run("run_1", "llama3.2", "ollama")) spending.listen(event);
    expect(spending.costUsd).toBe(0);
    for (const event of run("run_2", "claude-haiku-4-5")) spending.listen(event);
    expect(spending.costUsd).toBeCloseTo(1.5, 10);
  });

  test("the budget check prices the next call as the model of the run about to make it", () => {
    const spending = createSpendingTracker({ modelId: "claude-sonnet-4-5", free: false, budgetUsd: 1 });
    spending.listen(run("run_1", "claude-haiku-4-5")[0] as AgentEvent);
    spending.listen(run("run_2", "claude-sonnet-4-5")[0] as AgentEvent);
    // 600,000 input tokens: $0.60 on Haiku fits the $1 budget; $1.80 on Sonnet 4.5 does not.
    const context = { turn: 0, messages: [{ role: "user" as const, content: "x".repeat(2_400_000) }] };
    expect(() => spending.prepareTurn({ ...context, runId: "run_1" } as never)).not.toThrow();
    expect(() => spending.prepareTurn({ ...context, runId: "run_2" } as never)).toThrow(
      /next model call \(≈ \$1\.80\) would take the spending past the budget of \$1\.00/,
    );
  });

  test("after a /model switch the new model prices runs that name none, a local session is no longer free, and /cost has each model's share", () => {
    const spending = createSpendingTracker({ modelId: "llama3.2", free: true, budgetUsd: undefined });
    for (const event of run("run_1", undefined, "ollama")) spending.listen(event);
    expect(spending.costUsd).toBe(0);
    spending.setSessionModel({ modelId: "claude-haiku-4-5", free: false });
    // A run that names no model is the session's: Haiku now ($1 + $0.50).
    for (const event of run("run_2", undefined)) spending.listen(event);
    expect(spending.costUsd).toBeCloseTo(1.5, 10);
    for (const event of run("run_3", "claude-sonnet-4-5")) spending.listen(event);
    expect(spending.costUsd).toBeCloseTo(6, 10);
    expect(spending.byModel.map(({ modelId, costUsd, modelCalls }) => [modelId, costUsd, modelCalls])).toEqual([
      ["llama3.2", 0, 1],
      ["claude-haiku-4-5", expect.closeTo(1.5, 10), 1],
      ["claude-sonnet-4-5", expect.closeTo(4.5, 10), 1],
    ]);
  });
});
