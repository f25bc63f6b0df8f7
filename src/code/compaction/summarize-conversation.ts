import { Agent, type Message, type Model, type RunContext, type ToolCall, ToolRegistry } from "../../engine.js";
import { formatNumber } from "../../text.js";
import { isCompactionMessage, isPersonMessage, isSummaryMessage, type PinnedState, systemPrefixLength } from "./compaction-messages.js";
import { charactersPerToken } from "./estimate-tokens.js";

/** A conversation cut for summarising: the system prompt, the older part (summarised), the recent part (kept). */
export type ConversationSplit = { system: Message[]; older: Message[]; recent: Message[] };

/**
 * Where to cut a conversation for stage 2: the most recent turns that fit in `keepRecentTokens` are kept (at least
 * the last one), the rest before them is summarised. A cut is never made between an assistant message and the
 * results of its calls. Undefined when the older part would hold nothing to summarise (no assistant message or
 * result: only the person's messages and an earlier summary, which are carried anyway).
 */
export function splitConversation(
  messages: readonly Message[],
  keepRecentTokens: number,
  estimate: (messages: readonly Message[]) => number,
): ConversationSplit | undefined {
  const prefix = systemPrefixLength(messages);
  const system = messages.slice(0, prefix);
  // Compaction's state message is written afresh: it is neither summarised nor kept.
  const body = messages.slice(prefix).filter((message) => !isCompactionMessage(message) || isSummaryMessage(message));
  const starts = body.flatMap((message, index) => (message.role === "tool" ? [] : [index]));
  let cut = body.length;
  let kept = 0;
  for (let index = starts.length - 1; index >= 0; index--) {
    const start = starts[index] as number;
    const tokens = estimate(body.slice(start, cut));
    if (cut < body.length && kept + tokens > keepRecentTokens) break;
    kept += tokens;
    cut = start;
  }
  const hasWork = (older: readonly Message[]) => older.some((message) => message.role === "assistant" || message.role === "tool");
  // Everything fits as recent: keep only the last turn, so that there is something to summarise.
  if (!hasWork(body.slice(0, cut))) cut = starts.at(-1) ?? 0;
  const older = body.slice(0, cut);
  if (!hasWork(older)) return undefined;
  return { system, older, recent: body.slice(cut) };
}

/** Settings of {@link summarizeConversation}. */
export type SummarizeOptions = {
  /** The model that writes the summary. */
  model: Model;
  /** Its context window: the request is kept within 60 % of it. */
  contextWindow: number;
  /** The run compacting: the summary call is its child run (its signal, its usage, its listeners). */
  run: RunContext;
  /** What the person asked the summary to focus on (`/compact <focus>`). */
  focus?: string | undefined;
  /** The pinned state, shown to the summariser (it is carried verbatim anyway). */
  state: PinnedState;
};

const summarizerSystem =
  "You summarise the conversation between a user and a coding agent, so that the agent can continue the work from your summary alone. You answer with the summary only, in plain Markdown.";

/**
 * Stage 2's model call: a structured summary of `split.older` (the task, decisions, files touched, errors and
 * fixes, what is pending, the current step), made as a child run of `run` named `compaction`, so that its tokens
 * count in the run's usage, its signal aborts it, and listeners (traces, the session's usage) see it. Throws when
 * the call fails or answers nothing.
 */
export async function summarizeConversation(split: ConversationSplit, options: SummarizeOptions): Promise<string> {
  const prompt = summaryPrompt(split, options);
  const agent = new Agent(options.model, new ToolRegistry(), { system: summarizerSystem, maxSteps: 1 });
  const result = await agent.run(prompt, { parent: options.run, name: "compaction" });
  const summary = result.status === "completed" ? result.final.trim() : "";
  if (!summary) throw new Error(`the summary call gave no summary (it ended ${result.status}${result.final ? "" : " with no text"})`);
  return summary;
}

