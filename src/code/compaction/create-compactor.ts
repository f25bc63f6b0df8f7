import type { AgentEventListener, Message, Model, PrepareTurn, TurnContext, TurnPlan } from "../../engine.js";
import { AbortError, UsageError } from "../../errors.js";
import { formatNumber } from "../../text.js";
import { clearOldToolResults } from "./clear-tool-results.js";
import { type PinnedState, stateMessage, summaryMessage, systemPrefixLength, withStateMessage } from "./compaction-messages.js";
import { ContextMeter, startsWith } from "./context-meter.js";
import { contextWindowOf } from "./context-windows.js";
import { personMessagesOf, splitConversation, summarizeConversation } from "./summarize-conversation.js";

/** Settings of {@link createCompactor}. */
export type CompactorOptions = {
  /**
   * The agent's model: the context is measured against its window, and it writes the summaries unless `summaryModel` is
   * given. A model that stands for another (CodingAgent's, which `setModel` replaces) is measured against the window of
   * the one it stands for at each turn, unless `contextWindow` is given.
   */
  model: Model;
  /** Another model for the summaries (a cheaper one, say). */
  summaryModel?: Model | undefined;
  /** The agent model's context window in tokens (default: from the table of known models, `contextWindowOf`). */
  contextWindow?: number | undefined;
  /** More windows by model id prefix, checked before the table (`{ "my-local-model": 65_536 }`); also used for `summaryModel`. */
  contextWindows?: Readonly<Record<string, number>> | undefined;
  /** The share of the window at which compaction starts (default 0.8). */
  threshold?: number | undefined;
  /** Stage 1 alone is enough when it brings the context under this share of the window (default 0.4); else the summary follows. */
  target?: number | undefined;
  /** Tool results kept intact by stage 1, the most recent ones (default 3). */
  keepToolResults?: number | undefined;
  /** Tokens of the most recent turns kept as they are by stage 2 (default: 20 % of the window; the last turn always). */
  keepRecentTokens?: number | undefined;
  /** The project memory's text, re-applied after every compaction (left out when the system prompt holds it verbatim). */
  memory?: (() => string | undefined) | undefined;
  /** The permission state, one or a few lines (`describePermissions(agent.permissions)`), re-applied after every compaction. */
  permissions?: (() => string | undefined) | undefined;
  /** The todo list (`describeTodos(agent.todos.todos)`), re-applied after every compaction. */
  todos?: (() => string | undefined) | undefined;
  /**
   * Asked before a compaction runs (CodingAgent's PreCompact hooks): `blocked` skips it, said in a `compaction`
   * event's `error`; an automatic one is then not asked for again until the context has grown (as after a
   * compaction that did not help).
   */
  beforeCompact?:
    | ((
        compaction: CompactionStart,
      ) => { blocked?: string | undefined } | undefined | Promise<{ blocked?: string | undefined } | undefined>)
    | undefined;
  /** Told after a compaction changed the conversation (CodingAgent's PostCompact hooks), with the summary when one was written. */
  afterCompact?: ((compaction: CompactionEnd) => void | Promise<void>) | undefined;
};

/** A compaction about to run: `manual` (`compactNow`, the CLI's `/compact`) or `auto` (the context neared the window). */
export type CompactionStart = { trigger: "manual" | "auto"; focus: string | undefined; signal: AbortSignal | undefined };

/** A compaction that ran: its summary, or `undefined` when only old tool results were cleared. */
export type CompactionEnd = { trigger: "manual" | "auto"; summary: string | undefined; signal: AbortSignal | undefined };

/**
 * A `prepareTurn` that compacts the conversation when its context nears the model's window, with two more parts:
 * `compactNow(focus?)` to compact at the next turn whatever the size (the CLI's `/compact [focus]`), and `listen`,
 * an event listener to pass as the agent's `onEvent` (beside others), through which the provider's token counts
 * are read exactly (without it they are read from the growth of the run's usage).
 */
export type Compactor = PrepareTurn & {
  /** Compacts at the next turn (both stages), the summary focused on `focus` when given. */
  compactNow(focus?: string | undefined): void;
  /** Hears the runs' model calls for their token counts: pass it as (or beside) the agent's `onEvent`. */
  readonly listen: AgentEventListener;
  /** The window measured against, in tokens: the model's now (a model whose `modelId` changes gets its new window). */
  readonly contextWindow: number;
  /** The context of the last request prepared, as measured (tokens), once a turn has been prepared. */
  readonly contextTokens: number | undefined;
};

/** What a compaction does before the model call. */
type Outcome = { messages: readonly Message[]; tokens: number; summary?: string | undefined };

