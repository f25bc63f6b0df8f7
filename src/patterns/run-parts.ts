import { type Agent, addUsage, emptyUsage, type RunOptions, type RunResult } from "../engine.js";

/** One run that a pattern made, and how much of its conversation it was handed. */
export type RunPart = { result: RunResult; historyLength: number };

/** Runs `agent` on `prompt`, continuing the conversation of the last part (or the caller's history when there is none). */
export async function continueRun(agent: Agent, prompt: string, parts: readonly RunPart[], options: RunOptions): Promise<RunPart> {
  const history = parts.at(-1)?.result.messages ?? options.history ?? [];
  const result = await agent.run(prompt, { ...options, history });
  return { result, historyLength: history.length };
}

/**
 * One RunResult from several runs: their steps in order, with each step's index shifted so it counts
 * model calls across all of them; summed usage; the last run's answer; `messages` from the given run
 * (by default the last one, which continued all the others).
 */
export function joinRuns(parts: readonly RunPart[], messagesFrom: RunPart | undefined = parts.at(-1)): RunResult {
  const steps: RunResult["steps"] = [];
  const usage = emptyUsage();
  let turnsBefore = 0;
  for (const { result, historyLength } of parts) {
    for (const step of result.steps) steps.push({ ...step, index: step.index + turnsBefore });
    addUsage(usage, result.usage);
    turnsBefore += result.messages.slice(historyLength).filter((message) => message.role === "assistant").length;
  }
  return { messages: messagesFrom?.result.messages ?? [], steps, final: parts.at(-1)?.result.final ?? "", usage };
}