/** The summariser's prompt: instructions, the pinned state, the older part as a transcript, the recent turns. */
export function summaryPrompt(split: ConversationSplit, options: Pick<SummarizeOptions, "contextWindow" | "focus" | "state">): string {
  const { state } = options;
  const head = [
    "Summarise the conversation in <transcript> below. It will be removed from the agent's context and your summary put in its place; the user's own messages are kept verbatim beside your summary, and the turns in <recent> are kept as they are after it.",
    "",
    "Write these sections, under these headings, in this order. Be specific (file paths, function names, commands, error messages) and brief. State only what the transcript shows: never that something was done, or passed, when the transcript does not show it. Write 'None.' for an empty section.",
    "## Task — what the user wants, with every constraint and preference they stated",
    "## Decisions — choices made, and why",
    "## Files touched — each file, and what changed in it (or that it was only read)",
    "## Errors and fixes — each error met, and how it was fixed (or that it is not fixed yet)",
    "## Pending — what remains to be done",
    "## Current step — what the agent was doing last, and its next action",
  ];
  if (options.focus) head.push("", `The user asked that the summary focus on: ${options.focus}`);
  if (state.todos) head.push("", "<todo-list>", state.todos, "</todo-list>");
  const prompt = head.join("\n");
  // The transcript gets what is left of 60 % of the summariser's window; tool results are cut to fit.
  const budget = Math.max(4_000, Math.floor(options.contextWindow * 0.6) * charactersPerToken - prompt.length);
  return [prompt, "", fitTranscript(split, budget)].join("\n");
}

/** Both parts as text within `budget` characters: results cut shorter and shorter, then the middle left out. */
function fitTranscript(split: ConversationSplit, budget: number): string {
  const calls = new Map<string, ToolCall>();
  for (const message of [...split.older, ...split.recent]) for (const call of message.toolCalls ?? []) calls.set(call.id, call);
  let older: string[] = [];
  let recent: string[] = [];
  const size = () => [...older, ...recent].reduce((total, entry) => total + entry.length + 2, 0);
  for (let limit = 2_000; limit >= 250; limit = Math.floor(limit / 2)) {
    older = split.older.map((message) => renderEntry(message, calls, limit));
    recent = split.recent.map((message) => renderEntry(message, calls, limit));
    if (size() <= budget) break;
  }
  let omitted = 0;
  while (size() > budget && older.length > 2) {
    older.splice(Math.floor(older.length / 2), 1);
    omitted++;
  }
  if (omitted > 0) older.splice(Math.floor(older.length / 2), 0, `[${omitted} entries left out here to fit]`);
  return ["<transcript>", ...older, "</transcript>", "", "<recent>", ...recent, "</recent>"].join("\n\n");
}

function renderEntry(message: Message, calls: ReadonlyMap<string, ToolCall>, limit: number): string {
  if (isSummaryMessage(message)) return `[summary of an even earlier part]\n${message.content}`;
  if (message.role === "user") return `[user]\n${cut(message.content, limit * 2)}`;
  if (message.role === "assistant") {
    const lines = [`[assistant]${message.content ? `\n${cut(message.content, limit * 2)}` : ""}`];
    for (const call of message.toolCalls ?? []) lines.push(`→ ${call.name}(${cut(JSON.stringify(call.arguments) ?? "{}", limit)})`);
    return lines.join("\n");
  }
  if (message.role === "tool") {
    const call = calls.get(message.toolCallId ?? "");
    return `[result of ${call?.name ?? "a tool call"}${message.isError ? ", an error" : ""}]\n${cut(message.content, limit)}`;
  }
  return `[${message.role}]\n${cut(message.content, limit)}`;
}

/** The text, or its head and tail with the number of characters left out between them. */
function cut(text: string, limit: number): string {
  if (text.length <= limit) return text;
  const half = Math.floor(limit / 2);
  return `${text.slice(0, half)}\n[… ${formatNumber(text.length - 2 * half)} characters left out …]\n${text.slice(-half)}`;
}

/** The person's messages of the older part, in order: carried verbatim after the summary. */
export function personMessagesOf(older: readonly Message[]): Message[] {
  return older.filter(isPersonMessage);
}
