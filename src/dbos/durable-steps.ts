import type { Model, ToolExecutor } from "../engine.js";
import { loadDbosSdk } from "./load-dbos-sdk.js";

/** Name of the DBOS step that records one model call. */
export const modelStepName = "minagent.model";

/** Name of the DBOS step that records one call of the tool `toolName`. */
export function toolStepName(toolName: string): string {
  return `minagent.tool:${toolName}`;
}

/**
 * A model whose every call is a checkpointed DBOS step when made inside a workflow: the response is stored in
 * Postgres when the call returns, and a workflow that is re-executed after a crash gets the stored response
 * instead of calling (and paying for) the model again. Outside a workflow (DBOS launched or not) it calls the model.
 * The response must survive DBOS's serialisation (superjson): minagent's responses are plain data.
 */
export function durableModel(model: Model): Model {
  const { DBOS } = loadDbosSdk();
  const { provider, modelId, supportsResponseFormat } = model;
  return {
    ...(provider !== undefined && { provider }),
    ...(modelId !== undefined && { modelId }),
    ...(supportsResponseFormat !== undefined && { supportsResponseFormat }),
    complete: (messages, tools, options) =>
      DBOS.isWithinWorkflow()
        ? DBOS.runStep(() => model.complete(messages, tools, options), { name: modelStepName })
        : model.complete(messages, tools, options),
  };
}

/**
 * A tool executor (a ToolRegistry) whose every call is a checkpointed DBOS step when run inside a workflow: its
 * outcome (the observation, or "pending" for a call that needs approval) is stored when the call returns, and a
 * re-executed workflow gets it back without running the tool again. A call that was running when the process died
 * has no stored outcome, so it runs again: tools with effects should use `context.idempotencyKey`. Outside a workflow
 * it runs the call as the executor would.
 *
 * DBOS numbers steps in the order they start, so the calls of a turn, started in the model's order, keep their
 * numbers when they run at once and finish in another order.
 */
export function durableTools(tools: ToolExecutor): ToolExecutor {
  const { DBOS } = loadDbosSdk();
  const runsAlone = tools.runsAlone;
  return {
    schemas: () => tools.schemas(),
    execute: (toolCall, options) =>
      DBOS.isWithinWorkflow()
        ? DBOS.runStep(() => tools.execute(toolCall, options), { name: toolStepName(toolCall.name) })
        : tools.execute(toolCall, options),
    runsAlone: runsAlone && ((toolCall) => runsAlone.call(tools, toolCall)),
  };
}