/**
 * Compaction for long sessions, cheapest first: when the measured context of a request reaches `threshold` of the
 * window, (1) the results of old tool calls become placeholders naming the call; if the context is still above
 * `target`, (2) the older conversation is summarised by one model call (a child run named `compaction`) into a
 * structured summary and the conversation goes on from the summary and the most recent turns. The person's
 * messages, the project memory, the permission state and the todo list are carried verbatim through both (see
 * docs/compaction.md). Each stage done is a `compaction` event. A failed summary leaves the conversation as it was
 * (with its cleared results, if stage 1 ran) and says so in the event's `error`; a compaction that leaves the
 * context above the threshold is reported once and not tried again until the context has grown by a tenth of
 * the window (twice that after a second one in a row, and so on). Keep one compactor per conversation: it holds the conversation's state (the last count, a request
 * to compact, a pause after a compaction that did not help).
 * @example
 * const compactor = createCompactor({ model, todos: () => describeTodos(store.todos) });
 * const agent = new Agent(model, registry, { prepareTurn: compactor, onEvent: compactor.listen });
 */
export function createCompactor(options: CompactorOptions): Compactor {
  let settings = readOptions(options);
  /** The model id the settings were read for: a model that stands for another (a session's `/model`) can change it. */
  let settingsModelId = options.model.modelId;
  const followModel = () => {
    if (options.contextWindow !== undefined || options.model.modelId === settingsModelId) return;
    settings = readOptions(options);
    settingsModelId = options.model.modelId;
  };
  const meter = new ContextMeter();
  let requested: { focus: string | undefined } | undefined;
  /**
   * The conversation a compaction left above the threshold: no automatic compaction until it has grown by a tenth of
   * the window, twice that after a second such compaction in a row, and so on.
   */
  let stalled: (Outcome & { growth: number }) | undefined;
  /** Set while summaries fail: stage 2 is then tried only when stage 1 cannot get under the threshold. */
  let summaryFailing = false;
  let contextTokens: number | undefined;

  const compactIfDue = async (context: TurnContext): Promise<TurnPlan | undefined> => {
    const before = meter.measure(context.messages);
    contextTokens = before;
    const request = requested;
    if (!request) {
      if (before < settings.threshold) {
        stalled = undefined;
        return undefined;
      }
      if (stalled && grownSince(stalled, context.messages, before) < stalled.growth) return undefined;
    }
    requested = undefined;
    const trigger = request ? "manual" : "auto";
    const signal = context.run.signal;
    const verdict = await settings.beforeCompact?.({ trigger, focus: request?.focus, signal });
    if (verdict?.blocked !== undefined) {
      context.run.emit({
        type: "compaction",
        runId: context.runId,
        turn: context.turn,
        stage: "summary",
        tokensBefore: before,
        tokensAfter: before,
        error: `a PreCompact hook blocked the compaction: ${verdict.blocked}`,
      });
      if (!request) stalled = { messages: context.messages, tokens: before, growth: stalled ? stalled.growth * 2 : settings.retryGrowth };
      return undefined;
    }
    const outcome = await compact(context, before, request);
    contextTokens = outcome.tokens;
    stalled =
      outcome.tokens >= settings.threshold ? { ...outcome, growth: stalled ? stalled.growth * 2 : settings.retryGrowth } : undefined;
    if (outcome.messages === context.messages) return undefined;
    await settings.afterCompact?.({ trigger, summary: outcome.summary, signal });
    return { messages: outcome.messages.slice() };
  };

  /** Tokens added since a stalled compaction: the estimate of what was appended to it (a count may have corrected the measure since). */
  const grownSince = (base: Outcome, messages: readonly Message[], tokens: number) =>
    startsWith(messages, base.messages) ? meter.estimate(messages, base.messages.length) : tokens - base.tokens;

  const compact = async (context: TurnContext, before: number, request: { focus: string | undefined } | undefined): Promise<Outcome> => {
    const emit = (stage: "tool-results" | "summary", tokensBefore: number, tokensAfter: number, error?: string) =>
      context.run.emit({
        type: "compaction",
        runId: context.runId,
        turn: context.turn,
        stage,
        tokensBefore,
        tokensAfter,
        ...(error !== undefined && { error }),
      });
    const state = readState(settings);
    const system = context.messages.slice(0, systemPrefixLength(context.messages));
    let current: Outcome = { messages: context.messages, tokens: before };
    const cleared = clearOldToolResults(context.messages, { keep: settings.keepToolResults, minLength: 500 });
    if (cleared) {
      const messages = withStateMessage(cleared, stateMessage(state, system));
      current = { messages, tokens: meter.measure(messages) };
      emit("tool-results", before, current.tokens);
      // Enough when under the target; while summaries fail, when under the threshold.
      if (!request && current.tokens < (summaryFailing ? settings.threshold : settings.target)) return current;
    }
    const split = splitConversation(current.messages, settings.keepRecentTokens, (messages) => meter.estimate(messages));
    if (!split) {
      // Said when it matters: asked for, or the context is still too big.
      if (request || current.tokens >= settings.threshold)
        emit(
          "summary",
          current.tokens,
          current.tokens,
          "nothing to summarise: the conversation is only its latest turn and the user's messages",
        );
      return current;
    }
    try {
      const summary = await summarizeConversation(split, {
        model: settings.summaryModel,
        contextWindow: settings.summaryWindow,
        run: context.run,
        focus: request?.focus,
        state,
      });
      summaryFailing = false;
      const messages = [
        ...split.system,
        stateMessage(state, system),
        summaryMessage(summary),
        ...personMessagesOf(split.older),
        ...split.recent,
      ];
      const tokens = meter.measure(messages);
      emit("summary", current.tokens, tokens, tokens >= settings.threshold ? stillAbove(tokens, settings) : undefined);
      return { messages, tokens, summary };
    } catch (error) {
      if (error instanceof AbortError || context.run.signal?.aborted) throw error;
      summaryFailing = true;
      const reason = error instanceof Error ? error.message : String(error);
      const goesOn = current.messages === context.messages ? "uncompacted" : "with only old tool results cleared";
      emit("summary", current.tokens, current.tokens, `the summary call failed (${reason}); the conversation goes on ${goesOn}`);
      return current;
    }
  };

  const prepareTurn = async (context: TurnContext): Promise<TurnPlan | undefined> => {
    followModel();
    meter.beginTurn(context);
    const plan = await compactIfDue(context);
    meter.endTurn(context, plan?.messages ?? context.messages);
    return plan;
  };
  return Object.defineProperties(prepareTurn, {
    compactNow: {
      value: (focus?: string | undefined) => {
        requested = { focus: focus?.trim() || undefined };
      },
    },
    listen: { value: meter.listen },
    contextWindow: {
      get: () => {
        followModel();
        return settings.window;
      },
    },
    contextTokens: { get: () => contextTokens },
  }) as Compactor;
}

