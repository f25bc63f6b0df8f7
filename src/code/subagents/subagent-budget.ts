import type { AgentEventListener, Model, PrepareTurn, Usage } from "../../engine.js";
import { MinagentError } from "../../errors.js";
import { formatNumber } from "../../text.js";

/**
 * The session's budget, as subagents see it. Subagents' model calls are the session's (their events reach the
 * session's listeners, their usage is added to the parent run's), so the host's own spending count includes them.
 * @example
 * // minagent code: --max-budget-usd and the spending tracker
 * const budget = { remainingUsd: () => maxBudgetUsd - (spending.costUsd ?? 0), costUsd: (usage, model) => estimateCost(model.modelId ?? "", usage) };
 */
export type SubagentBudget = {
  /** Dollars the session may still spend (Infinity: no budget). */
  remainingUsd(): number;
  /** What `usage` of `model` costs in dollars; undefined when its price is unknown (counted as free). */
  costUsd(usage: Usage, model: Pick<Model, "provider" | "modelId">): number | undefined;
};

/** Thrown by a subagent's `prepareTurn` when its next model call would pass one of its limits; the Agent tool reports it. */
export class SubagentLimitError extends MinagentError {}

/** A subagent's spending, counted from its run's events (its own subagents' included), and the check before each call. */
export type SpendingGuard = {
  /** Listens to the subagent's run (and its descendants'): counts every model call. */
  listen: AgentEventListener;
  /** Throws a {@link SubagentLimitError} before a model call that would take the subagent past a limit. */
  prepareTurn: PrepareTurn;
  /** The subagent's last non-empty text (its own run's), to report with a limit. */
  readonly lastText: string | undefined;
};

/**
 * Counts what a subagent spends and stops it before a model call expected to pass its token limit, its share of
 * the budget (`share` × what remained when it started), or the session's budget. The next call is expected to cost
 * what the subagent's last one did (a conversation only grows, so this errs low rather than stopping early).
 */
export function createSpendingGuard(options: {
  budget?: SubagentBudget | undefined;
  share: number;
  maxTokens: number | undefined;
}): SpendingGuard {
  const { budget, share, maxTokens } = options;
  const remainingAtStart = budget?.remainingUsd();
  const allowanceUsd = remainingAtStart === undefined ? undefined : remainingAtStart * share;
  const models = new Map<string, Pick<Model, "provider" | "modelId">>();
  let ownRunId: string | undefined;
  let spentUsd = 0;
  let spentTokens = 0;
  let last = { usd: 0, tokens: 0 };
  let lastText: string | undefined;

  const listen: AgentEventListener = (event) => {
    if (event.type === "run-start") {
      ownRunId ??= event.runId;
      models.set(event.runId, event.model);
    } else if (event.type === "model-call-end") {
      const usage = event.response.usage;
      const tokens = usage ? usage.inputTokens + usage.outputTokens : 0;
      const usd = usage && budget ? (budget.costUsd(usage, models.get(event.runId) ?? {}) ?? 0) : 0;
      spentTokens += tokens;
      spentUsd += usd;
      if (event.runId === ownRunId) {
        last = { usd, tokens };
        if (event.response.message.content.trim() !== "") lastText = event.response.message.content.trim();
      }
    }
  };

  const prepareTurn: PrepareTurn = () => {
    if (maxTokens !== undefined && spentTokens + last.tokens > maxTokens)
      throw new SubagentLimitError(
        `it has used ${formatNumber(spentTokens)} tokens, and its next model call would take it past its limit of ${formatNumber(maxTokens)}`,
      );
    if (allowanceUsd !== undefined && spentUsd + last.usd > allowanceUsd)
      throw new SubagentLimitError(
        `it has spent $${dollars(spentUsd)}, and its next model call would take it past its share of the budget ($${dollars(allowanceUsd)}, ${Math.round(share * 100)} % of the $${dollars(remainingAtStart ?? 0)} left when it started)`,
      );
    if (budget && budget.remainingUsd() - last.usd < 0)
      throw new SubagentLimitError("the session's budget is spent: its next model call would go past it");
  };

  return {
    listen,
    prepareTurn,
    get lastText() {
      return lastText;
    },
  };
}

function dollars(amount: number): string {
  return amount.toFixed(amount < 0.01 ? 5 : amount < 1 ? 4 : 2);
}
