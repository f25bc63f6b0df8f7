import type { Message, ToolCall } from "../../../core/types.js";
import { describeToolCall } from "../tool-line.js";
import type { Style } from "./terminal.js";
import { codePointWidth, printable } from "./text-width.js";

/** What {@link transcriptLines} draws with. */
export type TranscriptSettings = {
  style: Style;
  /** Columns of the screen: every line fits in one less. */
  columns: number;
  /** The session's folder: paths in call lines are shown relative to it. */
  root: string;
  /** A subagent's own conversation, by the id of the call that started it (when this session saw it run). */
  childOf: (toolCallId: string) => readonly Message[] | undefined;
};

/** How deep subagents of subagents are drawn; deeper ones are named, not drawn. */
const maxDepth = 4;

/**
 * The conversation in full, as screen lines that each fit the width: the prompts, the model's text, every tool call
 * with its arguments and whole result, and under a subagent's call the subagent's own steps, indented.
 */
export function transcriptLines(conversation: readonly Message[], settings: TranscriptSettings): string[] {
  const lines: string[] = [];
  drawConversation(conversation, settings, "", 0, lines);
  while (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
  return lines.length > 0 ? lines : [settings.style.dim("Nothing yet: the conversation is empty.")];
}

function drawConversation(
  conversation: readonly Message[],
  settings: TranscriptSettings,
  indent: string,
  depth: number,
  lines: string[],
): void {
  const { style } = settings;
  const results = new Map<string, Message>();
  for (const message of conversation) if (message.role === "tool" && message.toolCallId) results.set(message.toolCallId, message);
  const push = (text: string, first: string, rest: string, paint: (line: string) => string = (line) => line) => {
    for (const line of wrapText(text, settings.columns - 1, indent + first, indent + rest)) lines.push(paint(line));
  };
  // A subagent's first prompt is the call's, shown already with its arguments.
  const callPrompt = depth > 0 ? conversation.find((message) => message.role === "user") : undefined;
  for (const message of conversation) {
    if (message.role === "system" || message.role === "tool" || message === callPrompt) continue;
    if (message.role === "user") {
      // Notes the session adds ("[Request interrupted by user]") are not the person's words.
      if (message.content.startsWith("[")) push(message.content, "", "", style.dim);
      else push(message.content, "> ", "  ", style.bold);
      if (message.parts?.length)
        push(`(${message.parts.length} attachment${message.parts.length === 1 ? "" : "s"})`, "  ", "  ", style.dim);
      lines.push("");
      continue;
    }
    if (message.content.trim() !== "") {
      push(message.content.trim(), "", "");
      lines.push("");
    }
    for (const call of message.toolCalls ?? []) drawCall(call, results.get(call.id), settings, indent, depth, lines);
  }
}

function drawCall(
  call: ToolCall,
  result: Message | undefined,
  settings: TranscriptSettings,
  indent: string,
  depth: number,
  lines: string[],
): void {
  const { style } = settings;
  const width = settings.columns - 1;
  const mark = result === undefined ? style.dim("⋯") : result.isError ? style.red("✗") : style.green("✓");
  const [head = "", ...rest] = wrapText(describeToolCall(call, settings.root), width, `${indent}  `, `${indent}    `);
  lines.push(`${indent}${mark}${head.slice(indent.length + 1)}`, ...rest);
  for (const [name, value] of Object.entries(call.arguments)) {
    const text = typeof value === "string" ? value : JSON.stringify(value, null, 2);
    for (const line of wrapText(`${name}: ${text}`, width, `${indent}  │ `, `${indent}  │   `)) lines.push(style.dim(line));
  }
  const child = settings.childOf(call.id);
  if (child) {
    if (depth + 1 >= maxDepth) lines.push(style.dim(`${indent}  (a subagent's steps, nested too deep to show)`));
    else drawConversation(child, settings, `${indent}    `, depth + 1, lines);
  }
  if (result === undefined) lines.push(style.dim(`${indent}  ⎿ running…`));
  else {
    const text = result.content === "" ? "(no output)" : result.content;
    for (const line of wrapText(text, width, `${indent}  ⎿ `, `${indent}    `)) lines.push(result.isError ? style.red(line) : line);
    if (result.parts?.length)
      lines.push(style.dim(`${indent}    (and ${result.parts.length} image or document part${result.parts.length === 1 ? "" : "s"})`));
  }
  lines.push("");
}

/**
 * `text` broken into rows of at most `width` columns: each of its lines, then each too-long line cut where it
 * reaches the width (not at words: outputs are code and logs). The first row starts with `first`, the others with
 * `rest`. Control characters are removed and tabs expanded, so that nothing in the text can move the cursor.
 */
export function wrapText(text: string, width: number, first: string, rest: string): string[] {
  const rows: string[] = [];
  for (const line of printable(text).replace(/\r/g, "").split("\n")) {
    let prefix = rows.length === 0 ? first : rest;
    let row = prefix;
    let used = widthOf(prefix);
    let column = 0;
    let empty = true;
    for (const character of line) {
      const cells = character === "\t" ? 8 - (column % 8) : codePointWidth(character.codePointAt(0) as number);
      if (used + cells > width && !empty) {
        rows.push(row);
        prefix = rest;
        row = prefix;
        used = widthOf(prefix);
      }
      row += character === "\t" ? " ".repeat(cells) : character;
      used += cells;
      column += cells;
      empty = false;
    }
    rows.push(row.trimEnd());
  }
  return rows;
}

function widthOf(plain: string): number {
  let width = 0;
  for (const character of plain) width += codePointWidth(character.codePointAt(0) as number);
  return width;
}
