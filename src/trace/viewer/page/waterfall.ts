/// <reference lib="dom" />
import { h } from "./dom.js";
import { formatDuration, preview } from "./format.js";
import type { Row, TraceModel } from "./trace-model.js";

/** Pixels per row: fixed, so that the row under any scroll position is one division away. */
export const rowHeight = 26;
/** Rows drawn above and below the viewport, so that a fast scroll shows no blank band. */
const overscan = 12;

type Slot = { element: HTMLDivElement; index: number; position: number; version: number };

/**
 * The waterfall: one row per visible span, its name (indented by depth) and a bar where it lies in time.
 * Only the rows in view exist in the DOM (a pool of elements reused as the list scrolls), so a trace of
 * 40,000 spans scrolls as fast as one of 40. The time axis zooms (buttons, Ctrl+wheel) and pans (Shift+wheel).
 */
export class Waterfall {
  readonly element: HTMLDivElement;
  #model: TraceModel;
  readonly #scroller: HTMLDivElement;
  readonly #spacer: HTMLDivElement;
  readonly #axis: HTMLDivElement;
  readonly #slots: Slot[] = [];
  readonly #onSelect: (index: number) => void;
  #selected = -1;
  #matches = new Set<number>();
  /** The time window shown, in absolute milliseconds. */
  #from: number;
  #to: number;
  /** Bumped whenever every row must be drawn again (zoom, selection, matches, collapse). */
  #version = 0;
  #frame = 0;

