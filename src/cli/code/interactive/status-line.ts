import type { PermissionMode } from "../../../code/permissions/index.js";
import type { Usage } from "../../../core/types.js";
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
 * `⏵⏵ accept edits on (shift+tab to cycle) · esc to interrupt      1,234 tokens · $0.0042 · context 6% of 200k`: the
 * mode and what the keys do on the left, spending and context use on the right.
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
  const right = style.dim(formatSpending(facts));
  // On a narrow screen the key hint goes first, then the context use.
  for (const left of [`${mode}${style.dim(" (shift+tab to cycle)")}${activity}`, `${mode}${activity}`]) {
    const gap = columns - 1 - displayWidth(left) - displayWidth(right);
    if (gap >= 2) return `${left}${" ".repeat(gap)}${right}`;
  }
  return `${mode}${activity} · ${style.dim(formatSpending({ ...facts, contextTokens: undefined }))}`;
}

/** `1,234 tokens · $0.0042 · context 6% of 200k` */
export function formatSpending(facts: Pick<StatusFacts, "usage" | "costUsd" | "contextTokens" | "contextWindow">): string {
  const tokens = facts.usage.inputTokens + facts.usage.outputTokens;
  const parts = [`${tokens.toLocaleString("en-US")} tokens`];
  if (facts.costUsd !== undefined) parts.push(`$${facts.costUsd.toFixed(facts.costUsd < 0.01 && facts.costUsd > 0 ? 4 : 2)}`);
  if (facts.contextTokens !== undefined) {
    parts.push(
      facts.contextWindow
        ? `context ${Math.round((100 * facts.contextTokens) / facts.contextWindow)}% of ${shortNumber(facts.contextWindow)}`
        : `context ${shortNumber(facts.contextTokens)}`,
    );
  }
  return parts.join(" · ");
}

/** 200000 → 200k, 1047576 → 1.0M */
export function shortNumber(value: number): string {
  if (value >= 1_000_000) return `${(value / 1_000_000).toFixed(1)}M`;
  if (value >= 10_000) return `${Math.round(value / 1000)}k`;
  if (value >= 1000) return `${(value / 1000).toFixed(1)}k`;
  return String(value);
}
