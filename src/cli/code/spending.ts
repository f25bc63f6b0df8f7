import type { AgentEvent } from "../../core/events.js";
import type { PrepareTurn, TurnContext } from "../../core/loop-types.js";
import type { Message, Model, Usage } from "../../core/types.js";
import { addUsage, emptyUsage } from "../../core/usage.js";
import { MinagentError } from "../../errors.js";
import { estimateCost } from "../../trace/model-prices.js";
import type { CodeSpending, ModelSpending } from "./session-context.js";

/** Thrown from `prepareTurn` when the next model call would take the spending past `--max-budget-usd`. */
export class BudgetExceededError extends MinagentError {
  constructor(
    readonly budgetUsd: number,
    readonly spentUsd: number,
    readonly nextCallUsd: number,
  ) {
    super(
      `the next model call (≈ $${dollars(nextCallUsd)}) would take the spending past the budget of $${dollars(budgetUsd)} ($${dollars(spentUsd)} spent)`,
    );
  }
}

/** What the process has spent, and the guard that keeps it within a budget. */
export type SpendingTracker = CodeSpending & {
  readonly byModel: readonly ModelSpending[];
  /** Model calls answered so far. */
  readonly modelCalls: number;
  /** Listens to every run's events (an agent's `onEvent`): counts each model call's usage. */
  listen: (event: AgentEvent) => void;
  /** Stops a run before a model call that would pass the budget (an agent's `prepareTurn`). */
  prepareTurn: PrepareTurn;
  /** Tokens the tools' schemas add to every call (set once the agent exists). */
  toolTokens: number;
  /**
   * The session's model from now on (`/model`): calls of runs that name no model, and of models without a list
   * price, are priced as it; calls already made keep their price.
   */
  setSessionModel(model: { modelId: string; free: boolean }): void;
};

/** Characters per token for the estimate of text not yet counted by a provider. */
const charactersPerToken = 4;

/**
 * Counts the tokens and cost of every model call of the process and, given a budget, estimates each next call
 * before it is made: its input is the last call's input and output plus what was added since (tool results, a new
 * prompt) at about four characters a token, or the whole conversation so for the first call; its output, the
 * average output so far. A call whose estimate would take the total past the budget is not made: `prepareTurn`
 * throws a {@link BudgetExceededError}, and the run rejects with it. Each call is priced as the model that made it:
 * the one its run's `run-start` names (a custom command's `model`, a subagent's, the session's after a `/model`),
 * else the session's `modelId` (the latest `setSessionModel`'s); one
 * without a list price (src/trace/model-prices.ts) as the session's. When neither has a price the total is unknown
 * (`costUsd` undefined) and the call counts nothing towards the budget, so the caller refuses a budget for a session
 * model without a price.
 */
export function createSpendingTracker(given: { modelId: string; free: boolean; budgetUsd: number | undefined }): SpendingTracker {
  const options = { ...given };
  const usage = emptyUsage();
  let modelCalls = 0;
  let outputTokens = 0;
  let last: { inputTokens: number; outputTokens: number; messageCount: number } | undefined;
  let callMessageCount = 0;
  /** The dollars of the calls priced so far, and whether a call could not be priced (the total is then unknown). */
  let spentUsd = 0;
  let unpriced = false;
  /** Each model's share, by model id, in the order they were first used. */
  const byModel = new Map<string, ModelSpending>();
  /** The model of each run under way, as its `run-start` said: runs of one process may talk to different models. */
  const runModels = new Map<string, Pick<Model, "provider" | "modelId">>();
  const cost = (runId: string | undefined, spent: Usage): number | undefined => {
    const model = runId === undefined ? undefined : runModels.get(runId);
    const modelId = model?.modelId ?? options.modelId;
    // Free is the session's own local model, or another run's on Ollama (a command's `model: ollama:…`).
    if ((options.free && modelId === options.modelId) || model?.provider === "ollama") return 0;
    // A model of a run without a list price (one newer than the table) is priced as the session's, as every call
    // was before runs named their model: a budget (kept only for a session model with a price) still counts it.
    return estimateCost(modelId, spent) ?? (options.free ? 0 : estimateCost(options.modelId, spent));
  };

  const estimateNextCall = ({ messages }: Pick<TurnContext, "messages">, toolTokens: number): Usage => {
    const continuing = last !== undefined && messages.length > last.messageCount;
    const added = continuing && last ? messages.slice(last.messageCount + 1) : messages;
    const base = continuing && last ? last.inputTokens + last.outputTokens : toolTokens;
    return {
      inputTokens: base + Math.ceil(characters(added) / charactersPerToken),
      outputTokens: modelCalls === 0 ? 0 : Math.ceil(outputTokens / modelCalls),
    };
  };

  const tracker: SpendingTracker = {
    usage,
    get costUsd() {
      if (modelCalls === 0) return cost(undefined, usage);
      return unpriced ? undefined : spentUsd;
    },
    get modelCalls() {
      return modelCalls;
    },
    get byModel() {
      return [...byModel.values()];
    },
    toolTokens: 0,
    isBudgetExceeded: (error) => error instanceof BudgetExceededError,
    setSessionModel({ modelId, free }) {
      options.modelId = modelId;
      options.free = free;
    },
    listen(event) {
      if (event.type === "run-start") runModels.set(event.runId, event.model);
      if (event.type === "run-end" || event.type === "run-error") runModels.delete(event.runId);
      if (event.type === "model-call-start") callMessageCount = event.messages.length;
      if (event.type !== "model-call-end") return;
      const callUsage = event.response.usage ?? emptyUsage();
      addUsage(usage, callUsage);
      const callUsd = cost(event.runId, callUsage);
      if (callUsd === undefined) unpriced = true;
      else spentUsd += callUsd;
      const modelId = runModels.get(event.runId)?.modelId ?? options.modelId;
      const share = byModel.get(modelId) ?? { modelId, usage: emptyUsage(), costUsd: 0, modelCalls: 0 };
      addUsage(share.usage, callUsage);
      share.costUsd = share.costUsd === undefined || callUsd === undefined ? undefined : share.costUsd + callUsd;
      share.modelCalls++;
      byModel.set(modelId, share);
      modelCalls++;
      outputTokens += callUsage.outputTokens;
      last = { inputTokens: callUsage.inputTokens, outputTokens: callUsage.outputTokens, messageCount: callMessageCount };
    },
    prepareTurn(context) {
      if (options.budgetUsd === undefined) return;
      const spent = spentUsd;
      const next = cost(context.runId, estimateNextCall(context, tracker.toolTokens)) ?? 0;
      if (spent + next > options.budgetUsd) throw new BudgetExceededError(options.budgetUsd, spent, next);
    },
  };
  return tracker;
}

function characters(messages: readonly Message[]): number {
  let total = 0;
  for (const message of messages) total += message.content.length + (message.toolCalls ? JSON.stringify(message.toolCalls).length : 0);
  return total;
}

function dollars(amount: number): string {
  return amount.toFixed(amount < 0.01 ? 5 : amount < 1 ? 4 : 2);
}
