import type { RunResult } from "../core/types.js";

/** One trajectory line in the book's layout: `[i] kind        detail`. */
export function formatStep(step: { index: number; kind: string; detail: string }): string {
  return `[${step.index}] ${step.kind.padEnd(11)} ${step.detail}`;
}

/** The labels under a printed trajectory: the book's Chinese ones for a Chinese locale, else English. */
const trajectoryLabels = {
  en: { final: "Final answer", messages: "Messages" },
  zh: { final: "最终回答", messages: "消息条数" },
} as const;

/**
 * Whether the person's locale is Chinese: the first of LC_ALL, LC_MESSAGES and LANG that is set (POSIX's order for
 * messages) starts with `zh` (`zh_CN.UTF-8`, `zh_TW`).
 */
export function isChineseLocale(env: Record<string, string | undefined>): boolean {
  const locale = [env.LC_ALL, env.LC_MESSAGES, env.LANG].find((value) => value !== undefined && value !== "");
  return locale?.toLowerCase().startsWith("zh") ?? false;
}

/**
 * The book's printout of a run: every step, the final answer and the message count, labelled in the language of
 * the locale in `env` (see {@link isChineseLocale}).
 */
export function formatTrajectory(result: RunResult, env: Record<string, string | undefined> = {}): string {
  const labels = trajectoryLabels[isChineseLocale(env) ? "zh" : "en"];
  const lines = result.steps.map(formatStep);
  lines.push(`${labels.final}: ${result.final}`, `${labels.messages}: ${result.messages.length}`);
  return `${lines.join("\n")}\n`;
}
