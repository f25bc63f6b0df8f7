/// <reference lib="dom" />
import type { LoadedTrace } from "./api.js";
import { renderDetail } from "./detail-panel.js";
import { h } from "./dom.js";
import { formatCost, formatCount, formatDuration, formatTime } from "./format.js";
import { TraceModel } from "./trace-model.js";
import { Waterfall } from "./waterfall.js";

/**
 * One trace: its totals, a search box, the waterfall and the detail panel of the selected span.
 * `update` takes a newer version of the same trace (live mode) and keeps the selection, collapsed rows,
 * zoom and search.
 */
export class TraceView {
  readonly element: HTMLElement;
  #model: TraceModel;
  readonly #waterfall: Waterfall;
  readonly #detail: HTMLElement;
  readonly #totals: HTMLElement;
  readonly #header: HTMLElement;
  readonly #search: HTMLInputElement;
  readonly #searchStatus: HTMLElement;
  #query = "";
  #matches: number[] = [];
  #matchPosition = -1;
  #searchTimer = 0;

  readonly #onSelect: (spanId: string | undefined) => void;
  #errorPosition = -1;

  /** `onSelect` hears the selected span's id (the page keeps it in the address, so a link opens it). */
  constructor(loaded: LoadedTrace, initialSpanId: string | undefined, onSelect: (spanId: string | undefined) => void) {
    this.#model = new TraceModel(loaded.trace, loaded.costs);
    this.#onSelect = onSelect;
    this.#detail = h("aside.detail-host", { "aria-label": "Selected span" });
    this.#waterfall = new Waterfall(this.#model, (index) => {
      this.#showDetail(index);
      if (this.#ready) this.#onSelect(this.#model.rows[index]?.span.spanId);
    });
    this.#totals = h("div.totals");
    this.#header = h("div.trace-title");
    this.#search = h("input.search", { type: "search", placeholder: "Search messages and tool results  ( / )", "aria-label": "Search" });
    this.#searchStatus = h("span.search-status.muted");
    this.#search.addEventListener("input", () => {
      clearTimeout(this.#searchTimer);
      this.#searchTimer = window.setTimeout(() => this.#runSearch(), 120);
    });
    this.#search.addEventListener("keydown", (event) => {
      if (event.key === "Enter") {
        clearTimeout(this.#searchTimer);
        if (this.#search.value.trim() !== this.#query) this.#runSearch();
        else this.#step(event.shiftKey ? -1 : 1);
      } else if (event.key === "Escape") {
        this.#search.value = "";
        this.#runSearch();
      }
    });
    const button = (label: string, title: string, action: () => void) => {
      const element = h("button", { type: "button", title }, label);
      element.addEventListener("click", action);
      return element;
    };
    const toolbar = h(
      "div.toolbar",
      null,
      this.#header,
      h(
        "div.tools",
        null,
        this.#search,
        this.#searchStatus,
        button("↑", "Previous match (Shift+Enter)", () => this.#step(-1)),
        button("↓", "Next match (Enter)", () => this.#step(1)),
        h("span.separator"),
        button("−", "Zoom out (Ctrl+wheel)", () => this.#waterfall.zoomBy(1.6)),
        button("+", "Zoom in (Ctrl+wheel; double-click a span to fit it)", () => this.#waterfall.zoomBy(1 / 1.6)),
        button("Fit", "Show the whole trace", () => this.#waterfall.fit()),
      ),
    );
    this.element = h("div.trace-view", null, toolbar, this.#totals, h("div.split", null, this.#waterfall.element, this.#detail));
    this.#drawSummary(loaded);
    const initial = initialSpanId === undefined ? undefined : this.#model.indexOf(initialSpanId);
    this.#waterfall.select(initial ?? 0, false);
    this.#pendingScroll = initial;
    this.#ready = true;
  }

  /** False while the view selects its first span: that selection is not the person's, and not put in the address. */
  #ready = false;

  /** A span named by the address is scrolled to once the waterfall has its size. */
  #pendingScroll: number | undefined;

  /** The waterfall has its size once the view is in the document: draw it then. */
  attached(): void {
    if (this.#pendingScroll !== undefined) this.#waterfall.select(this.#pendingScroll);
    else this.#waterfall.render(true);
    this.#pendingScroll = undefined;
  }

  /** Selects the next span that failed (after the selected one), for the errors total. */
  #nextError(): void {
    const errors = this.#model.rows.flatMap((row, index) =>
      row.span.status.code === "error" && row.span.type !== "tool-call" ? [index] : [],
    );
    if (errors.length === 0) return;
    const after = errors.findIndex((index) => index > this.#waterfall.selected);
    this.#errorPosition = after === -1 ? 0 : after;
    this.#waterfall.select(errors[this.#errorPosition] as number);
  }

  selectSpan(spanId: string): void {
    const index = this.#model.indexOf(spanId);
    if (index !== undefined && index !== this.#waterfall.selected) this.#waterfall.select(index);
  }

  focusSearch(): void {
    this.#search.focus();
    this.#search.select();
  }

  update(loaded: LoadedTrace): void {
    this.#model = new TraceModel(loaded.trace, loaded.costs);
    this.#waterfall.setModel(this.#model);
    this.#drawSummary(loaded);
    if (this.#query) this.#runSearch(true);
    this.#showDetail(this.#waterfall.selected);
  }

  #drawSummary(loaded: LoadedTrace): void {
    const totals = this.#model.totals();
    const root = loaded.trace.spans[0];
    const summary = loaded.summary;
    this.#header.replaceChildren(
      h("h1", null, (summary.kind === "session" ? summary.title : undefined) ?? root?.name ?? summary.name),
      h("span.muted", null, `${formatTime(summary.startTime)} · ${summary.name}`),
    );
    const busy = Math.max(totals.durationMs, 1);
    const modelBar = h("span.bar-model");
    modelBar.style.width = `${Math.min(100, (totals.modelWaitMs / busy) * 100)}%`;
    const toolBar = h("span.bar-tools");
    toolBar.style.width = `${Math.min(100, (totals.toolMs / busy) * 100)}%`;
    const items: (HTMLElement | null)[] = [
      total("status", summary.status, summary.status === "error" ? "bad" : ""),
      total("duration", formatDuration(totals.durationMs)),
      total("tokens in / out", `${formatCount(totals.inputTokens)} / ${formatCount(totals.outputTokens)}`),
      totals.cacheReadTokens > 0 ? total("cached", formatCount(totals.cacheReadTokens)) : null,
      total("cost", formatCost(totals.cost)),
      total("model calls", formatCount(totals.modelCalls)),
      total("tool calls", formatCount(totals.toolCalls)),
      this.#errorsTotal(totals.errors),
      h(
        "div.time-split",
        { title: "Wall-clock time with a model call in flight, and with a tool running (overlapping calls count once)" },
        h(
          "div.time-labels",
          null,
          h("span.model-label", null, `model wait ${formatDuration(totals.modelWaitMs)}`),
          h("span.tools-label", null, `tools ${formatDuration(totals.toolMs)}`),
        ),
        h("div.time-bars", null, modelBar, toolBar),
      ),
      h("span.span-count.muted", null, `${formatCount(this.#model.rows.length)} spans`),
    ];
    this.#totals.replaceChildren(...items.filter((item): item is HTMLElement => item !== null));
  }

  /** The errors total; with errors, a button that steps through them. */
  #errorsTotal(count: number): HTMLElement {
    if (count === 0) return total("errors", "0");
    const button = h(
      "button.total.bad.errors-button",
      { type: "button", title: "Show the next span that failed" },
      h("span.total-label", null, "errors"),
      h("span.total-value", null, `${formatCount(count)} ›`),
    );
    button.addEventListener("click", () => this.#nextError());
    return button;
  }

  #showDetail(index: number): void {
    this.#detail.replaceChildren(renderDetail(this.#model, index, this.#query));
    this.#detail.scrollTop = 0;
  }

  #runSearch(keepPosition = false): void {
    this.#query = this.#search.value.trim();
    this.#matches = this.#model.search(this.#query);
    this.#waterfall.setMatches(this.#matches);
    if (!keepPosition || this.#matchPosition >= this.#matches.length) this.#matchPosition = -1;
    if (!keepPosition && this.#matches.length > 0) this.#step(1);
    else {
      this.#showStatus();
      this.#showDetail(this.#waterfall.selected);
    }
  }

  #step(direction: number): void {
    if (this.#matches.length > 0) {
      this.#matchPosition = (this.#matchPosition + direction + this.#matches.length) % this.#matches.length;
      this.#waterfall.select(this.#matches[this.#matchPosition] as number);
    }
    this.#showStatus();
  }

  #showStatus(): void {
    this.#searchStatus.textContent = !this.#query
      ? ""
      : this.#matches.length === 0
        ? "no match"
        : `${this.#matchPosition + 1} of ${this.#matches.length}`;
  }
}

function total(label: string, value: string, tone = ""): HTMLElement {
  const element = h("div.total", null, h("span.total-label", null, label), h("span.total-value", null, value));
  if (tone) element.classList.add(tone);
  return element;
}
