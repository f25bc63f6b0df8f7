import type { PermissionMode } from "../../../code/permissions/index.js";
import type { Usage } from "../../../core/types.js";
import { formatNumber } from "../../../text.js";
import type { Style } from "./terminal.js";
import { displayWidth } from "./text-width.js";

/** What the status line shows. */
export type StatusFacts = {
  mode: PermissionMode;
  /** What the session is doing: waiting for a prompt, running a turn, waiting for an answer. */
  activity: "idle" | "running" | "asking";
  /** Tokens of every model call so far, and their estimated cost (undefined when the price is unknown). */
  usage: Readonly<Usage>;
  costUsd: number | undefined;
  /** Input tokens of the latest model call, and the model's context window if known. */
  contextTokens: number | undefined;
  contextWindow: number | undefined;
  /** The session's model id (`claude-sonnet-4-5-20250929`): the status line shows it short, {@link shortModelName}. */
  modelId?: string | undefined;
};

const modeLabels: Record<PermissionMode, string> = {
  default: "default mode",
  acceptEdits: "⏵⏵ accept edits on",
  plan: "⏸ plan mode on",
  dontAsk: "dontAsk mode",
  bypassPermissions: "⏵⏵ bypass permissions on",
};

/** The mode as the status line and /permissions name it. */
export function describeMode(mode: PermissionMode): string {
  return modeLabels[mode];
}

/**
 * `⏵⏵ accept edits on (shift+tab to cycle) · esc to interrupt   claude-sonnet-4-5 · 1,234 tokens · $0.0042 · context 6% of 200k`:
 * the mode and what the keys do on the left; the model, spending and context use on the right. On a narrow screen
 * the key hint goes first, then the context use, then the model.
 */
export function formatStatus(facts: StatusFacts, style: Style, columns: number): string {
  const mode =
    facts.mode === "plan"
      ? style.cyan(modeLabels.plan)
      : facts.mode === "default"
        ? modeLabels.default
        : style.magenta(modeLabels[facts.mode]);
  const activity =
    facts.activity === "running"
      ? ` · ${style.yellow("working")} (esc to interrupt)`
      : facts.activity === "asking"
        ? ` · ${style.yellow("waiting for your answer")}`
        : "";
  const model = facts.modelId ? `${shortModelName(facts.modelId)} · ` : "";
  const full = formatSpending(facts);
  const short = formatSpending({ ...facts, contextTokens: undefined });
  const layouts: [string, string][] = [
    [`${mode}${style.dim(" (shift+tab to cycle)")}${activity}`, `${model}${full}`],
    [`${mode}${activity}`, `${model}${full}`],
    [`${mode}${activity}`, `${model}${short}`],
  ];
  for (const [left, right] of layouts) {
    const gap = columns - 1 - displayWidth(left) - displayWidth(right);
    if (gap >= 2) return `${left}${" ".repeat(gap)}${style.dim(right)}`;
  }
  return `${mode}${activity} · ${style.dim(short)}`;
}

/** `1,234 tokens · $0.0042 · context 6% of 200k` */
export function formatSpending(facts: Pick<StatusFacts, "usage" | "costUsd" | "contextTokens" | "contextWindow">): string {
  const tokens = facts.usage.inputTokens + facts.usage.outputTokens;
  const parts = [`${formatNumber(tokens)} tokens`];
  if (facts.costUsd !== undefined) parts.push(formatCost(facts.costUsd));
  if (facts.contextTokens !== undefined) {
    parts.push(
      facts.contextWindow
        ? `context ${Math.round((100 * facts.contextTokens) / facts.contextWindow)}% of ${shortNumber(facts.contextWindow)}`
        : `context ${shortNumber(facts.contextTokens)}`,
    );
  }
  return parts.join(" · ");
}

/**
 * Dollars with one steady precision, four decimals, as the status line and /cost show them: `$0.0001`, `$0.0075`,
 * `$0.0123`, `$1.2345`, `$12.3456`. The text only grows by a digit as the amount passes $10, $100…, never switching
 * its decimals (two decimals from $0.01 would make the line jump from `$0.0099` to `$0.01`), and a cent's tenth and
 * hundredth stay visible: what a session of small calls adds up to. Thousands are grouped (`$1,234.5678`).
 */
export function formatCost(usd: number): string {
  return `$${formatNumber(usd, { fractionDigits: 4, fixed: true })}`;
}

/**
 * A model id short enough for the status line: without a routing prefix (`us.anthropic.`, `models/`,
 * `meta-llama/`), a date stamp (`-20250929`) or a version suffix after it (`-v1:0`), at most 24 characters.
 * @example shortModelName("claude-sonnet-4-5-20250929") // "claude-sonnet-4-5"
 */
export function shortModelName(modelId: string): string {
  const name = modelId
    .replace(/^.*\//, "")
    .replace(/^(us|eu|apac|global)\.[a-z]+\./, "")
    .replace(/^[a-z]+\.(?=claude-|llama|mistral|nova|titan)/, "")
    .replace(/-\d{8}(-.*)?$/, "");
  return name.length > 24 ? `${name.slice(0, 23)}…` : name;
}

/** 200000 → 200k, 1047576 → 1.0M */
export function shortNumber(value: number): string {
  if (value >= 1_000_000) return `${(value / 1_000_000).toFixed(1)}M`;
  if (value >= 10_000) return `${Math.round(value / 1000)}k`;
  if (value >= 1000) return `${(value / 1000).toFixed(1)}k`;
  return String(value);
}
