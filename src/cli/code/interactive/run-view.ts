import type { AgentEvent } from "../../../core/events.js";
import { describeToolCall, summarizeToolResult } from "../tool-line.js";
import type { Terminal } from "./terminal.js";
import { displayWidth, flattenText, printable, truncateToWidth } from "./text-width.js";

/** Results longer than this many lines get a hint on their line that the transcript (Ctrl-O) shows them in full. */
const linesShownInFull = 3;
const expandHint = " (ctrl+o to expand)";

/**
 * Draws a run as it happens: the answer streams as it is written; each tool call is one line, `⋯ Bash(npm test)`
 * while it runs, replaced by `✓ Bash(npm test) · exit 0 · 12 lines of output` (or `✗` and the first line of the
 * error) when it ends — in place when nothing was printed below it meanwhile, else on a line of its own.
 */
export class RunView {
  readonly #terminal: Terminal;
  readonly #root: string;
  #midLine = false;
  /** The call whose running line is the last line on screen. */
  #lastLine: string | undefined;
  #streamed = false;
  readonly #topRuns = new Set<string>();
  /** Calls that started a subagent: their steps are in the transcript. */
  readonly #callsWithSteps = new Set<string>();
  /** Calls started and not ended: their lines say "interrupted" if the turn is stopped. */
  readonly #running = new Map<string, { call: string; runId: string; line: string }>();
  /** Input tokens of the latest model call: how full the context is. */
  lastInputTokens: number | undefined;

  constructor(terminal: Terminal, root: string) {
    this.#terminal = terminal;
    this.#root = root;
  }