type Settings = {
  window: number;
  threshold: number;
  target: number;
  retryGrowth: number;
  keepToolResults: number;
  keepRecentTokens: number;
  summaryModel: Model;
  summaryWindow: number;
  memory: CompactorOptions["memory"];
  permissions: CompactorOptions["permissions"];
  todos: CompactorOptions["todos"];
  beforeCompact: CompactorOptions["beforeCompact"];
  afterCompact: CompactorOptions["afterCompact"];
};

/** The options checked, with their defaults; shares of the window turned into tokens. */
function readOptions(options: CompactorOptions): Settings {
  if (typeof options?.model?.complete !== "function")
    throw new UsageError(
      "createCompactor needs the agent's model ({ model }): its window is measured against, and it writes the summaries.",
    );
  if (options.summaryModel !== undefined && typeof options.summaryModel.complete !== "function")
    throw new UsageError("createCompactor: summaryModel must be a model (with a complete() method).");
  const window = options.contextWindow ?? contextWindowOf(options.model.modelId, options.contextWindows);
  if (!Number.isInteger(window) || window < 1_000)
    throw new UsageError(`createCompactor: contextWindow must be an integer of at least 1,000 tokens, got ${window}.`);
  const threshold = options.threshold ?? 0.8;
  if (!(threshold > 0 && threshold <= 1))
    throw new UsageError(`createCompactor: threshold is a share of the window, in (0, 1]; got ${threshold}.`);
  const target = options.target ?? Math.min(0.4, threshold / 2);
  if (!(target > 0 && target < threshold))
    throw new UsageError(`createCompactor: target must be above 0 and below threshold (${threshold}); got ${target}.`);
  const keepToolResults = options.keepToolResults ?? 3;
  if (!Number.isInteger(keepToolResults) || keepToolResults < 0)
    throw new UsageError(`createCompactor: keepToolResults must be a whole number, got ${keepToolResults}.`);
  const keepRecentTokens = options.keepRecentTokens ?? Math.floor(window * 0.2);
  if (!(keepRecentTokens >= 0))
    throw new UsageError(`createCompactor: keepRecentTokens must be a number of tokens, got ${keepRecentTokens}.`);
  const summaryModel = options.summaryModel ?? options.model;
  return {
    window,
    threshold: Math.floor(window * threshold),
    target: Math.floor(window * target),
    retryGrowth: Math.floor(window * 0.1),
    keepToolResults,
    keepRecentTokens,
    summaryModel,
    summaryWindow: options.summaryModel ? contextWindowOf(options.summaryModel.modelId, options.contextWindows) : window,
    memory: options.memory,
    permissions: options.permissions,
    todos: options.todos,
    beforeCompact: options.beforeCompact,
    afterCompact: options.afterCompact,
  };
}

function readState(settings: Settings): PinnedState {
  return { memory: settings.memory?.(), permissions: settings.permissions?.(), todos: settings.todos?.() };
}

function stillAbove(tokens: number, settings: Settings): string {
  const number = (value: number) => formatNumber(value);
  return `the compacted conversation still holds about ${number(tokens)} tokens, above the threshold (${number(settings.threshold)} of ${number(settings.window)}); automatic compaction waits until it has grown by ${number(settings.retryGrowth)} tokens or more`;
}
