/// <reference lib="dom" />
import type { Trace, TraceSpan } from "../../trace.js";
import { messagesText, parseMessages } from "./messages.js";

/** One span in tree order, with what drawing it needs. */
export type Row = {
  span: TraceSpan;
  depth: number;
  /** Row index of the parent, or -1. */
  parent: number;
  /** The index after this row's last descendant: rows `index + 1 ..< end` are its subtree. */
  end: number;
  /** A run started under another run: a sub-agent (or a pattern's trial). */
  subagent: boolean;
};

/** Tokens, cost and where the time went, over every model call and tool execution of a trace. */
export type TraceTotals = {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  /** Undefined when no model call has a known price. */
  cost: number | undefined;
  modelCalls: number;
  toolCalls: number;
  errors: number;
  /** Wall-clock time at least one model call was in flight (overlapping calls count once). */
  modelWaitMs: number;
  /** Wall-clock time at least one tool was running. */
  toolMs: number;
  durationMs: number;
};

/**
 * A trace as the page draws it: its spans in tree order (each parent followed by its subtree), which rows
 * are collapsed, and the rows that are visible. Built in one pass; collapsing and searching never rebuild it.
 */
export class TraceModel {
  readonly trace: Trace;
  readonly rows: Row[] = [];
  readonly costs: Record<string, number>;
  readonly start: number;
  readonly end: number;
  readonly #index = new Map<string, number>();
  readonly collapsed = new Set<number>();
  /** Row indices shown, in order. */
  visible: number[] = [];
  #searchTexts: string[] | undefined;

  constructor(trace: Trace, costs: Record<string, number>) {
    this.trace = trace;
    this.costs = costs;
    const children = new Map<string, TraceSpan[]>();
    const ids = new Set(trace.spans.map((span) => span.spanId));
    const roots: TraceSpan[] = [];
    for (const span of trace.spans) {
      const parent = span.parentSpanId;
      if (parent === undefined || !ids.has(parent)) roots.push(span);
      else {
        const list = children.get(parent);
        if (list) list.push(span);
        else children.set(parent, [span]);
      }
    }
    // Depth-first, without recursion: a trace may nest deeper than the stack allows. A span whose id is already
    // drawn is skipped: a repeated id (a span "its own ancestor") would otherwise be walked into forever.
    const stack: { span: TraceSpan; depth: number; parent: number }[] = roots.reverse().map((span) => ({ span, depth: 0, parent: -1 }));
    let start = Number.POSITIVE_INFINITY;
    let end = Number.NEGATIVE_INFINITY;
    const walk = (): void => {
      while (stack.length > 0) {
        const { span, depth, parent } = stack.pop() as { span: TraceSpan; depth: number; parent: number };
        if (this.#index.has(span.spanId)) continue;
        const index = this.rows.length;
        // A run under another span is a sub-agent (or a pattern's trial); a session's prompts are its own runs.
        const parentSpan = this.rows[parent]?.span;
        const subagent = span.type === "run" && parentSpan !== undefined && parentSpan.attributes["minagent.session.id"] === undefined;
        this.rows.push({ span, depth, parent, end: index + 1, subagent });
        this.#index.set(span.spanId, index);
        start = Math.min(start, span.startTime);
        end = Math.max(end, span.endTime);
        const below = children.get(span.spanId) ?? [];
        for (let child = below.length - 1; child >= 0; child--)
          stack.push({ span: below[child] as TraceSpan, depth: depth + 1, parent: index });
      }
    };
    walk();
    // Spans whose parents form a loop are reached from no root: each is drawn as a root of its own.
    for (const span of trace.spans) {
      if (this.#index.has(span.spanId)) continue;
      stack.push({ span, depth: 0, parent: -1 });
      walk();
    }
    for (let index = this.rows.length - 1; index >= 0; index--) {
      const row = this.rows[index] as Row;
      if (row.parent !== -1) {
        const parent = this.rows[row.parent] as Row;
        parent.end = Math.max(parent.end, row.end);
      }
    }
    this.start = start;
    this.end = Math.max(end, start + 0.001);
    this.updateVisible();
  }

  indexOf(spanId: string): number | undefined {
    return this.#index.get(spanId);
  }

  hasChildren(index: number): boolean {
    return (this.rows[index]?.end ?? 0) > index + 1;
  }

  toggle(index: number, open?: boolean): void {
    const shouldOpen = open ?? this.collapsed.has(index);
    if (shouldOpen) this.collapsed.delete(index);
    else if (this.hasChildren(index)) this.collapsed.add(index);
    this.updateVisible();
  }

  /** Opens every collapsed ancestor of a row, so that it is visible. */
  reveal(index: number): void {
    let changed = false;
    for (let parent = this.rows[index]?.parent ?? -1; parent !== -1; parent = this.rows[parent]?.parent ?? -1) {
      if (this.collapsed.delete(parent)) changed = true;
    }
    if (changed) this.updateVisible();
  }

  updateVisible(): void {
    const visible: number[] = [];
    for (let index = 0; index < this.rows.length; ) {
      visible.push(index);
      index = this.collapsed.has(index) ? (this.rows[index] as Row).end : index + 1;
    }
    this.visible = visible;
  }

  /** Rows whose messages, arguments, results, input or answer contain `query` (case-insensitive), in tree order. */
  search(query: string): number[] {
    const needle = query.trim().toLowerCase();
    if (!needle) return [];
    this.#searchTexts ??= this.rows.map((row) => searchText(row.span).toLowerCase());
    const matches: number[] = [];
    this.#searchTexts.forEach((text, index) => {
      if (text.includes(needle)) matches.push(index);
    });
    return matches;
  }