  readonly listener = (event: AgentEvent): void => {
    const { style } = this.#terminal;
    switch (event.type) {
      case "run-start":
        if (event.parentRunId === undefined) this.#topRuns.add(event.runId);
        if (event.parentToolCallId !== undefined) this.#callsWithSteps.add(event.parentToolCallId);
        break;
      case "model-call-start":
        this.#streamed = false;
        break;
      case "text-delta":
        if (!this.#topRuns.has(event.runId)) break;
        this.print(printable(event.text));
        this.#streamed = true;
        break;
      case "model-call-retry": {
        this.endLine();
        const { error, delayMs } = event;
        const cut = this.#streamed ? " (the text above was cut off; it starts again)" : "";
        this.print(
          style.yellow(
            `… ${error.status ?? error.errorType ?? error.kind} ${flattenText(error.message).slice(0, 160)}; retrying in ${(delayMs / 1000).toFixed(1)} s${cut}\n`,
          ),
        );
        this.#streamed = false;
        break;
      }
      case "model-call-end": {
        if (event.response.usage && this.#topRuns.has(event.runId)) this.lastInputTokens = event.response.usage.inputTokens;
        const { message, stopReason } = event.response;
        if (!this.#streamed && message.content !== "" && this.#topRuns.has(event.runId)) this.print(printable(message.content));
        this.endLine();
        if (stopReason === "max_tokens" || stopReason === "refusal") this.print(style.yellow(`(the model stopped: ${stopReason})\n`));
        break;
      }
      case "tool-call-start": {
        this.endLine();
        const call = describeToolCall(event.toolCall, this.#root);
        const line = style.dim(this.#toolLine("⋯", call, undefined, event.runId));
        this.print(`${line}\n`);
        this.#lastLine = event.toolCall.id;
        this.#running.set(event.toolCall.id, { call, runId: event.runId, line });
        break;
      }
      case "tool-call-end": {
        const { toolCall, result } = event;
        const mark = result.isError ? style.red("✗") : style.green("✓");
        // A Bash result ends in two lines of its own ("", "Exit code: 0"): three lines are one line of output.
        const ranSubagent = this.#callsWithSteps.delete(toolCall.id);
        const more = ranSubagent || result.content.split("\n").length > linesShownInFull;
        this.#endToolLine(toolCall.id, mark, summarizeToolResult(toolCall, result), more ? expandHint : undefined);
        if (toolCall.name === "TodoWrite" && !result.isError) this.#printTodos(toolCall.arguments.todos);
        break;
      }
      case "compaction": {
        this.endLine();
        const thousands = (tokens: number) => `${Math.round(tokens / 1000)}k`;
        const what = event.stage === "summary" ? "summarised the earlier conversation" : "cleared old tool results";
        if (event.error) this.print(style.yellow(`⚠ Compaction: ${flattenText(event.error)}\n`));
        else this.print(style.dim(`⎯ Compacted: ${what} (${thousands(event.tokensBefore)} → ${thousands(event.tokensAfter)} tokens)\n`));
        break;
      }
      case "tool-call-pending":
        this.endLine();
        this.print(style.yellow(`… ${describeToolCall(event.toolCall, this.#root)} waits for a decision\n`));
        break;
      default:
        break;
    }
  };

  /**
   * Shows how far a running call is (an MCP server's progress) on its line, `⋯ mcp__x__build · 3/5 (60%)`, redrawn in
   * place while it is the last line of a live terminal; elsewhere it is left out rather than printed line after line.
   */
  progress(id: string, text: string): void {
    const running = this.#running.get(id);
    if (!running || this.#lastLine !== id || !this.#terminal.live) return;
    running.line = this.#terminal.style.dim(this.#toolLine("⋯", running.call, text, running.runId));
    this.print(`\x1b[1A\r\x1b[2K${running.line}\n`);
    this.#lastLine = id;
  }

  /** The turn was stopped: the calls still running are marked interrupted. */
  markInterrupted(): void {
    for (const id of [...this.#running.keys()]) this.#endToolLine(id, this.#terminal.style.red("✗"), "interrupted");
  }

  /** Replaces a call's running line with its outcome (in place when it is still the last line). */
  #endToolLine(id: string, mark: string, summary: string, hint?: string): void {
    const running = this.#running.get(id);
    if (!running) return;
    this.#running.delete(id);
    const inPlace = this.#lastLine === id && this.#terminal.live;
    this.endLine();
    this.print(`${inPlace ? "\x1b[1A\r\x1b[2K" : ""}${this.#toolLine(mark, running.call, summary, running.runId, hint)}\n`);
  }

  /** The checklist as the model just wrote it: ☐ pending, ◼ in progress, ☒ completed. */
  #printTodos(todos: unknown): void {
    if (!Array.isArray(todos)) return;
    const { style } = this.#terminal;
    const width = this.#terminal.columns - 5;
    for (const todo of todos as { content?: unknown; status?: unknown }[]) {
      const text = truncateToWidth(flattenText(String(todo.content ?? "")), width);
      if (todo.status === "completed") this.print(style.dim(`  ☒ ${text}\n`));
      else if (todo.status === "in_progress") this.print(`  ${style.bold(`◼ ${text}`)}\n`);
      else this.print(`  ☐ ${text}\n`);
    }
  }

  /** Prints run output (held while a prompt is open). */
  print(text: string): void {
    if (text === "") return;
    this.#terminal.print(text);
    this.#midLine = !text.endsWith("\n");
    this.#lastLine = undefined;
  }

  /**
   * Prints a note about a running call (a rule just added) above its running line, so that the line stays the last
   * one and its outcome can replace it.
   */
  printNote(text: string): void {
    const running = this.#lastLine === undefined ? undefined : this.#running.get(this.#lastLine);
    if (!running || !this.#terminal.live) {
      this.print(`${text}\n`);
      return;
    }
    const id = this.#lastLine;
    this.print(`\x1b[1A\r\x1b[2K${text}\n${running.line}\n`);
    this.#lastLine = id;
  }

  /** Ends a half-written line, so that what comes next starts on a line of its own. */
  endLine(): void {
    if (this.#midLine) this.print("\n");
  }

  /** Something else was written below the last line: a running call's line is no longer the last. */
  forgetLastLine(): void {
    this.#lastLine = undefined;
  }

  /** A new turn: nothing half-written, no running line to replace. */
  reset(): void {
    this.#running.clear();
    this.#midLine = false;
    this.#lastLine = undefined;
    this.#streamed = false;
  }

  /**
   * `✓ Read(src/a.ts) · 12 lines`, cut to the screen's width; a child run's calls are indented. The hint after the
   * summary is kept whole, the summary cut for it, while the summary keeps a few columns; else it is left out.
   */
  #toolLine(mark: string, call: string, summary: string | undefined, runId: string, hint = ""): string {
    const indent = this.#topRuns.has(runId) ? "" : "  ";
    const width = this.#terminal.columns - 1 - indent.length - 2;
    const { dim } = this.#terminal.style;
    const shownCall = truncateToWidth(call, summary === undefined ? width : Math.max(20, Math.floor(width * 0.6)));
    const room = Math.max(2, width - displayWidth(shownCall));
    const shownHint = room - displayWidth(hint) >= 12 ? hint : "";
    const rest = summary === undefined ? "" : truncateToWidth(` · ${summary}`, room - displayWidth(shownHint)) + shownHint;
    return `${indent}${mark} ${shownCall}${dim(rest)}`;
  }
}