  constructor(model: TraceModel, onSelect: (index: number) => void) {
    this.#model = model;
    this.#onSelect = onSelect;
    this.#from = model.start;
    this.#to = model.end;
    this.#axis = h("div.axis-ticks");
    this.#spacer = h("div.spacer");
    this.#scroller = h("div.scroller", { tabindex: 0, role: "tree", "aria-label": "Spans" }, this.#spacer);
    this.element = h("div.waterfall", null, h("div.axis", null, h("div.axis-name", null, "Span"), this.#axis), this.#scroller);
    this.#scroller.addEventListener("scroll", () => this.#schedule());
    this.#scroller.addEventListener("click", (event) => this.#click(event));
    this.#scroller.addEventListener("dblclick", (event) => {
      const index = this.#rowAt(event);
      if (index !== undefined) this.zoomTo(index);
    });
    this.#scroller.addEventListener("keydown", (event) => this.#key(event));
    this.element.addEventListener("wheel", (event) => this.#wheel(event), { passive: false });
    new ResizeObserver(() => this.#schedule()).observe(this.#scroller);
  }

  get selected(): number {
    return this.#selected;
  }

  /** A new model for the same trace (live update): collapsed rows and the selection are kept by span id. */
  setModel(model: TraceModel): void {
    const old = this.#model;
    for (const index of old.collapsed) {
      const same = model.indexOf((old.rows[index] as Row).span.spanId);
      if (same !== undefined) model.collapsed.add(same);
    }
    model.updateVisible();
    const selectedId = old.rows[this.#selected]?.span.spanId;
    const fitted = this.#from === old.start && this.#to === old.end;
    this.#model = model;
    this.#selected = selectedId === undefined ? -1 : (model.indexOf(selectedId) ?? -1);
    if (fitted) this.fit();
    else this.render(true);
  }

  select(index: number, scroll = true): void {
    this.#selected = index;
    const span = this.#model.rows[index]?.span;
    if (span) {
      this.#model.reveal(index);
      if (scroll) this.#scrollTo(index);
      // Zoomed in elsewhere: bring the selected span into the window, keeping the zoom.
      if (span.endTime < this.#from || span.startTime > this.#to) {
        const width = this.#to - this.#from;
        const middle = (span.startTime + span.endTime) / 2;
        this.#setWindow(middle - width / 2, middle + width / 2);
      }
    }
    this.render(true);
    this.#onSelect(index);
  }

  setMatches(matches: readonly number[]): void {
    this.#matches = new Set(matches);
    this.render(true);
  }

  /**
   * Zooms by `factor` (< 1 zooms in) around a point of the window (0 = its left edge, 1 its right); by default
   * around the selected span when it is in the window, else around the middle.
   */
  zoomBy(factor: number, anchor = this.#selectedAnchor()): void {
    const span = this.#to - this.#from;
    const total = this.#model.end - this.#model.start;
    const next = Math.min(total, Math.max(total / 1e6, 0.001, span * factor));
    const at = this.#from + span * anchor;
    this.#setWindow(at - next * anchor, at + next * (1 - anchor));
  }

  #selectedAnchor(): number {
    const span = this.#model.rows[this.#selected]?.span;
    if (!span) return 0.5;
    const at = ((span.startTime + span.endTime) / 2 - this.#from) / (this.#to - this.#from);
    return at >= 0 && at <= 1 ? at : 0.5;
  }

  fit(): void {
    this.#setWindow(this.#model.start, this.#model.end);
  }

  /** Fits the window to a span (a little margin on each side). */
  zoomTo(index: number): void {
    const span = this.#model.rows[index]?.span;
    if (!span) return;
    const margin = Math.max((span.endTime - span.startTime) * 0.05, 0.0005);
    this.#setWindow(span.startTime - margin, span.endTime + margin);
  }

  /** The visible time window, for tests and the bench (`[from, to]` in ms since the epoch). */
  get window(): [number, number] {
    return [this.#from, this.#to];
  }

  #setWindow(from: number, to: number): void {
    const total = this.#model.end - this.#model.start;
    const width = Math.min(to - from, total);
    const start = Math.min(Math.max(from, this.#model.start), this.#model.end - width);
    this.#from = start;
    this.#to = start + width;
    this.render(true);
  }

  #schedule(): void {
    if (this.#frame) return;
    this.#frame = requestAnimationFrame(() => {
      this.#frame = 0;
      this.render(false);
    });
  }

  /** Draws the rows in view; `force` redraws those already drawn too (the window or the marks changed). */
  render(force: boolean): void {
    if (force) this.#version++;
    const model = this.#model;
    const visible = model.visible;
    this.#spacer.style.height = `${visible.length * rowHeight}px`;
    const height = this.#scroller.clientHeight || 600;
    const first = Math.max(0, Math.floor(this.#scroller.scrollTop / rowHeight) - overscan);
    const count = Math.min(visible.length - first, Math.ceil(height / rowHeight) + overscan * 2);
    while (this.#slots.length < count) {
      const element = h("div.row", { role: "treeitem" });
      element.hidden = true;
      this.#spacer.appendChild(element);
      this.#slots.push({ element, index: -1, position: -1, version: -1 });
    }
    // A row keeps its element while it stays in view (position modulo the pool): scrolling by a few rows redraws only those.
    const pool = this.#slots.length;
    for (let position = first; position < first + count; position++) {
      const slot = this.#slots[position % pool] as Slot;
      const index = visible[position] as number;
      if (slot.position === position && slot.index === index && slot.version === this.#version && !slot.element.hidden) continue;
      slot.element.hidden = false;
      slot.position = position;
      slot.index = index;
      slot.version = this.#version;
      slot.element.style.transform = `translateY(${position * rowHeight}px)`;
      this.#drawRow(slot.element, index);
    }
    for (const slot of this.#slots) {
      if (slot.position >= first && slot.position < first + count) continue;
      if (!slot.element.hidden) slot.element.hidden = true;
      slot.position = -1;
    }
    if (force) this.#drawAxis();
  }

  #drawRow(element: HTMLDivElement, index: number): void {
    const model = this.#model;
    const row = model.rows[index] as Row;
    const span = row.span;
    element.dataset.index = String(index);
    element.dataset.spanId = span.spanId;
    const error = span.status.code === "error";
    element.className = `row type-${span.type}${error ? " error" : ""}${index === this.#selected ? " selected" : ""}${
      this.#matches.has(index) ? " match" : ""
    }${row.subagent ? " subagent" : ""}`;
    element.setAttribute("aria-selected", String(index === this.#selected));
    const toggle = h("span.toggle", null, model.hasChildren(index) ? (model.collapsed.has(index) ? "▸" : "▾") : "");
    const name = h(
      "div.name",
      { title: span.name },
      toggle,
      h("span.label", null, span.name),
      row.subagent ? h("span.badge", null, "subagent") : null,
      error ? h("span.badge.error-badge", null, span.attributes["minagent.tool.interrupted"] === true ? "interrupted" : "error") : null,
      h("span.hint", null, hintOf(row)),
    );
    name.style.paddingLeft = `${6 + Math.min(row.depth, 40) * 14}px`;
    const lane = h("div.lane");
    const width = this.#to - this.#from;
    const left = ((span.startTime - this.#from) / width) * 100;
    const right = ((span.endTime - this.#from) / width) * 100;
    if (right >= 0 && left <= 100) {
      const bar = h("div.bar");
      const clippedLeft = Math.max(0, left);
      bar.style.left = `${clippedLeft}%`;
      bar.style.width = `max(2px, ${Math.min(100, right) - clippedLeft}%)`;
      const duration = h("span.duration", null, formatDuration(span.endTime - span.startTime));
      // After the bar when there is room, else before it, else inside it.
      if (right <= 80) duration.style.left = `calc(${Math.min(100, right)}% + 4px)`;
      else if (clippedLeft >= 12) {
        duration.classList.add("before");
        duration.style.right = `${100 - clippedLeft}%`;
      } else {
        duration.classList.add("inside");
        duration.style.left = `calc(${clippedLeft}% + 4px)`;
      }
      lane.append(bar, duration);
    }
    element.replaceChildren(name, lane);
  }

  #drawAxis(): void {
    const width = this.#to - this.#from;
    const step = niceStep(width / 6);
    const ticks: HTMLElement[] = [];
    const origin = this.#model.start;
    for (let time = Math.ceil((this.#from - origin) / step) * step; time <= this.#to - origin; time += step) {
      const tick = h("span.tick", null, formatDuration(time));
      tick.style.left = `${((time + origin - this.#from) / width) * 100}%`;
      ticks.push(tick);
    }
    this.#axis.replaceChildren(...ticks);
  }

  #rowAt(event: Event): number | undefined {
    const row = (event.target as HTMLElement).closest<HTMLElement>(".row");
    return row?.dataset.index === undefined ? undefined : Number(row.dataset.index);
  }

  #click(event: MouseEvent): void {
    const index = this.#rowAt(event);
    if (index === undefined) return;
    if ((event.target as HTMLElement).classList.contains("toggle")) {
      this.#model.toggle(index);
      this.render(true);
      return;
    }
    this.select(index, false);
  }

  #key(event: KeyboardEvent): void {
    const model = this.#model;
    const position = model.visible.indexOf(this.#selected);
    const move = (to: number) => {
      const index = model.visible[Math.max(0, Math.min(model.visible.length - 1, to))];
      if (index !== undefined) this.select(index);
    };
    if (event.key === "ArrowDown") move(position + 1);
    else if (event.key === "ArrowUp") move(position - 1);
    else if (event.key === "ArrowLeft" && this.#selected >= 0) {
      if (model.hasChildren(this.#selected) && !model.collapsed.has(this.#selected)) {
        model.toggle(this.#selected, false);
        this.render(true);
      } else if ((model.rows[this.#selected]?.parent ?? -1) >= 0) this.select(model.rows[this.#selected]?.parent as number);
    } else if (event.key === "ArrowRight" && this.#selected >= 0) {
      model.toggle(this.#selected, true);
      this.render(true);
    } else return;
    event.preventDefault();
  }

  #wheel(event: WheelEvent): void {
    const lane = this.#axis.getBoundingClientRect();
    const anchor = Math.min(1, Math.max(0, (event.clientX - lane.left) / Math.max(1, lane.width)));
    if (event.ctrlKey || event.metaKey) {
      event.preventDefault();
      this.zoomBy(Math.exp(event.deltaY * 0.002), anchor);
    } else if (event.shiftKey || Math.abs(event.deltaX) > Math.abs(event.deltaY)) {
      event.preventDefault();
      const shift = ((event.shiftKey ? event.deltaY : event.deltaX) / Math.max(1, lane.width)) * (this.#to - this.#from);
      this.#setWindow(this.#from + shift, this.#to + shift);
    }
  }

  #scrollTo(index: number): void {
    const position = this.#model.visible.indexOf(index);
    if (position === -1) return;
    const top = position * rowHeight;
    const height = this.#scroller.clientHeight;
    if (top < this.#scroller.scrollTop || top + rowHeight > this.#scroller.scrollTop + height)
      this.#scroller.scrollTop = Math.max(0, top - height / 3);
  }
}

/** What a row says after its name: a tool call's arguments, a result, a model call's tokens, a run's input. */
function hintOf(row: Row): string {
  const attributes = row.span.attributes;
  switch (row.span.type) {
    case "tool-call":
      return preview(String(attributes["gen_ai.tool.call.arguments"] ?? ""), 60);
    case "tool-execution": {
      const result = attributes["gen_ai.tool.call.result"];
      return typeof result === "string" ? `→ ${preview(result, 60)}` : "";
    }
    case "model-call": {
      const input = attributes["gen_ai.usage.input_tokens"];
      const output = attributes["gen_ai.usage.output_tokens"];
      const reason = attributes["gen_ai.response.finish_reasons"];
      const tokens = typeof input === "number" ? `${input} in / ${output ?? 0} out` : "";
      return [Array.isArray(reason) ? reason.join(",") : "", tokens].filter(Boolean).join(" · ");
    }
    case "run":
      return preview(String(attributes["minagent.run.input"] ?? ""), 60);
    default:
      return "";
  }
}

/** 1, 2 or 5 times a power of ten, at least `rough`. */
function niceStep(rough: number): number {
  const power = 10 ** Math.floor(Math.log10(Math.max(rough, 1e-6)));
  for (const factor of [1, 2, 5, 10]) if (factor * power >= rough) return factor * power;
  return 10 * power;
}
