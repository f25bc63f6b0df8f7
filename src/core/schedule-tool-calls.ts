import type { ToolOutcome } from "./events.js";
import type { ToolExecutor } from "./loop-types.js";
import { mapConcurrent } from "./map-concurrent.js";
import type { ToolCall } from "./types.js";

/** How a turn's calls are carried out: executed, or deferred (not started; reported as waiting). */
export type CallRunner = {
  execute(call: ToolCall): Promise<ToolOutcome>;
  defer(call: ToolCall): ToolOutcome;
};

/**
 * Runs a turn's calls. By default all at once (at most `limit`). When the executor says some calls must run
 * alone (`runsAlone`: a registry with `orderEffects`, for tools that are not read-only), the model's order is
 * the order of effects: consecutive calls that may overlap run concurrently, a call that runs alone waits for
 * those before it and holds back those after it, and once a call waits for a decision the later ones are not
 * started (they are returned deferred, and run on resume). Outcomes keep the order of `calls`.
 */
export function scheduleToolCalls(
  calls: readonly ToolCall[],
  limit: number,
  tools: ToolExecutor,
  runner: CallRunner,
): Promise<ToolOutcome[]> {
  const runsAlone = tools.runsAlone;
  // Not an async function: returning the promise as it is spares every turn a wrapping promise and two ticks.
  if (!runsAlone) return mapConcurrent(calls, limit, runner.execute);
  return scheduleInOrder(calls, limit, tools, runsAlone, runner);
}

/** With `runsAlone`: the model's order is the order of effects (see {@link scheduleToolCalls}). */
async function scheduleInOrder(
  calls: readonly ToolCall[],
  limit: number,
  tools: ToolExecutor,
  runsAlone: (toolCall: ToolCall) => boolean,
  runner: CallRunner,
): Promise<ToolOutcome[]> {
  const outcomes: ToolOutcome[] = [];
  for (let start = 0; start < calls.length; ) {
    let end = start + 1;
    if (!runsAlone.call(tools, calls[start] as ToolCall))
      while (end < calls.length && !runsAlone.call(tools, calls[end] as ToolCall)) end++;
    outcomes.push(...(await mapConcurrent(calls.slice(start, end), limit, runner.execute)));
    start = end;
    if (outcomes.some((outcome) => "pending" in outcome)) {
      for (const call of calls.slice(start)) outcomes.push(runner.defer(call));
      break;
    }
  }
  return outcomes;
}