  totals(): TraceTotals {
    const totals: TraceTotals = {
      inputTokens: 0,
      outputTokens: 0,
      cacheReadTokens: 0,
      cost: undefined,
      modelCalls: 0,
      toolCalls: 0,
      errors: 0,
      modelWaitMs: 0,
      toolMs: 0,
      durationMs: this.end - this.start,
    };
    const model: [number, number][] = [];
    const tools: [number, number][] = [];
    for (const { span } of this.rows) {
      if (span.status.code === "error" && span.type !== "tool-call") totals.errors++;
      if (span.type === "model-call") {
        // A span standing for a sub-agent's unrecorded calls carries their tokens, but is no call of its own.
        if (span.attributes["minagent.session.unrecorded_calls"] !== true) totals.modelCalls++;
        totals.inputTokens += numberOf(span.attributes["gen_ai.usage.input_tokens"]);
        totals.outputTokens += numberOf(span.attributes["gen_ai.usage.output_tokens"]);
        totals.cacheReadTokens += numberOf(span.attributes["gen_ai.usage.cache_read.input_tokens"]);
        const cost = this.costs[span.spanId];
        if (cost !== undefined) totals.cost = (totals.cost ?? 0) + cost;
        model.push([span.startTime, span.endTime]);
      } else if (span.type === "tool-execution") {
        totals.toolCalls++;
        tools.push([span.startTime, span.endTime]);
      }
    }
    totals.modelWaitMs = unionLength(model);
    totals.toolMs = unionLength(tools);
    return totals;
  }

  /** Cost of the model calls in a row's subtree (a run's, a turn's). */
  subtreeCost(index: number): number | undefined {
    const row = this.rows[index];
    if (!row) return undefined;
    let cost: number | undefined;
    for (let child = index; child < row.end; child++) {
      const value = this.costs[(this.rows[child] as Row).span.spanId];
      if (value !== undefined) cost = (cost ?? 0) + value;
    }
    return cost;
  }
}

/** The text search looks in: names, messages (their text, not their JSON), arguments, results, input, answer, errors. */
function searchText(span: TraceSpan): string {
  const parts: string[] = [span.name];
  const attributes = span.attributes;
  for (const key of ["gen_ai.input.messages", "minagent.request.new_messages", "gen_ai.output.messages"]) {
    const value = attributes[key];
    if (typeof value === "string") parts.push(messagesText(parseMessages(value) ?? value));
  }
  for (const key of ["gen_ai.tool.call.arguments", "gen_ai.tool.call.result", "minagent.run.input", "minagent.run.final"]) {
    const value = attributes[key];
    if (typeof value === "string") parts.push(value);
  }
  if (span.status.code === "error") parts.push(span.status.message);
  return parts.join("\n");
}

function unionLength(intervals: [number, number][]): number {
  intervals.sort((a, b) => a[0] - b[0]);
  let total = 0;
  let from = Number.NEGATIVE_INFINITY;
  let to = Number.NEGATIVE_INFINITY;
  for (const [start, end] of intervals) {
    if (start > to) {
      if (to > from) total += to - from;
      from = start;
      to = end;
    } else to = Math.max(to, end);
  }
  if (to > from) total += to - from;
  return total;
}

export function numberOf(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) ? value : 0;
}
