import type { RunResult } from "../core/types.js";

/** One trajectory line in the book's layout: `[i] kind        detail`. */
export function formatStep(step: { index: number; kind: string; detail: string }): string {
  return `[${step.index}] ${step.kind.padEnd(11)} ${step.detail}`;
}

/** The book's printout of a run: every step, the final answer and the message count. */
export function formatTrajectory(result: RunResult): string {
  const lines = result.steps.map(formatStep);
  lines.push(`最终回答: ${result.final}`, `消息条数: ${result.messages.length}`);
  return `${lines.join("\n")}\n`;
}
